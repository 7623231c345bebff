package main

import (
	"fmt"
	"strconv"
)

func main() {
	n, err := strconv.Atoi("123")
	fmt.Println(n+1, err)
	_, err = strconv.Atoi("x")
	fmt.Println(err)
	fmt.Println(strconv.Itoa(45)+"!", strconv.Quote("a\"b"), strconv.FormatFloat(1.5, 'f', 2, 64))
}
