package main

import "fmt"

type Namer interface{ Name() string }

type base struct{ n string }

func (b base) Name() string { return b.n }

type Wrapped struct{ base }

func main() {
	var n Namer = Wrapped{base{"inner"}}
	fmt.Println(n.Name())
}
