package main

import "fmt"

func main() {
	var fs []func() int
	for i := 0; i < 5; i++ {
		if i%2 == 1 {
			continue
		}
		fs = append(fs, func() int { return i })
	}
	for _, f := range fs {
		fmt.Print(f(), " ")
	}
	fmt.Println()
}
