package main

import "fmt"

func inc(p *int) { *p++ }

func main() {
	x := 1
	p := &x
	inc(p)
	inc(&x)
	fmt.Println(x, *p)
}
