package main

import "fmt"

func main() {
	a := make(chan int, 1)
	b := make(chan string, 1)
	b <- "bee"
	select {
	case v := <-a:
		fmt.Println("a", v)
	case s := <-b:
		fmt.Println("b", s)
	}
}
