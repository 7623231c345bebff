package main

import (
	"fmt"
	"iter"
)

func count(n int) iter.Seq[int] {
	return func(yield func(int) bool) {
		for i := 0; i < n; i++ {
			if !yield(i) {
				fmt.Println("stopped at", i)
				return
			}
		}
	}
}

func first(pred func(int) bool) (int, bool) {
	for x := range count(100) {
		if pred(x) {
			return x, true
		}
	}
	return 0, false
}

func grid() (cells int) {
rows:
	for i := range count(5) {
		for j := range count(5) {
			if j > i {
				continue rows
			}
			if i == 4 {
				break rows
			}
			cells++
		}
	}
	return
}

func main() {
	fmt.Println(first(func(x int) bool { return x*x > 50 }))
	fmt.Println(first(func(x int) bool { return x < 0 }))
	fmt.Println(grid())
	var fs []func() int
	for x := range count(3) {
		fs = append(fs, func() int { return x * 10 })
	}
	for _, f := range fs {
		fmt.Print(f(), " ")
	}
	fmt.Println()
}
