package main

import (
	"fmt"
	"strings"
)

func main() {
	counts := map[string]int{}
	for _, w := range strings.Fields("a b a c b a") {
		counts[w]++
	}
	fmt.Println(counts)
}
