package main

import "fmt"

func div(a, b int) (q int, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	return a / b, nil
}

func main() {
	fmt.Println(div(6, 3))
	fmt.Println(div(1, 0))
}
