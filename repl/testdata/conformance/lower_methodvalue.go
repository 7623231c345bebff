package main

import "fmt"

// yaegi bound a method value of a value receiver to the variable, not to a
// copy: changing p afterwards changed what g returned.
type P struct{ n int }

func (p P) Get() int      { return p.n }
func (p P) Add(k int) int { return p.n + k }
func (p *P) Bump()        { p.n++ }

func main() {
	p := P{1}
	g := p.Get
	add := p.Add
	bump := p.Bump
	p.n = 2
	bump()
	pp := &p
	g2 := pp.Get
	pp.n = 7
	fmt.Println(g(), add(10), p.Get(), p.n, g2())
	fs := []func() int{}
	for i := 0; i < 3; i++ {
		q := P{i}
		fs = append(fs, q.Get)
		q.n = 100
	}
	for _, f := range fs {
		fmt.Print(f(), " ")
	}
	fmt.Println()
}
