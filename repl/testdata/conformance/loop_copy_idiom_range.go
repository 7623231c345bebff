package main

import "fmt"

func main() {
	var fs []func() int
	for _, v := range []int{4, 5, 6} {
		v := v
		fs = append(fs, func() int { return v })
	}
	for _, f := range fs {
		fmt.Print(f())
	}
	fmt.Println()
}
