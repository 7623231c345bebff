package main

import (
	"fmt"
	"slices"
)

func main() {
	s := []int{1, 2, 3, 4}
	fmt.Println(slices.Max(s), slices.Min(s), slices.Equal(s, []int{1, 2, 3, 4}))
	r := slices.Clone(s)
	slices.Reverse(r)
	fmt.Println(r, s)
	fmt.Println(slices.Compact([]int{1, 1, 2, 2, 2, 3}))
}
