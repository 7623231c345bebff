package main

import "fmt"

func main() {
	reqs := make(chan chan int)
	go func() {
		for r := range reqs {
			r <- 42
		}
	}()
	reply := make(chan int)
	reqs <- reply
	fmt.Println(<-reply)
	close(reqs)
}
