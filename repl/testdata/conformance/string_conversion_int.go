package main

import "fmt"

func main() {
	r := rune(65)
	fmt.Println(string(r), string([]byte{104, 105}), string([]rune{0x4e16, 0x754c}))
}
