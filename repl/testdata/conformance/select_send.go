package main

import "fmt"

func main() {
	ch := make(chan int, 1)
	for i := 0; i < 3; i++ {
		select {
		case ch <- i:
			fmt.Println("sent", i)
		default:
			fmt.Println("full at", i)
		}
	}
}
