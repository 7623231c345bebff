package main

import (
	"fmt"
	"strings"
)

func main() {
	fmt.Println(strings.ReplaceAll("a-b-c", "-", "+"), strings.Repeat("ab", 3), strings.TrimSpace("  x "))
	r := strings.NewReplacer("a", "1", "b", "2")
	fmt.Println(r.Replace("abc"))
}
