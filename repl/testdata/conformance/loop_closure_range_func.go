package main

import "fmt"

func collect(xs []int) []func() int {
	var fs []func() int
	for i, x := range xs {
		fs = append(fs, func() int { return i*100 + x })
	}
	return fs
}

func main() {
	for _, f := range collect([]int{7, 8, 9}) {
		fmt.Println(f())
	}
}
