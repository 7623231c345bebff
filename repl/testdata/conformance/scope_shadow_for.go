package main

import "fmt"

func main() {
	i := 100
	for i := 0; i < 3; i++ {
		fmt.Print(i, " ")
	}
	fmt.Println()
	fmt.Println(i)
}
