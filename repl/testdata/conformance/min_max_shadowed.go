package main

import "fmt"

func min(a, b int) int {
	if a < b {
		return a * 100
	}
	return b * 100
}

func main() {
	fmt.Println(min(2, 3), max(2, 3))
}
