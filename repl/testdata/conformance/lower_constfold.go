package main

import "fmt"

// yaegi computed untyped integer constant divisions in a float context as
// floats (var f float64 = 5/2 gave 2.5).
const half = 7 / 2

const (
	a = iota * 3 / 2
	b
	c
)

func main() {
	x := 5 / 2
	var f float64 = 5 / 2
	var g float32 = 1 << 3 / 3
	fmt.Println(x, half, f, g, 5/2, -7/2, int64(9)/4, a, b, c)
	fmt.Println(2.5/2, 1/2.0, float64(half)/2)
}
