package main

import "fmt"

func main() {
	a := [...]string{2: "c", 0: "a"}
	fmt.Println(len(a), a)
	s := []int{5: 1}
	fmt.Println(len(s), s)
}
