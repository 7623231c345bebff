package main

import "fmt"

func f() int {
	i := 0
loop:
	if i < 5 {
		i++
		goto loop
	}
	return i
}

func main() {
	fmt.Println(f())
}
