package main

import (
	"fmt"
	"slices"
	"strings"
)

func main() {
	s := []string{"Banana", "apple", "Cherry"}
	slices.SortFunc(s, func(a, b string) int { return strings.Compare(strings.ToLower(a), strings.ToLower(b)) })
	fmt.Println(s)
	i := slices.IndexFunc(s, func(x string) bool { return strings.HasPrefix(x, "C") })
	fmt.Println(i)
}
