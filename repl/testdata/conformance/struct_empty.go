package main

import "fmt"

func main() {
	set := map[string]struct{}{}
	set["a"] = struct{}{}
	set["b"] = struct{}{}
	_, ok := set["a"]
	fmt.Println(len(set), ok)
}
