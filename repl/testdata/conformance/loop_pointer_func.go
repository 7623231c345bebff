package main

import "fmt"

func ptrs() []*int {
	var ps []*int
	for i := 0; i < 3; i++ {
		ps = append(ps, &i)
	}
	return ps
}

func main() {
	for _, p := range ptrs() {
		fmt.Print(*p, " ")
	}
	fmt.Println()
}
