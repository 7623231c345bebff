package main

import "fmt"

func clamp(v, lo, hi float64) float64 { return max(lo, min(v, hi)) }

func main() {
	fmt.Println(clamp(5, 0, 1), clamp(-2, 0, 1), clamp(0.5, 0, 1))
}
