package main

import "fmt"

func main() {
	for i, j := 0, 10; i < j; i, j = i+1, j-2 {
		fmt.Print(i, ":", j, " ")
	}
	fmt.Println()
}
