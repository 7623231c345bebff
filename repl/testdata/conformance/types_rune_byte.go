package main

import "fmt"

func main() {
	var r rune = 'é'
	var b byte = 'A'
	fmt.Println(r, b, string(r), string(b))
	fmt.Printf("%c %c %U\n", r, b, r)
}
