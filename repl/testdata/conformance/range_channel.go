package main

import "fmt"

func main() {
	ch := make(chan int, 5)
	for i := 0; i < 5; i++ {
		ch <- i * 3
	}
	close(ch)
	for v := range ch {
		fmt.Print(v, " ")
	}
	fmt.Println()
}
