package main

import "fmt"

func main() {
	x := 1
	inc := func() { x++ }
	inc()
	inc()
	fmt.Println(x)
}
