package main

import "fmt"

type MyBool bool

func main() {
	var m MyBool = 1 < 2
	fmt.Printf("%v %T\n", m, m)
}
