package main

import "fmt"

func main() {
	y := 1
	f := func() int {
		y := 50
		return y + 1
	}
	fmt.Println(f(), y)
}
