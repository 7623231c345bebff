package main

import (
	"errors"
	"fmt"
)

type NotFound struct{ Key string }

func (e *NotFound) Error() string { return "not found: " + e.Key }

func lookup(k string) error { return &NotFound{k} }

func main() {
	err := lookup("x")
	var nf *NotFound
	fmt.Println(err, errors.As(err, &nf), nf.Key)
}
