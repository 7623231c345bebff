package main

import "fmt"

func main() {
	var a []int
	b := []int{}
	fmt.Println(a == nil, b == nil, len(a), len(b))
	a = append(a, b...)
	fmt.Println(a == nil)
}
