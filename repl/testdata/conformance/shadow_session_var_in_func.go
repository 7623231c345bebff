package main

import "fmt"

func main() {
	count := 3
	f := func() int {
		count := 10
		return count
	}
	fmt.Println(f(), count)
}
