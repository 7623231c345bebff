package main

import "fmt"

func main() {
	s := "a\xffb"
	for _, r := range s {
		fmt.Print(r, " ")
	}
	fmt.Println()
}
