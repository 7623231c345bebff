package main

import "fmt"

type Op func(int, int) int

func (o Op) Apply(a, b int) int { return o(a, b) }

func main() {
	add := Op(func(a, b int) int { return a + b })
	fmt.Println(add.Apply(2, 3))
}
