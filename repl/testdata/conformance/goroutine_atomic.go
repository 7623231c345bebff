package main

import (
	"fmt"
	"sync"
	"sync/atomic"
)

func main() {
	var n int64
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			atomic.AddInt64(&n, 2)
		}()
	}
	wg.Wait()
	fmt.Println(atomic.LoadInt64(&n))
}
