package main

import "fmt"

type Flag uint8

const (
	Read Flag = 1 << iota
	Write
	Exec
)

func main() {
	p := Read | Exec
	fmt.Println(p, p&Write != 0, p&Exec != 0)
	fmt.Printf("%03b\n", p)
}
