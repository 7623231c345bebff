package main

import "fmt"

const big = 1 << 62
const pi float32 = 3.14159

func main() {
	fmt.Println(big>>60, pi)
	fmt.Printf("%T %T\n", big>>60, pi)
}
