package main

import "fmt"

func at(s []int, i int) (v int, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return s[i], true
}

func main() {
	fmt.Println(at([]int{1, 2}, 1))
	fmt.Println(at([]int{1, 2}, 5))
}
