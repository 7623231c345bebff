package main

import "fmt"

func main() {
	s := fmt.Sprintf("%-6s|%6.2f|%+d", "ab", 3.14159, 5)
	fmt.Println(s, len(s))
}
