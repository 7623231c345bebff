package main

import "fmt"

type Inner struct{ V int }
type Outer struct {
	Inner
	W int
}

func main() {
	var o Outer
	o.V = 5
	o.Inner.V++
	o.W = 1
	fmt.Printf("%+v\n", o)
}
