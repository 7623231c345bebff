package main

import "fmt"

func main() {
	var x any = 3.5
	switch v := x.(type) {
	case float64:
		fmt.Println("float", v*2)
	case int:
		fmt.Println("int", v)
	}
}
