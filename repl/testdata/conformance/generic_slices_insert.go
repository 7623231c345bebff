package main

import (
	"fmt"
	"slices"
)

func main() {
	s := []string{"a", "d"}
	s = slices.Insert(s, 1, "b", "c")
	fmt.Println(s)
	s = slices.Delete(s, 0, 1)
	fmt.Println(s)
	i, found := slices.BinarySearch(s, "c")
	fmt.Println(i, found)
}
