package main

import "fmt"

func main() {
	var fs []func() string
	for _, s := range []string{"a", "b", "c"} {
		fs = append(fs, func() string { return s })
	}
	for _, f := range fs {
		fmt.Print(f())
	}
	fmt.Println()
}
