package main

import "fmt"

func main() {
	fmt.Println("abc" < "abd", "Z" < "a", "" < "a", "go" == "g"+"o")
}
