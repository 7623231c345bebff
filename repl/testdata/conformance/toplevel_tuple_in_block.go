package main

import (
	"fmt"
	"strconv"
)

func main() {
	total := 0
	for _, s := range []string{"1", "x", "3"} {
		n, err := strconv.Atoi(s)
		if err != nil {
			continue
		}
		total += n
	}
	fmt.Println(total)
}
