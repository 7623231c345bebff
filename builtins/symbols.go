package builtins

import (
	"reflect"

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
