package main

import (
	"fmt"
	"sync"
)

func main() {
	var wg sync.WaitGroup
	res := make([]int, 4)
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func(k int) {
			defer wg.Done()
			res[k] = k * k
		}(i)
	}
	wg.Wait()
	fmt.Println(res)
}
