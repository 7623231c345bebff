package main

import (
	"fmt"
	"sort"
)

type Set map[string]bool

func (s Set) Add(k string) { s[k] = true }

func (s Set) Keys() []string {
	var ks []string
	for k := range s {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func main() {
	s := Set{}
	s.Add("b")
	s.Add("a")
	s.Add("b")
	fmt.Println(s.Keys())
}
