package main

import "fmt"

func f(x any) string {
	switch v := x.(type) {
	case int, int64:
		return fmt.Sprintf("integer %v (%T)", v, v)
	default:
		return fmt.Sprintf("other %v", v)
	}
}

func main() {
	fmt.Println(f(1))
	fmt.Println(f(int64(2)))
	fmt.Println(f("x"))
}
