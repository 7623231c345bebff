package main

import "fmt"

type T struct{ name string }

func (t T) Close() { fmt.Println("close", t.name) }

func use() {
	a := T{"a"}
	{
		b := a
		defer b.Close()
	}
	a.name = "changed"
	fmt.Println("using", a.name)
}

func main() {
	use()
}
