package main

import "fmt"

func main() {
	v := func(a int) int { return a * 3 }(4)
	fmt.Println(v)
}
