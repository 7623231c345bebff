package main

import (
	"context"
	"fmt"
)

func main() {
	ctx, cancel := context.WithCancel(context.Background())
	out := make(chan int)
	go func() {
		i := 0
		for {
			select {
			case <-ctx.Done():
				close(out)
				return
			case out <- i:
				i++
			}
		}
	}()
	for v := range out {
		if v == 4 {
			cancel()
			break
		}
	}
	fmt.Println("stopped", ctx.Err())
}
