package builtins

import (
	"reflect"
	"strings"

	"github.com/gnnrepl/gnnrepl/builtins/display"
	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
	yaegisyscall "github.com/traefik/yaegi/stdlib/syscall"
	"github.com/traefik/yaegi/stdlib/unrestricted"
	yaegiunsafe "github.com/traefik/yaegi/stdlib/unsafe"
)

// Symbols holds the yaegi symbol tables a session loads: the whole Go
// standard library yaegi carries symbols for, and every engine package
// listed in gen.go. Keys are "importpath/pkgname", as yaegi's Exports
// require. The generated files add the engine packages in their init
// functions.
//
// The standard library is yaegi's stdlib.Symbols plus the three tables
// yaegi keeps apart: stdlib/unsafe (package unsafe and the conversion hook
// unsafe.Pointer conversions need), stdlib/syscall, and
// stdlib/unrestricted (os/exec, and the syscall functions that start,
// signal or end processes: ForkExec, Kill, Exec, ...). What ends the
// process stays restricted, so that a cell cannot end a session (the
// Jupyter kernel, the shell): os.Exit, syscall.Exit and log.Fatal panic
// with "os.Exit(code)" (gnnrepl run turns that into its exit status),
// os.FindProcess refuses the session's own process, and log.New returns
// yaegi's logger whose Fatal panics; see unrestrictedKept.
var Symbols = stdlibSymbols()

// unrestrictedKept names the symbols of yaegi's stdlib/unrestricted that
// the session leaves in their restricted form (stdlib.Symbols'), by
// package key.
var unrestrictedKept = map[string][]string{
	"os/os":   {"Exit", "FindProcess"},
	"log/log": {"Fatal", "Fatalf", "Fatalln", "New", "Logger"},
}

func stdlibSymbols() interp.Exports {
	un := copyExports(unrestricted.Symbols)
	for k, names := range unrestrictedKept {
		for _, n := range names {
			delete(un[k], n)
		}
	}
	// syscall.Exit ends the process as os.Exit does: it gets the
	// restricted os.Exit, which has its type, func(int).
	un["syscall/syscall"]["Exit"] = stdlib.Symbols["os/os"]["Exit"]
	x := copyExports(stdlib.Symbols)
	for _, t := range []interp.Exports{yaegiunsafe.Symbols, yaegisyscall.Symbols, un} {
		mergeExports(x, t)
	}
	return x
}

// mergeExports adds src's symbols to dst, package by package; a name in
// both takes src's value. The tables' entries for themselves (importing
// yaegi's github.com/traefik/yaegi/stdlib/unsafe and the like from a
// cell) are left out: they are not the standard library, and their
// package names would make "unsafe" and "syscall" ambiguous.
func mergeExports(dst, src interp.Exports) {
	for k, m := range src {
		if strings.HasPrefix(k, "github.com/traefik/yaegi/stdlib/") {
			continue
		}
		if dst[k] == nil {
			dst[k] = make(map[string]reflect.Value, len(m))
		}
		for name, v := range m {
			dst[k][name] = v
		}
	}
}

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
