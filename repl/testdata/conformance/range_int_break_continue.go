package main

import "fmt"

func main() {
	s := 0
	for i := range 10 {
		if i == 7 {
			break
		}
		if i%2 == 0 {
			continue
		}
		s += i
	}
	fmt.Println(s)
}
