package repl

import (
	"go/ast"
	"go/token"
	"reflect"
)

var (
	astObjectType = reflect.TypeOf((*ast.Object)(nil))
	astScopeType  = reflect.TypeOf((*ast.Scope)(nil))
)

// cloneNode returns a deep copy of the syntax tree n (positions kept; the
// parser's deprecated Obj and Scope links are shared, not copied), for a
// rewrite that writes an expression or a type twice.
func cloneNode[T ast.Node](n T) T {
	return cloneValue(reflect.ValueOf(n), true).Interface().(T)
}

// detachNode is cloneNode without the Obj and Scope links (nil in the
// copy), for a tree the session keeps past its cell: a kept link would
// keep the whole cell's syntax alive.
func detachNode[T ast.Node](n T) T {
	return cloneValue(reflect.ValueOf(n), false).Interface().(T)
}

func cloneValue(v reflect.Value, keepObjects bool) reflect.Value {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || v.Elem().Kind() != reflect.Struct {
			return v
		}
		if v.Type() == astObjectType || v.Type() == astScopeType {
			if keepObjects {
				return v
			}
			return reflect.Zero(v.Type())
		}
		c := reflect.New(v.Elem().Type())
		c.Elem().Set(cloneValue(v.Elem(), keepObjects))
		return c
	case reflect.Struct:
		c := reflect.New(v.Type()).Elem()
		for i := 0; i < v.NumField(); i++ {
			if c.Field(i).CanSet() {
				c.Field(i).Set(cloneValue(v.Field(i), keepObjects))
			}
		}
		return c
	case reflect.Interface:
		if v.IsNil() {
			return v
		}
		c := reflect.New(v.Type()).Elem()
		c.Set(cloneValue(v.Elem(), keepObjects))
		return c
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		c := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := 0; i < v.Len(); i++ {
			c.Index(i).Set(cloneValue(v.Index(i), keepObjects))
		}
		return c
	}
	return v
}

var posType = reflect.TypeOf(token.NoPos)

// cloneAt is cloneNode with every position set to pos, for syntax parsed
// in another file set (a declaration the session recorded as text).
func cloneAt(n ast.Node, pos token.Pos) ast.Node {
	c := cloneNode(n)
	ast.Inspect(c, func(x ast.Node) bool {
		if x == nil {
			return false
		}
		v := reflect.ValueOf(x)
		if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
			return true
		}
		v = v.Elem()
		for i := 0; i < v.NumField(); i++ {
			if f := v.Field(i); f.Type() == posType && f.CanSet() && f.Int() != 0 {
				f.SetInt(int64(pos))
			}
		}
		return true
	})
	return c
}
