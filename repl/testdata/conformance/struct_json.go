package main

import (
	"encoding/json"
	"fmt"
)

type Item struct {
	ID   int      `json:"id"`
	Tags []string `json:"tags,omitempty"`
}

func main() {
	b, _ := json.Marshal(Item{ID: 3})
	fmt.Println(string(b))
	var it Item
	err := json.Unmarshal([]byte(`{"id":7,"tags":["a"]}`), &it)
	fmt.Println(it, err)
}
