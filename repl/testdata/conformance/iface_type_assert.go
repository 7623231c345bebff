package main

import "fmt"

func main() {
	var x any = "hello"
	s, ok := x.(string)
	fmt.Println(s, ok)
	n, ok := x.(int)
	fmt.Println(n, ok)
}
