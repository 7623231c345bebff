package main

import "fmt"

func main() {
	type point struct{ x, y int }
	p := point{1, 2}
	fmt.Println(p, p.x+p.y)
}
