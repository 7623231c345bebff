package profile

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gnnrepl/gnnrepl/tensor"
)

// step runs one tiny training step: a linear layer, cross-entropy and
// backward.
func step(n, f, c int) {
	gen := tensor.NewGenerator(1)
	x := tensor.Randn(gen, n, f)
	w := tensor.Randn(gen, f, c).SetRequiresGrad(true)
	y := tensor.Arange(n)
	yd := y.Int64s()
	for i := range yd {
		yd[i] %= int64(c)
	}
	loss := tensor.CrossEntropy(tensor.MatMul(x, w), y)
	loss.Backward()
}

func mustStat(t *testing.T, r *Report, name string) OpStat {
	t.Helper()
	s, ok := r.Stat(name)
	if !ok {
		t.Fatalf("no row %q in\n%s", name, r.Table("name", 0))
	}
	return s
}

func TestRunRecordsOpsNestingAndBackward(t *testing.T) {
	const n, f, c = 64, 8, 5
	r := Run(func() { step(n, f, c) })
	if Running() {
		t.Fatal("profile still running after Run")
	}
	for _, name := range []string{"Randn", "MatMul", "CrossEntropy", "LogSoftmax", "NLLLoss", "Backward",
		"NLLLoss.backward", "LogSoftmax.backward", "MatMul.backward"} {
		if s := mustStat(t, r, name); s.Calls != 1 && name != "Randn" {
			t.Errorf("%s: %d calls, want 1", name, s.Calls)
		}
	}
	if s := mustStat(t, r, "Randn"); s.Calls != 2 {
		t.Errorf("Randn: %d calls, want 2", s.Calls)
	}
	ce, ls, nll := mustStat(t, r, "CrossEntropy"), mustStat(t, r, "LogSoftmax"), mustStat(t, r, "NLLLoss")
	if ce.Total < ls.Total+nll.Total {
		t.Errorf("CrossEntropy total %v < LogSoftmax %v + NLLLoss %v", ce.Total, ls.Total, nll.Total)
	}
	if ce.Self != ce.Total-ls.Total-nll.Total {
		t.Errorf("CrossEntropy self %v != total %v - children %v", ce.Self, ce.Total, ls.Total+nll.Total)
	}
	// Bytes: LogSoftmax allocates its (n, c) output, NLLLoss a scalar;
	// CrossEntropy itself allocates nothing.
	if ls.Bytes != n*c*4 || ls.SelfBytes != n*c*4 {
		t.Errorf("LogSoftmax bytes %d/%d, want %d", ls.Bytes, ls.SelfBytes, n*c*4)
	}
	if nll.Bytes != 4 {
		t.Errorf("NLLLoss bytes %d, want 4", nll.Bytes)
	}
	if ce.Bytes != n*c*4+4 || ce.SelfBytes != 0 {
		t.Errorf("CrossEntropy bytes %d self %d, want %d and 0", ce.Bytes, ce.SelfBytes, n*c*4+4)
	}
	if mm := mustStat(t, r, "MatMul"); mm.Bytes != n*c*4 {
		t.Errorf("MatMul bytes %d, want %d", mm.Bytes, n*c*4)
	}
	// MatMul.backward computes only dW (x needs no grad): (f, c).
	if mb := mustStat(t, r, "MatMul.backward"); mb.Bytes != f*c*4 {
		t.Errorf("MatMul.backward bytes %d, want %d", mb.Bytes, f*c*4)
	}
	// The backward closures are nested in Backward.
	bw := mustStat(t, r, "Backward")
	var inner time.Duration
	for _, name := range []string{"NLLLoss.backward", "LogSoftmax.backward", "MatMul.backward"} {
		inner += mustStat(t, r, name).Total
	}
	if bw.Total < inner || bw.Self != bw.Total-inner {
		t.Errorf("Backward total %v self %v, nested backward closures %v", bw.Total, bw.Self, inner)
	}

	// Events: in start order, parents point backwards, children inside.
	if len(r.Events) != r.calls() {
		t.Fatalf("%d events for %d calls", len(r.Events), r.calls())
	}
	for i, e := range r.Events {
		if i > 0 && e.Start < r.Events[i-1].Start {
			t.Errorf("event %d starts before event %d", i, i-1)
		}
		if e.Parent >= i {
			t.Errorf("event %d (%s) has parent %d", i, e.Name, e.Parent)
		}
		if e.Parent >= 0 {
			p := r.Events[e.Parent]
			if e.Depth != p.Depth+1 || e.Start < p.Start || e.Start+e.Dur > p.Start+p.Dur {
				t.Errorf("event %d %s [%v+%v] not inside parent %s [%v+%v]", i, e.Name, e.Start, e.Dur, p.Name, p.Start, p.Dur)
			}
		} else if e.Depth != 0 {
			t.Errorf("root event %d has depth %d", i, e.Depth)
		}
		if e.Self > e.Dur {
			t.Errorf("event %d self %v > dur %v", i, e.Self, e.Dur)
		}
	}
	if r.SelfTotal() > r.Wall {
		t.Errorf("self total %v exceeds wall %v", r.SelfTotal(), r.Wall)
	}
	if r.Overlapped != 0 || r.Dropped != 0 {
		t.Errorf("overlapped %d dropped %d", r.Overlapped, r.Dropped)
	}
}

