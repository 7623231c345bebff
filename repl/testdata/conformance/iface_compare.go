package main

import "fmt"

func main() {
	var a, b any = 3, 3
	var c any = "3"
	fmt.Println(a == b, a == c)
}
