package main

import "fmt"

func main() {
	xs := []any{1, "a", 2.5, nil, []int{1}}
	for _, x := range xs {
		fmt.Printf("%v:%T ", x, x)
	}
	fmt.Println()
}
