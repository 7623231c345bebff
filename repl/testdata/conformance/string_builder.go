package main

import (
	"fmt"
	"strings"
)

func main() {
	var sb strings.Builder
	for i := 0; i < 3; i++ {
		fmt.Fprintf(&sb, "%d;", i)
	}
	sb.WriteString("end")
	fmt.Println(sb.String(), sb.Len())
}
