package main

import (
	"fmt"
	"unicode/utf8"
)

func main() {
	s := "日本語"
	fmt.Println(len(s), utf8.RuneCountInString(s), []rune(s)[1], string([]rune(s)[2]))
}
