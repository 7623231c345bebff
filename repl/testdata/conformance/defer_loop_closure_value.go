package main

import "fmt"

func f() (out []int) {
	for _, v := range []int{1, 2, 3} {
		defer func() { out = append(out, v) }()
	}
	return nil
}

func main() {
	fmt.Println(f())
}
