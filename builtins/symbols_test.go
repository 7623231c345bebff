package builtins

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/gnnrepl/gnnrepl/builtins/display"
	"github.com/traefik/yaegi/interp"
)

// TestDisplaySymbolsBindEveryOutputMethod: every method of *display.Output
// replaces the package function of its name, with the same type, so that
// no display function in a cell bypasses the session's Output.
func TestDisplaySymbolsBindEveryOutputMethod(t *testing.T) {
	bound := DisplaySymbols(display.NewOutput(nil, nil, nil))[displayKey]
	typ := reflect.TypeFor[*display.Output]()
	if len(bound) != typ.NumMethod() {
		t.Errorf("%d names bound for %d methods of display.Output", len(bound), typ.NumMethod())
	}
	for i := range typ.NumMethod() {
		name := typ.Method(i).Name
		if _, ok := bound[name]; !ok {
			fn, inTable := Symbols[displayKey][name]
			t.Errorf("display.Output.%s is not bound (package function in the table: %v, type %v)", name, inTable, fn.Type())
		}
	}
}

// TestDisplaySymbolsInInterpreter: two interpreters with their own Output
// each show a cell's display calls in their own.
func TestDisplaySymbolsInInterpreter(t *testing.T) {
	run := func(name string) string {
		var out bytes.Buffer
		i := interp.New(interp.Options{})
		if err := i.Use(Symbols); err != nil {
			t.Fatal(err)
		}
		if err := i.Use(DisplaySymbols(display.NewOutput(nil, &out, &out))); err != nil {
			t.Fatal(err)
		}
		if _, err := i.Eval(`import "github.com/gnnrepl/gnnrepl/builtins/display"`); err != nil {
			t.Fatal(err)
		}
		src := `display.HTML("<b>` + name + `</b>")
h := display.NewHandle()
h.Show(` + "`" + name + ` again` + "`" + `)`
		if _, err := i.Eval(src); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	if a, b := run("a"), run("b"); a != "a\na again\n" || b != "b\nb again\n" {
		t.Errorf("outputs %q, %q", a, b)
	}
}
