package main

import "fmt"

func main() {
	p := struct {
		Name string
		Age  int
	}{"bob", 30}
	fmt.Println(p.Name, p.Age)
	fmt.Printf("%+v\n", p)
}
