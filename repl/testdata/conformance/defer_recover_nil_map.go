package main

import "fmt"

func write() (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = "panicked"
		}
	}()
	var m map[string]int
	m["a"] = 1
	return "ok"
}

func main() {
	fmt.Println(write())
}
