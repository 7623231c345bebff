package main

import "fmt"

func main() {
	a, b := 7, 4
	x := min(a, b)
	y := max(a, b, 10)
	fmt.Println(x, y)
}
