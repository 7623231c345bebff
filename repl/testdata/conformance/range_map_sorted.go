package main

import (
	"fmt"
	"sort"
)

func main() {
	m := map[string]int{"z": 26, "a": 1, "m": 13}
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	for _, k := range ks {
		fmt.Print(k, m[k], " ")
	}
	fmt.Println()
}
