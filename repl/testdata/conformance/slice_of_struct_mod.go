package main

import "fmt"

type P struct{ N int }

func main() {
	ps := []P{{1}, {2}}
	for _, p := range ps {
		p.N *= 10
	}
	fmt.Println(ps)
	for i := range ps {
		ps[i].N *= 10
	}
	fmt.Println(ps)
}
