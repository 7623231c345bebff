package main

import "fmt"

type Rect struct{ W, H float64 }

func (r Rect) Area() float64 { return r.W * r.H }

func (r Rect) Scale(k float64) { r.W *= k }

func main() {
	r := Rect{3, 4}
	r.Scale(10)
	fmt.Println(r.Area(), r.W)
}
