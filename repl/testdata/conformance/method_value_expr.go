package main

import "fmt"

type N int

func (n N) Add(m int) int { return int(n) + m }

func main() {
	var n N = 5
	f := n.Add
	g := N.Add
	fmt.Println(f(1), g(n, 2))
}
