package main

import "fmt"

func main() {
	fmt.Println(0.1+0.2, 1e21, 1e-7, float32(0.1))
	fmt.Printf("%.3f %e %g\n", 3.14159, 12345.678, 0.000012)
}
