package main

import "fmt"

type Logger struct{ prefix string }

func (l *Logger) Log(s string) { fmt.Println(l.prefix + s) }

type Service struct {
	*Logger
	n int
}

func main() {
	s := Service{&Logger{"[svc] "}, 3}
	s.Log("started")
}
