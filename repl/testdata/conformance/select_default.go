package main

import "fmt"

func main() {
	ch := make(chan int)
	select {
	case v := <-ch:
		fmt.Println("got", v)
	default:
		fmt.Println("nothing ready")
	}
}
