package main

import (
	"errors"
	"fmt"
)

var ErrX = errors.New("x failed")

func f() (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = r.(error)
		}
	}()
	panic(ErrX)
}

func main() {
	err := f()
	fmt.Println(err, errors.Is(err, ErrX))
}
