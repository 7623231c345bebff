package profile

import (
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/gnnrepl/gnnrepl/internal/atomicfile"
)

// traceEvent is one entry of the Chrome trace event format ("X" complete
// events and "M" metadata), times in microseconds.
type traceEvent struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat,omitempty"`
	Ph   string         `json:"ph"`
	Ts   float64        `json:"ts"`
	Dur  float64        `json:"dur,omitempty"`
	Pid  int            `json:"pid"`
	Tid  int            `json:"tid"`
	Args map[string]any `json:"args,omitempty"`
}

func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// ChromeTrace returns the report in the Chrome trace event format
// (https://docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU),
// as torch.profiler's export_chrome_trace writes it: one complete ("X")
// event per op call on process "CPU" (pid 0, tid 0), with its bytes and self
// time as args, and one per device event on a process per device. Times are
// microseconds from the profile's start.
func (r *Report) ChromeTrace() ([]byte, error) {
	evs := []traceEvent{
		{Name: "process_name", Ph: "M", Pid: 0, Args: map[string]any{"name": "CPU"}},
		{Name: "thread_name", Ph: "M", Pid: 0, Tid: 0, Args: map[string]any{"name": "ops"}},
	}
	for _, e := range r.Events {
		evs = append(evs, traceEvent{Name: e.Name, Cat: "cpu_op", Ph: "X", Ts: us(e.Start), Dur: us(e.Dur),
			Args: map[string]any{"bytes": e.Bytes, "self bytes": e.SelfBytes, "self us": us(e.Self), "depth": e.Depth}})
	}
	devPid := map[string]int{}
	var devs []string
	for _, e := range r.DeviceEvents {
		if _, ok := devPid[e.Device]; !ok {
			devs = append(devs, e.Device)
			devPid[e.Device] = 0
		}
	}
	sort.Strings(devs)
	for i, d := range devs {
		devPid[d] = i + 1
		evs = append(evs, traceEvent{Name: "process_name", Ph: "M", Pid: i + 1, Args: map[string]any{"name": d}})
	}
	for _, e := range r.DeviceEvents {
		evs = append(evs, traceEvent{Name: e.Name, Cat: "kernel", Ph: "X", Ts: us(e.Start), Dur: us(e.Dur), Pid: devPid[e.Device]})
	}
	return json.Marshal(struct {
		TraceEvents     []traceEvent `json:"traceEvents"`
		DisplayTimeUnit string       `json:"displayTimeUnit"`
	}{evs, "ms"})
}

// WriteChromeTrace writes ChromeTrace to path (open it in chrome://tracing
// or https://ui.perfetto.dev). The file is written to a temporary file in
// the same folder and renamed into place, so path never holds a partial
// trace. Errors name the path.
func (r *Report) WriteChromeTrace(path string) error {
	data, err := r.ChromeTrace()
	if err != nil {
		return fmt.Errorf("profile: trace for %s: %w", path, err)
	}
	if err := atomicfile.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("profile: writing %s: %w", path, err)
	}
	return nil
}
