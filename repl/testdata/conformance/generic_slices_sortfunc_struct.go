package main

import (
	"cmp"
	"fmt"
	"slices"
)

type P struct {
	Name string
	Age  int
}

func main() {
	ps := []P{{"a", 30}, {"b", 20}, {"c", 25}}
	slices.SortFunc(ps, func(x, y P) int { return cmp.Compare(x.Age, y.Age) })
	fmt.Println(ps)
}
