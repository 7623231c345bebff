package main

import (
	"fmt"
	"strings"
)

func main() {
	s := "Hello, World"
	fmt.Println(len(s), strings.ToUpper(s), strings.Contains(s, "World"), s[0:5])
}
