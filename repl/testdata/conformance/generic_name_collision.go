package main

import (
	"cmp"
	"fmt"
	"slices"
)

func main() {
	fmt.Println(cmp.Compare(1, 2))
	fmt.Println(slices.Compare([]int{1, 2}, []int{1, 3}))
}
