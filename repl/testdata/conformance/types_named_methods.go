package main

import "fmt"

type Celsius float64

func (c Celsius) F() float64 { return float64(c)*9/5 + 32 }

func main() {
	var t Celsius = 100
	fmt.Println(t.F())
}
