package main

import "fmt"

func main() {
	x := 5
	var y = x * 2
	fmt.Println(y)
}
