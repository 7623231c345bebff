package main

import "fmt"

func main() {
	b := []byte("ab")
	b = append(b, "cd"...)
	fmt.Println(string(b))
}
