package main

import "fmt"

func main() {
	var f func(int) int
	fmt.Println(f == nil)
	f = func(x int) int { return x * x }
	fmt.Println(f(7))
}
