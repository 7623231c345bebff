package main

import "fmt"

func main() {
	c := 0
	for range 7 {
		c++
	}
	fmt.Println(c)
}
