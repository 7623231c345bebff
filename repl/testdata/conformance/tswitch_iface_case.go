package main

import "fmt"

type Stringer interface{ String() string }

type T struct{}

func (T) String() string { return "T!" }

func main() {
	for _, x := range []any{T{}, 5} {
		switch v := x.(type) {
		case Stringer:
			fmt.Println("stringer", v.String())
		default:
			fmt.Println("plain", v)
		}
	}
}
