package main

import "fmt"

func fill(m map[string]int) { m["added"] = 1 }

func main() {
	m := map[string]int{}
	fill(m)
	fmt.Println(m)
}
