package main

import (
	"errors"
	"fmt"
)

var ErrBase = errors.New("base")

func main() {
	err := fmt.Errorf("ctx: %w", ErrBase)
	fmt.Println(err, errors.Is(err, ErrBase), errors.Unwrap(err) == ErrBase)
}
