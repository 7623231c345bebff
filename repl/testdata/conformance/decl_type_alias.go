package main

import "fmt"

type MyInt int
type Alias = int

func main() {
	var a MyInt = 3
	var b Alias = 4
	fmt.Printf("%T %T %v\n", a, b, int(a)+b)
}
