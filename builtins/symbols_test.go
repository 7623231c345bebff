package builtins

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/gnnrepl/gnnrepl/builtins/display"
	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
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

// TestStdlibSymbols: the session's standard library includes yaegi's
// unsafe, syscall and unrestricted tables, with the functions that end the
// process kept in their restricted (panicking) form.
func TestStdlibSymbols(t *testing.T) {
	for _, k := range []string{"unsafe/unsafe", "syscall/syscall", "os/exec/exec", "github.com/traefik/yaegi/yaegi"} {
		if Symbols[k] == nil {
			t.Errorf("Symbols[%q] missing", k)
		}
	}
	for k := range Symbols {
		if strings.HasPrefix(k, "github.com/traefik/yaegi/stdlib/") && k != "github.com/traefik/yaegi/stdlib/stdlib" {
			t.Errorf("Symbols[%q]: yaegi's table of itself", k)
		}
	}
	for _, c := range []struct{ key, name string }{
		{"syscall/syscall", "Kill"}, {"syscall/syscall", "ForkExec"}, {"os/exec/exec", "Command"}, {"unsafe/unsafe", "Pointer"},
	} {
		if !Symbols[c.key][c.name].IsValid() {
			t.Errorf("%s: no %s", c.key, c.name)
		}
	}
	exit := stdlib.Symbols["os/os"]["Exit"].Pointer()
	for _, k := range []string{"os/os", "syscall/syscall"} {
		if Symbols[k]["Exit"].Pointer() != exit {
			t.Errorf("%s.Exit is not the restricted os.Exit", k)
		}
	}
	for _, c := range []struct{ key, name string }{{"os/os", "FindProcess"}, {"log/log", "Fatal"}, {"log/log", "New"}} {
		if Symbols[c.key][c.name].Pointer() != stdlib.Symbols[c.key][c.name].Pointer() {
			t.Errorf("%s.%s is not stdlib's restricted one", c.key, c.name)
		}
	}

	i := interp.New(interp.Options{Unrestricted: true})
	if err := i.Use(Symbols); err != nil {
		t.Fatal(err)
	}
	src := `import (
	"os/exec"
	"syscall"
	"unsafe"
)

func check() string {
	x := int32(5)
	p := (*[4]byte)(unsafe.Pointer(&x))
	out, err := exec.Command("sh", "-c", "echo ok").Output()
	return fmt.Sprintf("%d %d %v %q %v", unsafe.Sizeof(x), p[0], syscall.Getpid() > 0, out, err)
}`
	if _, err := i.Eval(`import "fmt"`); err != nil {
		t.Fatal(err)
	}
	if _, err := i.Eval(src); err != nil {
		t.Fatal(err)
	}
	v, err := i.Eval(`check()`)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := v.String(), `4 5 true "ok\n" <nil>`; got != want {
		t.Errorf("check() = %q, want %q", got, want)
	}
	if _, err := i.Eval(`syscall.Exit(4)`); err == nil || !strings.Contains(err.Error(), "os.Exit(4)") {
		t.Errorf("syscall.Exit(4): %v, want the os.Exit(4) panic", err)
	}
}
