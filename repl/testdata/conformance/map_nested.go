package main

import "fmt"

func main() {
	m := map[string]map[string]int{}
	if m["x"] == nil {
		m["x"] = map[string]int{}
	}
	m["x"]["y"] = 5
	fmt.Println(m["x"]["y"], len(m["z"]))
}
