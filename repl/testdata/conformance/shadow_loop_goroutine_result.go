package main

import "fmt"

func main() {
	results := make(chan int, 3)
	for i := 1; i <= 3; i++ {
		go func() { results <- i * 100 }()
	}
	sum := 0
	for k := 0; k < 3; k++ {
		sum += <-results
	}
	fmt.Println(sum)
}