func TestTable(t *testing.T) {
	r := Run(func() {
		step(16, 4, 3)
		step(16, 4, 3)
	})
	tab := r.Table("calls", 3)
	lines := strings.Split(strings.TrimSpace(tab), "\n")
	// rule, header, rule, 3 rows, rule, footer, memory
	if len(lines) != 9 {
		t.Fatalf("table has %d lines, want 9:\n%s", len(lines), tab)
	}
	if !strings.HasPrefix(lines[8], "Memory: cpu allocated ") || len(r.Memory) == 0 || r.Memory[0].Device != "cpu" {
		t.Errorf("memory footer %q, Memory %+v", lines[8], r.Memory)
	}
	for _, col := range []string{"Name", "Self %", "Self", "Total %", "Total", "Avg", "Calls", "Bytes", "Self bytes"} {
		if !strings.Contains(lines[1], col) {
			t.Errorf("header %q lacks %q", lines[1], col)
		}
	}
	if !strings.HasPrefix(lines[3], "Randn ") {
		t.Errorf("most-called op should be Randn (4 calls), got row %q", lines[3])
	}
	if strings.Contains(tab, "Device") {
		t.Errorf("device columns without device time:\n%s", tab)
	}
	if !strings.Contains(lines[7], "op calls: 20") {
		t.Errorf("footer %q, want 20 op calls", lines[7])
	}
	all := r.Sorted("self")
	for i := 1; i < len(all); i++ {
		if all[i].Self > all[i-1].Self {
			t.Fatalf("Sorted(self) not descending at %d", i)
		}
	}
	byName := r.Sorted("name")
	for i := 1; i < len(byName); i++ {
		if byName[i].Name < byName[i-1].Name {
			t.Fatalf("Sorted(name) not ascending at %d", i)
		}
	}
	if r.String() != r.Table("total", 20) {
		t.Error("String differs from Table(total, 20)")
	}
	if h := r.HTML("self", 0); !strings.Contains(h, "<th>Self %</th>") || !strings.Contains(h, "MatMul.backward") {
		t.Errorf("HTML table incomplete:\n%s", h)
	}
	err := tensor.Catch(func() { r.Table("bogus", 5) })
	if !errors.Is(err, ErrArgument) || !strings.Contains(err.Error(), "bogus") {
		t.Errorf("unknown column: err %v, want ErrArgument naming it", err)
	}
	for _, c := range SortColumns() {
		r.Table(c, 1)
	}
}

func TestStartStopMisuse(t *testing.T) {
	err := tensor.Catch(func() { Stop() })
	if !errors.Is(err, ErrState) {
		t.Errorf("Stop without Start: %v", err)
	}
	Start()
	err = tensor.Catch(func() { Start() })
	if !errors.Is(err, ErrState) {
		t.Errorf("Start twice: %v", err)
	}
	Stop()
	// A panicking closure stops the profile and the panic goes on.
	err = tensor.Catch(func() { Run(func() { tensor.MatMul(tensor.Zeros(2, 3), tensor.Zeros(2, 3)) }) })
	if !errors.Is(err, tensor.ErrShape) {
		t.Errorf("Run with a bad MatMul: %v", err)
	}
	if Running() {
		t.Error("profile still running after a panic in Run")
	}
}

func TestRangeAndDeviceTime(t *testing.T) {
	r := Run(func() {
		end := Range("forward")
		tensor.ReLU(tensor.Ones(4, 4))
		AddDeviceTime("ReLU", "cuda:0", time.Now(), 3*time.Microsecond)
		AddDeviceTime("ReLU", "cuda:0", time.Now(), 5*time.Microsecond)
		end()
	})
	fw, relu := mustStat(t, r, "forward"), mustStat(t, r, "ReLU")
	if fw.Calls != 1 || fw.Total < relu.Total {
		t.Errorf("forward range %+v does not enclose ReLU %+v", fw, relu)
	}
	if relu.DeviceTotal != 8*time.Microsecond || relu.DeviceCalls != 2 {
		t.Errorf("ReLU device time %v over %d kernels, want 8us over 2", relu.DeviceTotal, relu.DeviceCalls)
	}
	tab := r.Table("device", 0)
	if !strings.Contains(tab, "Device total") || !strings.Contains(tab, "8.000us") {
		t.Errorf("device columns missing:\n%s", tab)
	}
	if Range("x") == nil {
		t.Error("Range without a profile returned nil")
	}
	AddDeviceTime("x", "cuda:0", time.Now(), time.Second) // no profile: ignored
}

