package main

import "fmt"

func main() {
	for i := range 4 {
		fmt.Print(i, " ")
	}
	fmt.Println()
}
