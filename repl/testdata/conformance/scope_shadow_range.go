package main

import "fmt"

func main() {
	v := "keep"
	for _, v := range []int{1, 2, 3} {
		fmt.Print(v)
	}
	fmt.Println()
	fmt.Println(v)
}
