package main

import "fmt"

func main() {
	total := 0
	for i := 1; i <= 4; i++ {
		total += i
	}
	if total > 5 {
		total = -total
	}
	fmt.Println(total)
}
