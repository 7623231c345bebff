package main

import "fmt"

const x = 7 / 2
const y = 7 / 2.0
const z = 'a' + 1

func main() {
	fmt.Println(x, y, z, string(rune(z)))
}
