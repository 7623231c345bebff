package main

import (
	"fmt"
	"reflect"
)

type T struct {
	Name string `json:"name"`
}

func main() {
	f, _ := reflect.TypeOf(T{}).FieldByName("Name")
	fmt.Println(f.Tag.Get("json"))
}
