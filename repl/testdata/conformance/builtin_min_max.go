package main

import "fmt"

func main() {
	fmt.Println(min(3, 1, 2), max(3, 1, 2), min(2.5, 1.5), max("a", "b"))
}
