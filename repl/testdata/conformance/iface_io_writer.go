package main

import (
	"fmt"
	"io"
	"strings"
)

type upper struct{ w io.Writer }

func (u upper) Write(p []byte) (int, error) {
	return u.w.Write([]byte(strings.ToUpper(string(p))))
}

func main() {
	var sb strings.Builder
	fmt.Fprintf(upper{&sb}, "hello %d", 5)
	fmt.Println(sb.String())
}
