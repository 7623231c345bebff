package main

import "fmt"

func main() {
	a, b := 0b1100, 0b1010
	fmt.Println(a&b, a|b, a^b, a&^b, a<<2, a>>1, ^a)
}
