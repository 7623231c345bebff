package main

import "fmt"

var (
	x = 10
	y = x * 2
	z string
)

func main() {
	fmt.Println(x, y, z == "")
}
