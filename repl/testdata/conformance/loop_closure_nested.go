package main

import "fmt"

func main() {
	var fs []func() int
	for i := 0; i < 2; i++ {
		for j := 0; j < 2; j++ {
			fs = append(fs, func() int { return i*10 + j })
		}
	}
	for _, f := range fs {
		fmt.Print(f(), " ")
	}
	fmt.Println()
}
