package main

import (
	"fmt"
	"sort"
)

type rev struct{ sort.Interface }

func (r rev) Less(i, j int) bool { return r.Interface.Less(j, i) }

func main() {
	s := []int{3, 1, 2}
	sort.Sort(rev{sort.IntSlice(s)})
	fmt.Println(s)
}
