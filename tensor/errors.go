package tensor

import (
	"errors"
	"fmt"
)

// Error is the value every tensor op panics with on misuse. Op names the op
// (as in "MatMul"), Msg says what is wrong, with the shapes involved.
type Error struct {
	Op  string
	Msg string
}

func (e *Error) Error() string { return "tensor." + e.Op + ": " + e.Msg }

// ErrShape, ErrDType and ErrIndex classify Errors for errors.Is.
var (
	ErrShape  = errors.New("shape mismatch")
	ErrDType  = errors.New("dtype mismatch")
	ErrIndex  = errors.New("index out of range")
	ErrDevice = errors.New("device mismatch")
)

// kindError lets errors.Is(err, ErrShape) and errors.As(err, **Error)
// work on the panic value.
type kindError struct {
	err  *Error
	kind error
}

func (e *kindError) Error() string   { return e.err.Error() }
func (e *kindError) Unwrap() []error { return []error{e.kind, e.err} }

func panicf(kind error, op, format string, args ...any) {
	panic(&kindError{&Error{Op: op, Msg: fmt.Sprintf(format, args...)}, kind})
}

// Catch runs f and turns a panic raised by a tensor op (or any other panic)
// into an error, so that callers at an API boundary can return it.
func Catch(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			switch v := r.(type) {
			case error:
				err = v
			default:
				err = fmt.Errorf("panic: %v", v)
			}
		}
	}()
	f()
	return nil
}
