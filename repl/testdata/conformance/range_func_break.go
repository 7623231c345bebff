package main

import "fmt"

func evens(yield func(int) bool) {
	for i := 0; ; i += 2 {
		if !yield(i) {
			return
		}
	}
}

func main() {
	for x := range evens {
		if x > 6 {
			break
		}
		fmt.Print(x, " ")
	}
	fmt.Println()
}
