package main

import "fmt"

func main() {
	ch := make(chan int)
	base := 10
	go func() { ch <- base + 1 }()
	fmt.Println(<-ch)
}
