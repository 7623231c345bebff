package main

import "fmt"

type myErr struct{ msg string }

func (e myErr) Error() string { return e.msg }

func kind(x any) string {
	switch v := x.(type) {
	case error:
		return "error " + v.Error()
	}
	return "?"
}

func bare(x any) string {
	switch x.(type) {
	case int:
		return "int"
	case error:
		return "error"
	}
	return "?"
}

func main() {
	fmt.Println(kind(myErr{"mine"}), bare(fmt.Errorf("e")), bare(myErr{"m"}))
}
