package main

import "fmt"

func f() {
	r := recover()
	fmt.Println("recover outside panic:", r)
}

func main() {
	f()
}
