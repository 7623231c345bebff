package main

import (
	"fmt"
	"slices"
)

func main() {
	for i, v := range slices.All([]string{"x", "y"}) {
		fmt.Println(i, v)
	}
	for v := range slices.Values([]int{3, 1, 2}) {
		fmt.Print(v)
	}
	fmt.Println()
}
