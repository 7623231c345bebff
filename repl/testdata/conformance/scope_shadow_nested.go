package main

import "fmt"

func main() {
	a := 1
	{
		a := 2
		{
			a := 3
			fmt.Println(a)
		}
		fmt.Println(a)
	}
	fmt.Println(a)
}
