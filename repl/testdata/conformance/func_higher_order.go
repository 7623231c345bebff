package main

import "fmt"

func apply(f func(int) int, xs []int) []int {
	out := make([]int, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}

func main() {
	double := func(x int) int { return 2 * x }
	fmt.Println(apply(double, []int{1, 2, 3}))
}
