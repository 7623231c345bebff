package main

import "fmt"

func main() {
	m := map[string]int{}
	m["a"] = 1
	m["b"] += 2
	m["a"]++
	fmt.Println(m["a"], m["b"], m["missing"], len(m))
}
