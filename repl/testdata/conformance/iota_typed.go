package main

import "fmt"

type Weekday int

const (
	Sunday Weekday = iota
	Monday
	Tuesday
)

func (d Weekday) String() string { return [...]string{"Sun", "Mon", "Tue"}[d] }

func main() {
	fmt.Println(Sunday, Monday, Tuesday)
	fmt.Printf("%d %v\n", Tuesday, Tuesday)
}
