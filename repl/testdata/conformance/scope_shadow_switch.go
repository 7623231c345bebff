package main

import "fmt"

func main() {
	x := 10
	switch x := x / 2; {
	case x > 3:
		fmt.Println("big", x)
	default:
		fmt.Println("small", x)
	}
	fmt.Println(x)
}
