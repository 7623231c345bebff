package main

import "fmt"

func main() {
	x := "session"
	{
		x := 42
		x++
		fmt.Println(x)
	}
	fmt.Println(x)
}
