package repl

import (
	"fmt"
	"reflect"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
)

// Display limits: slices, arrays and maps show at most MaxElems elements,
// and a display string is cut at MaxDisplay bytes.
const (
	MaxElems   = 100
	MaxDisplay = 10000
)

// Format returns the display string of a value, as the session shows the
// value of a final expression: strings quoted, errors and fmt.Stringers by
// their method, functions by their type, long slices, arrays and maps cut
// after MaxElems elements and long strings after MaxDisplay bytes.
func Format(v reflect.Value) string {
	return truncate(format(v))
}

func format(v reflect.Value) string {
	if !v.IsValid() {
		return "<nil>"
	}
	for v.Kind() == reflect.Interface {
		if v.IsNil() {
			return "<nil>"
		}
		v = v.Elem()
	}
	if !v.CanInterface() {
		return v.String()
	}
	if v.Kind() == reflect.Pointer && v.IsNil() {
		return "(" + v.Type().String() + ")(nil)" // a nil *T's String would panic
	}
	x := v.Interface()
	switch x := x.(type) {
	case string:
		if len(x) > MaxDisplay {
			return strconv.Quote(x[:MaxDisplay]) + fmt.Sprintf("... (%d bytes)", len(x))
		}
		return strconv.Quote(x)
	case error:
		return x.Error()
	case fmt.Stringer:
		return x.String()
	}
	switch v.Kind() {
	case reflect.Func:
		if v.IsNil() {
			return "<nil>"
		}
		return v.Type().String()
	case reflect.Slice, reflect.Array:
		if v.Len() > MaxElems {
			s := fmt.Sprint(v.Slice(0, MaxElems).Interface())
			return strings.TrimSuffix(s, "]") + fmt.Sprintf(" ...] (len %d)", v.Len())
		}
	case reflect.Map:
		if v.Len() > MaxElems {
			return fmt.Sprintf("%s with %d entries", v.Type(), v.Len())
		}
	}
	return fmt.Sprint(x)
}

func truncate(s string) string {
	if len(s) > MaxDisplay {
		return s[:MaxDisplay] + fmt.Sprintf("... (%d bytes)", len(s))
	}
	return s
}

func sortStrings(s []string) { sort.Strings(s) }

func stack() []byte { return debug.Stack() }
