package main

import (
	"fmt"
	"time"
)

func main() {
	ch := make(chan int)
	select {
	case <-ch:
		fmt.Println("unexpected")
	case <-time.After(20 * time.Millisecond):
		fmt.Println("timeout")
	}
}
