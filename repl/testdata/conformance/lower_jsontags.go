package main

import (
	"encoding/json"
	"fmt"
)

// yaegi's struct types export every field, so encoding/json wrote
// unexported fields ("Xscore").
type rec struct {
	Name  string `json:"name"`
	score int
	Age   int
	note  string `xml:"n"`
}

func main() {
	b, err := json.Marshal(rec{"a", 3, 4, "n"})
	fmt.Println(string(b), err)
	var r rec
	err = json.Unmarshal([]byte(`{"name":"b","Age":5,"score":9}`), &r)
	fmt.Println(r.Name, r.Age, r.score, err)
}
