package main

import "fmt"

func reset(m map[int]bool) { clear(m) }

func main() {
	m := map[int]bool{1: true}
	reset(m)
	fmt.Println(len(m))
}
