package main

import "fmt"

func main() {
	s := `line1
	"quoted" \n not escaped`
	fmt.Println(s)
}
