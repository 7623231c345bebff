package repl

import (
	"fmt"
	"reflect"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"

	"github.com/gnnrepl/gnnrepl/builtins/display"
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

// MIMEBundle is the result as a notebook shows it (execute_result's data),
// or nil when there is no value: "text/plain" is Text, and a single value
// adds the richer MIME types display.Bundle finds for it (HTML tables for
// graphs and tensors; the MIMEBundle, HTML, Markdown, SVG and PNG methods
// of compiled types). The methods of a nil pointer are not called, and a
// value whose rendering panics shows as text only.
func (r Result) MIMEBundle() map[string]any {
	if r.Text == "" && len(r.Values) == 0 {
		return nil
	}
	b := map[string]any{}
	if len(r.Values) == 1 {
		for k, v := range richBundle(r.Values[0]) {
			b[k] = v
		}
	}
	b["text/plain"] = r.Text
	return b
}

// richBundle is display.Bundle of a value, without its text/plain; nil for
// an invalid or unexported value, a nil pointer, or when rendering panics.
func richBundle(v reflect.Value) (out map[string]any) {
	defer func() {
		if recover() != nil {
			out = nil
		}
	}()
	if !v.IsValid() || !v.CanInterface() {
		return nil
	}
	for v.Kind() == reflect.Interface && !v.IsNil() {
		v = v.Elem()
	}
	if v.Kind() == reflect.Pointer && v.IsNil() {
		return nil // its methods are not called: the session's text says (T)(nil)
	}
	out = display.Bundle(v.Interface())
	delete(out, "text/plain")
	return out
}

func truncate(s string) string {
	if len(s) > MaxDisplay {
		return s[:MaxDisplay] + fmt.Sprintf("... (%d bytes)", len(s))
	}
	return s
}

func sortStrings(s []string) { sort.Strings(s) }

func stack() []byte { return debug.Stack() }
