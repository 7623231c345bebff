package main

import "fmt"

func main() {
	var a int
	var b, c = 1, "two"
	var d float64 = 2.5
	e := true
	fmt.Println(a, b, c, d, e)
}
