package main

import "fmt"

type T struct{ V int }

func main() {
	p := &T{1}
	p.V = 5
	(*p).V++
	fmt.Println(p.V)
}
