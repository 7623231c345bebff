package main

import "fmt"

func main() {
	s := "aé"
	for i := 0; i < len(s); i++ {
		fmt.Printf("%x ", s[i])
	}
	fmt.Println()
}
