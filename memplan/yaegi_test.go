package memplan

import (
	"reflect"
	"strings"
	"testing"

	"github.com/gnnrepl/gnnrepl/tensor"
	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
)

// TestInterpreted plans and asks for a suggestion the way a session user
// types it, in the yaegi interpreter, against a hand-made symbol table (the
// real one is generated in builtins): a Config literal, Predict, the Plan's
// fields and table, Suggest, and ErrNoFit through errors.Is.
func TestInterpreted(t *testing.T) {
	i := interp.New(interp.Options{})
	if err := i.Use(stdlib.Symbols); err != nil {
		t.Fatal(err)
	}
	if err := i.Use(interp.Exports{
		"github.com/gnnrepl/gnnrepl/tensor/tensor": {
			"BFloat16":    reflect.ValueOf(tensor.BFloat16),
			"FormatBytes": reflect.ValueOf(tensor.FormatBytes),
		},
		"github.com/gnnrepl/gnnrepl/memplan/memplan": {
			"Config":   reflect.ValueOf((*Config)(nil)),
			"Plan":     reflect.ValueOf((*Plan)(nil)),
			"Predict":  reflect.ValueOf(Predict),
			"Suggest":  reflect.ValueOf(Suggest),
			"ErrNoFit": reflect.ValueOf(&ErrNoFit).Elem(),
		},
	}); err != nil {
		t.Fatal(err)
	}
	v, err := i.Eval(`
import (
	"errors"
	"fmt"

	"github.com/gnnrepl/gnnrepl/memplan"
	"github.com/gnnrepl/gnnrepl/tensor"
)

func run() string {
	c := memplan.Config{NumNodes: 2449029, NumEdges: 61859140, NumFeatures: 100, NumClasses: 47,
		NumLayers: 3, Sampling: true, Fanouts: []int{15, 10, 5}, DType: tensor.BFloat16}
	p, err := memplan.Predict(c)
	if err != nil {
		return err.Error()
	}
	_, _, err = memplan.Suggest(c, 1<<20)
	return fmt.Sprintf("%s|%v|%s", tensor.FormatBytes(p.Peak), errors.Is(err, memplan.ErrNoFit), p.String())
}`)
	if err != nil {
		t.Fatal(err)
	}
	v, err = i.Eval("run()")
	if err != nil {
		t.Fatal(err)
	}
	got := v.String()
	if !strings.Contains(got, "|true|memory plan: GraphSAGE 3x256") || !strings.Contains(got, "bfloat16 autocast") {
		t.Errorf("interpreted planning gave %q", got)
	}
}
