package main

import (
	"fmt"
	"slices"
)

func main() {
	s := []int{5, 2, 8, 1}
	slices.Sort(s)
	fmt.Println(s, slices.Contains(s, 8), slices.Index(s, 5))
}
