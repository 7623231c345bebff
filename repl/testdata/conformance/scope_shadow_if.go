package main

import "fmt"

func main() {
	x := 1
	if x := 2; x > 1 {
		fmt.Println("inner", x)
	}
	fmt.Println("outer", x)
}
