package builtins

import (
	"reflect"

	"github.com/gnnrepl/gnnrepl/builtins/display"
	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
)

// Symbols holds the yaegi symbol tables a session loads: the Go standard
// library (yaegi's stdlib.Symbols) and every engine package listed in gen.go.
// Keys are "importpath/pkgname", as yaegi's Exports require. The generated
// files add the engine packages in their init functions.
var Symbols = copyExports(stdlib.Symbols)

func copyExports(src interp.Exports) interp.Exports {
	dst := make(interp.Exports, len(src)+8)
	for k, m := range src {
		c := make(map[string]reflect.Value, len(m))
		for name, v := range m {
			c[name] = v
		}
		dst[k] = c
	}
	return dst
}

// displayKey is the display package's key in Symbols.
const displayKey = "github.com/gnnrepl/gnnrepl/builtins/display/display"

// DisplaySymbols returns the display package's functions that show output
// (Publish, HTML, Show, Update, NewHandle, NewProgress, ...: the methods of
// *display.Output) bound to out, as a table for a session to load after
// Symbols (yaegi's Use replaces those names and keeps the others). The
// session's cells then show in out, as yaegi binds os.Stdout to the
// interpreter's own Options.Stdout, instead of in a process-wide
// destination.
func DisplaySymbols(out *display.Output) interp.Exports {
	v := reflect.ValueOf(out)
	m := map[string]reflect.Value{}
	for name, sym := range Symbols[displayKey] {
		if meth := v.MethodByName(name); meth.IsValid() && meth.Type() == sym.Type() {
			m[name] = meth
		}
	}
	return interp.Exports{displayKey: m}
}
