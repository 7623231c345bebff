package main

import "fmt"

func main() {
	for _, c := range "aex" {
		switch c {
		case 'a', 'e', 'i':
			fmt.Println(string(c), "vowel")
		default:
			fmt.Println(string(c), "consonant")
		}
	}
}
