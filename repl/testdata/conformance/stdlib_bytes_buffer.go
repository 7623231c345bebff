package main

import (
	"bytes"
	"fmt"
)

func main() {
	var b bytes.Buffer
	b.WriteString("hello ")
	b.Write([]byte("world"))
	fmt.Println(b.String(), b.Len())
}
