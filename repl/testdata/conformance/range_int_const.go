package main

import "fmt"

const N = 3

func main() {
	for i := range N {
		fmt.Print(i)
	}
	fmt.Println()
}
