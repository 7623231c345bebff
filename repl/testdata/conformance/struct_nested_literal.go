package main

import "fmt"

type Addr struct{ City string }
type Person struct {
	Name string
	Addr Addr
	Tags []string
}

func main() {
	p := Person{Name: "x", Addr: Addr{"Paris"}, Tags: []string{"a"}}
	q := p
	q.Addr.City = "Rome"
	q.Tags[0] = "b"
	fmt.Println(p.Addr.City, q.Addr.City, p.Tags[0])
}
