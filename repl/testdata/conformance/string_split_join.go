package main

import (
	"fmt"
	"strings"
)

func main() {
	parts := strings.Split("a,b,,c", ",")
	fmt.Println(len(parts), parts)
	fmt.Println(strings.Join(parts, "|"))
	fmt.Println(strings.Fields("  x  y z "))
}
