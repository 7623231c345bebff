package main

import "fmt"

func drain(ch chan int) int {
	n := 0
L:
	for {
		select {
		case _, ok := <-ch:
			if !ok {
				break L
			}
			n++
		}
	}
	return n
}

func main() {
	ch := make(chan int, 3)
	ch <- 1
	ch <- 2
	close(ch)
	fmt.Println(drain(ch))
}
