package main

import "fmt"

// yaegi matched no case of switch x := 5; x*2 {...}.
func main() {
	switch x := 5; x * 2 {
	case 10:
		fmt.Println("ten")
	default:
		fmt.Println("not ten")
	}
	for i := 0; i < 3; i++ {
		switch y := i + 1; y {
		case 1, 3:
			fmt.Println("odd", y)
		default:
			fmt.Println("even", y)
		}
	}
}
