package main

import (
	"fmt"
	"math"
)

func main() {
	fmt.Println(math.Sqrt(2), math.Floor(-1.5), math.MaxInt64, math.Inf(1), math.IsNaN(math.NaN()))
}
