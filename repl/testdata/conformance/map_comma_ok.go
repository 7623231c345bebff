package main

import "fmt"

func main() {
	m := map[string]int{"k": 0}
	v, ok := m["k"]
	fmt.Println(v, ok)
	v, ok = m["nope"]
	fmt.Println(v, ok)
}
