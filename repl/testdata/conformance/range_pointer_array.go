package main

import "fmt"

func main() {
	a := [4]string{"p", "q", "r", "s"}
	n := 0
	for i := range &a {
		n += i
	}
	fmt.Println(n)
}
