package main

import "fmt"

func main() {
	m := map[string][]int{}
	m["a"] = append(m["a"], 1)
	m["a"] = append(m["a"], 2)
	m["b"] = append(m["b"], 3)
	fmt.Println(m)
}
