package main

import "fmt"

func two() (int, string) { return 7, "seven" }

func main() {
	_, s := two()
	n, _ := two()
	fmt.Println(n, s)
}
