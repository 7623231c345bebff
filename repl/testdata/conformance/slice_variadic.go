package main

import "fmt"

func sum(xs ...int) int {
	t := 0
	for _, x := range xs {
		t += x
	}
	return t
}

func main() {
	fmt.Println(sum(), sum(1, 2), sum([]int{4, 5, 6}...))
}
