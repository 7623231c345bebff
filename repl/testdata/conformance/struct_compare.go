package main

import "fmt"

type P struct {
	X, Y int
	S    string
}

func main() {
	a := P{1, 2, "s"}
	b := P{1, 2, "s"}
	c := P{1, 3, "s"}
	fmt.Println(a == b, a == c, a != c)
}
