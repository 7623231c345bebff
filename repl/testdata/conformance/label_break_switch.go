package main

import "fmt"

func main() {
	n := 0
	for i := 0; i < 10; i++ {
		switch {
		case i == 3:
			break
		case i > 5:
			n += 100
		default:
			n++
		}
	}
	fmt.Println(n)
}
