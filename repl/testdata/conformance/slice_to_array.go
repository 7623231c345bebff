package main

import "fmt"

func main() {
	s := []int{1, 2, 3, 4}
	a := [4]int(s)
	p := (*[2]int)(s)
	p[0] = 100
	fmt.Println(a, s)
}
