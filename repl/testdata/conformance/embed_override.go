package main

import "fmt"

type A struct{}

func (A) Hello() string  { return "A" }
func (a A) Call() string { return a.Hello() }

type B struct{ A }

func (B) Hello() string { return "B" }

func main() {
	var b B
	fmt.Println(b.Hello(), b.Call(), b.A.Hello())
}
