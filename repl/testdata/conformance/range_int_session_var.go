package main

import "fmt"

func main() {
	n := 4
	total := 0
	for i := range n {
		total += i
	}
	fmt.Println(total)
}
