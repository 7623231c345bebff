package main

import (
	"fmt"
	"maps"
)

func main() {
	a := map[string]int{"x": 1, "y": 2}
	b := maps.Clone(a)
	b["z"] = 3
	fmt.Println(len(a), len(b), maps.Equal(a, b))
	maps.DeleteFunc(b, func(k string, v int) bool { return v > 1 })
	fmt.Println(b)
}
