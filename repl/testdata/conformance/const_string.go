package main

import "fmt"

const greeting = "hello, " + "world"

func main() {
	fmt.Println(greeting, len(greeting))
}
