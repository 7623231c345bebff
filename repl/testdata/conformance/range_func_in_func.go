package main

import "fmt"

func seq(yield func(int) bool) {
	for i := 1; i <= 3; i++ {
		if !yield(i * 11) {
			return
		}
	}
}

func total() int {
	t := 0
	for v := range seq {
		t += v
	}
	return t
}

func main() {
	fmt.Println(total())
}
