package main

import "fmt"

type P struct {
	X, Y int
	S    string
}

func main() {
	var i int
	var f float64
	var s string
	var b bool
	var p *int
	var sl []int
	var m map[string]int
	var st P
	fmt.Println(i, f, s == "", b, p == nil, sl == nil, m == nil, st)
	fmt.Printf("%q %v %d\n", s, st, len(m))
}
