package main

import "fmt"

func main() {
	count := 0
rows:
	for i := 0; i < 4; i++ {
		for j := 0; j < 4; j++ {
			if j > i {
				continue rows
			}
			count++
		}
	}
	fmt.Println(count)
}
