package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

func main() {
	m := map[string]int{"a": 1, "b": 2, "c": 3}
	c := maps.Clone(m)
	fmt.Println(maps.Equal(m, c), maps.EqualFunc(m, map[string]string{"a": "1", "b": "2", "c": "3"}, func(v int, s string) bool { return fmt.Sprint(v) == s }))
	c["d"] = 4
	fmt.Println(maps.Equal(m, c), len(m), len(c))
	maps.DeleteFunc(c, func(k string, v int) bool { return v%2 == 0 })
	fmt.Println(c)
	dst := map[string]int{"z": 26}
	maps.Copy(dst, m)
	fmt.Println(dst)
	fmt.Println(slices.Sorted(maps.Keys(m)), slices.Sorted(maps.Values(m)))
	n := 0
	for k, v := range maps.All(m) {
		n += len(k) + v
	}
	fmt.Println(n)
	up := maps.Collect(func(yield func(string, int) bool) {
		for k, v := range m {
			if !yield(strings.ToUpper(k), v*10) {
				return
			}
		}
	})
	fmt.Println(up)
	maps.Insert(up, maps.All(map[string]int{"Q": 0}))
	fmt.Println(len(up), maps.Clone(map[int]int(nil)) == nil)
}
