package main

import "fmt"

func fib(n int) int {
	if n < 2 {
		return n
	}
	return fib(n-1) + fib(n-2)
}

func main() {
	ch := make(chan int)
	go func() { ch <- fib(20) }()
	fmt.Println(<-ch)
}
