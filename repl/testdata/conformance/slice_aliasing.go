package main

import "fmt"

func main() {
	a := []int{1, 2, 3, 4, 5}
	b := a[1:3]
	b[0] = 20
	fmt.Println(a, b, len(b), cap(b))
}
