package main

import "fmt"

func main() {
	n := 5
	for k := 0; k < 2; k++ {
		n := k * 10
		fmt.Println("in", n)
	}
	fmt.Println("out", n)
}
