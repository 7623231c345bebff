package main

import "fmt"

func main() {
	cmd := "stop"
	switch cmd {
	case "go":
		fmt.Println("going")
	case "stop":
		fmt.Println("stopping")
	}
}
