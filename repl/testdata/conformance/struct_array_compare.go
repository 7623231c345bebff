package main

import "fmt"

type Key struct {
	A [2]int
	B string
}

func main() {
	fmt.Println(Key{[2]int{1, 2}, "x"} == Key{[2]int{1, 2}, "x"}, Key{} == Key{B: ""})
}
