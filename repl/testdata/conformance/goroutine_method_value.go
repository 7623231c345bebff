package main

import (
	"fmt"
	"sync"
)

type Acc struct {
	mu  sync.Mutex
	sum int
}

func (a *Acc) Add(v int, wg *sync.WaitGroup) {
	defer wg.Done()
	a.mu.Lock()
	a.sum += v
	a.mu.Unlock()
}

func main() {
	a := &Acc{}
	var wg sync.WaitGroup
	for i := 1; i <= 10; i++ {
		wg.Add(1)
		go a.Add(i, &wg)
	}
	wg.Wait()
	fmt.Println(a.sum)
}
