package main

import "fmt"

func f() []int {
	var ps []*int
	for i := 0; i < 6; i += 2 {
		ps = append(ps, &i)
		if i == 2 {
			i++
		}
	}
	var out []int
	for _, p := range ps {
		out = append(out, *p)
	}
	return out
}

func main() {
	fmt.Println(f())
}
