package main

import "fmt"

func main() {
	count := 0
	for i := 0; i < 4; i++ {
		for j := 0; j < i; j++ {
			count += j
		}
	}
	fmt.Println(count)
}
