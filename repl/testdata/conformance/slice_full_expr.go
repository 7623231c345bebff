package main

import "fmt"

func main() {
	a := []int{1, 2, 3, 4, 5}
	b := a[1:2:3]
	b = append(b, 30)
	b = append(b, 40)
	fmt.Println(a, b, cap(b) >= 3)
}
