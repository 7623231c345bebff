package main

import "fmt"

func counter() func() int {
	n := 0
	return func() int {
		n++
		return n
	}
}

func main() {
	c := counter()
	c()
	c()
	fmt.Println(c())
	d := counter()
	fmt.Println(d())
}
