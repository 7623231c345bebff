package main

import "fmt"

func main() {
	fs := make([]func() int, 0)
	for i := 0; i < 3; i++ {
		j := i * i
		fs = append(fs, func() int { return j })
	}
	for _, f := range fs {
		fmt.Print(f(), " ")
	}
	fmt.Println()
}
