package main

import "fmt"

func main() {
	done := make(chan struct{})
	data := 0
	go func() {
		data = 17
		close(done)
	}()
	<-done
	fmt.Println(data)
}
