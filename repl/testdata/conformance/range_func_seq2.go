package main

import "fmt"

func pairs(yield func(string, int) bool) {
	_ = yield("a", 1) && yield("b", 2) && yield("c", 3)
}

func main() {
	for k, v := range pairs {
		fmt.Print(k, "=", v, " ")
	}
	fmt.Println()
}
