package main

import "fmt"

type Rect struct{ W, H float64 }

func (r *Rect) Scale(k float64) {
	r.W *= k
	r.H *= k
}

func main() {
	r := Rect{3, 4}
	r.Scale(2)
	p := &r
	p.Scale(0.5)
	fmt.Println(r)
}
