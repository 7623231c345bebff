package main

import (
	"fmt"
	"math"
)

type Shape interface{ Area() float64 }

type Sq struct{ s float64 }
type Circle struct{ r float64 }

func (s Sq) Area() float64     { return s.s * s.s }
func (c Circle) Area() float64 { return math.Pi * c.r * c.r }

func main() {
	shapes := []Shape{Sq{2}, Circle{1}}
	total := 0.0
	for _, s := range shapes {
		total += s.Area()
	}
	fmt.Printf("%.4f\n", total)
}
