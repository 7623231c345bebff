package main

import "fmt"

func describe(x any) string {
	switch v := x.(type) {
	case int:
		return fmt.Sprint("int ", v+1)
	case []int:
		return fmt.Sprint("slice ", len(v))
	case error:
		return "error " + v.Error()
	}
	return "?"
}

func main() {
	fmt.Println(describe(41), describe([]int{1, 2}), describe(fmt.Errorf("e")))
}
