package main

import "fmt"

func inner() {
	defer func() {
		r := recover()
		panic(fmt.Sprint("again: ", r))
	}()
	panic("first")
}

func outer() (s string) {
	defer func() { s = fmt.Sprint(recover()) }()
	inner()
	return "unreachable"
}

func main() {
	fmt.Println(outer())
}
