package main

import "fmt"

func main() {
	m := map[string]int{"c": 3, "a": 1, "b": 2}
	fmt.Println(m)
	fmt.Printf("%v\n", map[int]bool{3: true, 1: false})
}
