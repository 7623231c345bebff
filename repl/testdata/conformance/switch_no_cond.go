package main

import "fmt"

func grade(n int) string {
	switch {
	case n >= 90:
		return "A"
	case n >= 80:
		return "B"
	}
	return "C"
}

func main() {
	fmt.Println(grade(95), grade(85), grade(10))
}
