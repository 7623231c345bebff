package main

import "fmt"

func main() {
	b := []byte("abc")
	b[0] = 'X'
	fmt.Println(string(b), b)
	s := "héllo"
	fmt.Println(s[1], len(s))
}
