package main

import "fmt"

const (
	a, b = iota, iota * 10
	c, d
	e, f
)

func main() {
	fmt.Println(a, b, c, d, e, f)
}
