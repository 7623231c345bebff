package main

import "fmt"

func main() {
	p := new(int)
	*p = 5
	q := new([3]string)
	q[1] = "mid"
	fmt.Println(*p, *q, len(q))
}
