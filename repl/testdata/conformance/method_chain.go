package main

import (
	"fmt"
	"strings"
)

type Builder struct{ parts []string }

func (b *Builder) Add(s string) *Builder {
	b.parts = append(b.parts, s)
	return b
}

func (b *Builder) String() string { return strings.Join(b.parts, "-") }

func main() {
	b := &Builder{}
	b.Add("x").Add("y").Add("z")
	fmt.Println(b.String())
}
