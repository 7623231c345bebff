package main

import "fmt"

func kind(x any) string {
	switch x.(type) {
	case int:
		return "int"
	case string:
		return "string"
	case nil:
		return "nil"
	default:
		return "other"
	}
}

func main() {
	fmt.Println(kind(1), kind("s"), kind(nil), kind(2.0))
}
