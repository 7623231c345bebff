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
func cloneNode(n ast.Node) ast.Node {
	if n == nil {
		return nil
	}
	return cloneValue(reflect.ValueOf(n)).Interface().(ast.Node)
}

func cloneValue(v reflect.Value) reflect.Value {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || v.Type() == astObjectType || v.Type() == astScopeType || v.Elem().Kind() != reflect.Struct {
			return v
		}
		c := reflect.New(v.Elem().Type())
		c.Elem().Set(v.Elem())
		for i := 0; i < c.Elem().NumField(); i++ {
			if f := c.Elem().Field(i); f.CanSet() {
				f.Set(cloneValue(f))
			}
		}
		return c
	case reflect.Interface:
		if v.IsNil() {
			return v
		}
		c := reflect.New(v.Type()).Elem()
		c.Set(cloneValue(v.Elem()))
		return c
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		c := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := 0; i < v.Len(); i++ {
			c.Index(i).Set(cloneValue(v.Index(i)))
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
