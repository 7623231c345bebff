package main

import "fmt"

func main() {
	f := 3.99
	i := int(f)
	n := -3.99
	fmt.Println(i, int(n), float64(i)/2, uint8(300&0xff))
}
