package main

import (
	"errors"
	"fmt"
)

func f(fail bool) (int, error) {
	if fail {
		return 0, errors.New("failed")
	}
	return 1, nil
}

func main() {
	n, err := f(false)
	if true {
		n, err := f(true)
		fmt.Println(n, err)
	}
	fmt.Println(n, err)
}
