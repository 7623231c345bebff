package main

import "fmt"

func main() {
	a, b := 1, 2
	a, b = b, a
	fmt.Println(a, b)
	x, y, z := 1, 2, 3
	x, y, z = z, x, y
	fmt.Println(x, y, z)
}
