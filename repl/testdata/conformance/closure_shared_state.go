package main

import "fmt"

func pair() (func(), func() int) {
	n := 0
	return func() { n += 5 }, func() int { return n }
}

func main() {
	add, get := pair()
	add()
	add()
	fmt.Println(get())
}
