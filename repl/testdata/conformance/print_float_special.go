package main

import "math"

func main() {
	println(math.Inf(1), math.NaN(), 1e21, 1e-7, int8(-5), uint(7))
}
