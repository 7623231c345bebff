package main

import "fmt"

type K struct{ X, Y int }

func main() {
	m := map[K]string{{1, 2}: "a"}
	m[K{3, 4}] = "b"
	fmt.Println(m[K{1, 2}], m[K{3, 4}], len(m))
}
