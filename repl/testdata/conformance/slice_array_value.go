package main

import "fmt"

func mod(a [3]int) { a[0] = 99 }

func main() {
	a := [3]int{1, 2, 3}
	b := a
	b[1] = 0
	mod(a)
	fmt.Println(a, b, a == [3]int{1, 2, 3})
}
