package main

import "fmt"

func main() {
	var fs []func() int
outer:
	for i := 0; i < 4; i++ {
		for j := 0; j < 3; j++ {
			if j == 1 {
				i++
				continue outer
			}
			fs = append(fs, func() int { return i })
		}
	}
	for _, f := range fs {
		fmt.Print(f(), " ")
	}
	fmt.Println()
}
