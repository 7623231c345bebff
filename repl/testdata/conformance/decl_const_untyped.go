package main

import "fmt"

const h = 0.5

func main() {
	var f32 float32 = h
	var f64 = h * 3
	fmt.Println(f32, f64)
	fmt.Printf("%T %T\n", f32, f64)
}
