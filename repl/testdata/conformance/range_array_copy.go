package main

import "fmt"

func main() {
	a := [3]int{1, 2, 3}
	for i, v := range a {
		a[2] = 100
		if i == 2 {
			fmt.Println(v)
		}
	}
	fmt.Println(a)
}
