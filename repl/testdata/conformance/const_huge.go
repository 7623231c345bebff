package main

import "fmt"

const huge = 1 << 100
const small = huge >> 98

func main() {
	fmt.Println(small)
}
