package main

import "fmt"

func f() {
	x := 1
	defer fmt.Println("deferred x =", x)
	x = 2
	fmt.Println("x =", x)
}

func main() {
	f()
}
