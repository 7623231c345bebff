package main

import (
	"fmt"
	"time"
)

func main() {
	d := 90 * time.Second
	fmt.Println(d, d.Minutes(), time.Duration(1500)*time.Millisecond)
}
