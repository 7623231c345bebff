package main

import "fmt"

func squares(n int) []int {
	var out []int
	for i := range n {
		out = append(out, i*i)
	}
	return out
}

func main() {
	fmt.Println(squares(5))
}
