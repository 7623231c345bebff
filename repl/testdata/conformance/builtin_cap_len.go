package main

import "fmt"

func main() {
	s := make([]int, 2, 10)
	a := [5]int{}
	fmt.Println(len(s), cap(s), len(a), cap(a), len("four"))
}
