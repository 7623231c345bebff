package main

import "fmt"

func f() {
	for i := 0; i < 3; i++ {
		defer fmt.Println("deferred", i)
	}
	fmt.Println("body")
}

func main() {
	f()
}
