package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "explicit stderr")
	fmt.Println("out")
}
