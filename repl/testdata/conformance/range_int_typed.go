package main

import "fmt"

func main() {
	var n uint8 = 3
	for i := range n {
		fmt.Printf("%T %v\n", i, i)
	}
}
