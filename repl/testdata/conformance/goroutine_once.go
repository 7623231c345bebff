package main

import (
	"fmt"
	"sync"
)

func main() {
	var once sync.Once
	count := 0
	for i := 0; i < 3; i++ {
		once.Do(func() { count++ })
	}
	fmt.Println(count)
}
