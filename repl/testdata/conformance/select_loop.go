package main

import "fmt"

func main() {
	nums := make(chan int)
	quit := make(chan bool)
	go func() {
		for i := 0; i < 3; i++ {
			nums <- i
		}
		quit <- true
	}()
	sum := 0
	for done := false; !done; {
		select {
		case n := <-nums:
			sum += n
		case <-quit:
			done = true
		}
	}
	fmt.Println(sum)
}
