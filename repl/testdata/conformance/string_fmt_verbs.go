package main

import "fmt"

type T struct {
	A int
	B string
}

func main() {
	t := T{1, "x"}
	fmt.Printf("%v|%+v|%#v|%T\n", t, t, t, t)
	fmt.Printf("%5d|%-5s|%05.1f|%x|%q\n", 42, "ab", 3.14159, 255, "hi")
}
