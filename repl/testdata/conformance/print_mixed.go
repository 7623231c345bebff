package main

import "fmt"

func main() {
	fmt.Println("stdout line")
	println("stderr line")
	fmt.Println("stdout again")
}
