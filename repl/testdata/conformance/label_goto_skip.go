package main

import "fmt"

func f(x int) string {
	if x < 0 {
		goto negative
	}
	return "non-negative"
negative:
	return "negative"
}

func main() {
	fmt.Println(f(1), f(-1))
}
