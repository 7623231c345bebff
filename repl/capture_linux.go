package repl

import "syscall"

func dup(fd int) (int, error) { return syscall.Dup(fd) }

func dup2(from, to int) error { return syscall.Dup3(from, to, 0) }
