package main

import "fmt"

func makeFuncs() []func() int {
	var fs []func() int
	for i := 0; i < 3; i++ {
		fs = append(fs, func() int { return i * 10 })
	}
	return fs
}

func main() {
	for _, f := range makeFuncs() {
		fmt.Print(f(), " ")
	}
	fmt.Println()
}
