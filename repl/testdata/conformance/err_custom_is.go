package main

import (
	"errors"
	"fmt"
)

type codeErr struct{ code int }

func (e codeErr) Error() string { return fmt.Sprint("code ", e.code) }

func main() {
	var err error = fmt.Errorf("wrapped: %w", codeErr{404})
	var ce codeErr
	if errors.As(err, &ce) {
		fmt.Println("found", ce.code)
	}
	fmt.Println(err)
}
