package main

import "fmt"

func main() {
	s := []int{1, 2, 3, 4, 5, 6}
	out := s[:0]
	for _, v := range s {
		if v%2 == 0 {
			out = append(out, v)
		}
	}
	fmt.Println(out)
}
