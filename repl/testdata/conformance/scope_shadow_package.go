package main

import "fmt"

var g = "global"

func show() { fmt.Println(g) }

func main() {
	g := "local"
	fmt.Println(g)
	show()
}
