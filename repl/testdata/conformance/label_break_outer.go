package main

import "fmt"

func main() {
	found := -1
outer:
	for i := 0; i < 5; i++ {
		for j := 0; j < 5; j++ {
			if i*j == 6 {
				found = i*10 + j
				break outer
			}
		}
	}
	fmt.Println(found)
}
