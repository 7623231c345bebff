package main

import "fmt"

func produce(out chan<- int) {
	for i := 0; i < 3; i++ {
		out <- i
	}
	close(out)
}

func main() {
	ch := make(chan int)
	go produce(ch)
	var got []int
	for v := range ch {
		got = append(got, v)
	}
	fmt.Println(got)
}
