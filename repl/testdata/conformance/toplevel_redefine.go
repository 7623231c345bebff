package main

import "fmt"

func main() {
	a := 1
	a, b := 2, 3
	fmt.Println(a, b)
}
