package main

import "fmt"

func main() {
	var fs []func() int
	for i, j := 0, 10; i < 3; i, j = i+1, j+1 {
		fs = append(fs, func() int { return i + j })
	}
	for _, f := range fs {
		fmt.Print(f(), " ")
	}
	fmt.Println()
}
