package main

import (
	"fmt"
	"math/rand"
)

func main() {
	r := rand.New(rand.NewSource(1))
	fmt.Println(r.Intn(100), r.Intn(100), r.Intn(100))
}
