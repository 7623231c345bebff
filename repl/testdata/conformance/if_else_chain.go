package main

import "fmt"

func main() {
	for _, n := range []int{-1, 0, 5} {
		if n < 0 {
			fmt.Println("neg")
		} else if n == 0 {
			fmt.Println("zero")
		} else {
			fmt.Println("pos")
		}
	}
}
