package main

import "fmt"

func main() {
	v := 3.5
	if true {
		v := "text"
		fmt.Println(v + "!")
	}
	fmt.Println(v * 2)
}
