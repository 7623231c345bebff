package main

import "fmt"

type Animal interface {
	Sound() string
}

type Dog struct{ name string }

func (d Dog) Sound() string  { return "woof" }
func (d Dog) String() string { return "Dog(" + d.name + ")" }

func main() {
	var a Animal = Dog{"rex"}
	fmt.Println(a, a.Sound())
}