func TestChromeTrace(t *testing.T) {
	r := Run(func() { step(8, 3, 2) })
	AddDeviceTime("late", "cuda:0", time.Now(), time.Second) // after Stop: ignored
	r.DeviceEvents = append(r.DeviceEvents, DeviceEvent{Name: "SpMM", Device: "cuda:0", Start: 0, Dur: time.Microsecond})
	dir := t.TempDir()
	path := filepath.Join(dir, "trace.json")
	if err := r.WriteChromeTrace(path); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var tr struct {
		TraceEvents []struct {
			Name string         `json:"name"`
			Ph   string         `json:"ph"`
			Ts   float64        `json:"ts"`
			Dur  float64        `json:"dur"`
			Pid  int            `json:"pid"`
			Args map[string]any `json:"args"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(data, &tr); err != nil {
		t.Fatalf("trace is not JSON: %v", err)
	}
	cpu, dev := 0, 0
	for _, e := range tr.TraceEvents {
		if e.Ph != "X" {
			continue
		}
		if e.Pid == 0 {
			cpu++
			if _, ok := e.Args["bytes"]; !ok {
				t.Errorf("event %s lacks bytes", e.Name)
			}
		} else {
			dev++
		}
	}
	if cpu != len(r.Events) || dev != 1 {
		t.Errorf("trace has %d CPU and %d device events, want %d and 1", cpu, dev, len(r.Events))
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("temporary files left behind: %v", ents)
	}
	bad := filepath.Join(dir, "no", "such", "dir", "t.json")
	if err := r.WriteChromeTrace(bad); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("write into a missing folder: %v", err)
	}
}

func TestConcurrentOps(t *testing.T) {
	const workers, per = 4, 50
	r := Run(func() {
		var wg sync.WaitGroup
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				x := tensor.Ones(8, 8)
				for i := 0; i < per; i++ {
					x = tensor.AddScalar(x, 1)
				}
			}()
		}
		wg.Wait()
	})
	// Bytes are the process-wide allocations while each op ran, so ops
	// overlapping on other goroutines add to each other's (see the package
	// doc): at least each op's own output, possibly more.
	if s := mustStat(t, r, "AddScalar"); s.Calls != workers*per || s.Bytes < workers*per*8*8*4 {
		t.Errorf("AddScalar: %d calls, %d bytes; want %d and at least %d", s.Calls, s.Bytes, workers*per, workers*per*8*8*4)
	}
	if len(r.Events) != workers*per {
		t.Errorf("%d events", len(r.Events))
	}
}

func TestMaxEventsAndHookChaining(t *testing.T) {
	old := MaxEvents
	MaxEvents = 3
	defer func() { MaxEvents = old }()
	var seen []string
	prev := tensor.SetOpHook(func(op string) func() {
		seen = append(seen, op)
		return func() {}
	})
	defer tensor.SetOpHook(prev)
	r := Run(func() {
		x := tensor.Ones(2)
		for i := 0; i < 5; i++ {
			x = tensor.Exp(x)
		}
	})
	if len(r.Events) != 3 || r.Dropped != 2 || mustStat(t, r, "Exp").Calls != 5 {
		t.Errorf("events %d dropped %d", len(r.Events), r.Dropped)
	}
	if len(seen) != 5 {
		t.Errorf("the previous hook saw %d ops, want 5", len(seen))
	}
	tensor.Exp(tensor.Ones(1))
	if len(seen) != 6 {
		t.Errorf("the previous hook was not restored by Stop")
	}
}

func TestStopClosesOpenRanges(t *testing.T) {
	Start()
	end := Range("outer")
	r := Stop()
	end() // closing after Stop is harmless
	if s := mustStat(t, r, "outer"); s.Calls != 1 {
		t.Errorf("open range not closed by Stop: %+v", s)
	}
}

func TestFormatDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		812:                     "812ns",
		15204:                   "15.204us",
		3020 * time.Microsecond: "3.020ms",
		1250 * time.Millisecond: "1.250s",
	} {
		if got := FormatDuration(d); got != want {
			t.Errorf("FormatDuration(%d) = %q, want %q", d, got, want)
		}
	}
}

// BenchmarkProfiledOp measures one small op (ReLU of 16 floats) with and
// without a running profile; the difference is the profiler's cost per op.
func BenchmarkProfiledOp(b *testing.B) {
	x := tensor.Ones(16)
	b.Run("off", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			tensor.ReLU(x)
		}
	})
	b.Run("on", func(b *testing.B) {
		old := MaxEvents
		MaxEvents = 0
		defer func() { MaxEvents = old }()
		Start()
		defer Stop()
		for i := 0; i < b.N; i++ {
			tensor.ReLU(x)
		}
	})
}

// TestLastAfterPanic: a Run whose function panics keeps its partial report
// for Last.
func TestLastAfterPanic(t *testing.T) {
	func() {
		defer func() { _ = recover() }()
		Run(func() {
			tensor.Add(tensor.Ones(2), tensor.Ones(2))
			panic("interrupted")
		})
	}()
	r := Last()
	if r == nil {
		t.Fatal("Last is nil after a panicking Run")
	}
	if _, ok := r.Stat("Add"); !ok {
		t.Errorf("the partial report lacks the Add that ran:\n%s", r)
	}
}
