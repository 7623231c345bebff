package profile

import (
	"fmt"
	"html"
	"sort"
	"strings"
	"time"

	"github.com/gnnrepl/gnnrepl/tensor"
)

// Report is what one profile recorded: per-op statistics and the op calls
// one by one.
type Report struct {
	// Start is when the profile started; Wall is the time from Start to
	// Stop.
	Start time.Time
	Wall  time.Duration
	// Stats has one entry per op name, sorted by Total, largest first.
	Stats []OpStat
	// Events are the op calls in start order (at most MaxEvents).
	Events []Event
	// DeviceEvents are the device (CUDA) times recorded with
	// AddDeviceTime, in the order they were added.
	DeviceEvents []DeviceEvent
	// Dropped counts op calls left out of Events because MaxEvents was
	// reached; they are in Stats.
	Dropped int
	// Overlapped counts op calls that returned while an op started after
	// them was still open: ops run concurrently on several goroutines.
	Overlapped int
	// Memory has the tensor memory of every device seen (tensor's
	// counters), read at Stop, sorted by device: "cpu", "cuda:0", ...
	Memory []DeviceMemory
	// DeviceTimingError is the first CUDA error of the device timer (the
	// device times it could read are in Stats), "" when none.
	DeviceTimingError string
}

// DeviceMemory is one device's tensor memory at the end of a profile
// (torch.profiler's profile_memory, per device).
type DeviceMemory struct {
	Device string
	// Allocated is tensor.MemoryAllocated at Stop; Peak is
	// tensor.MaxMemoryAllocated (the peak since the process started or
	// since tensor.ResetPeakMemoryStats; call it before Start for the
	// profiled code's own peak); Reserved is tensor.MemoryReserved (a
	// GPU's caching allocator; the CPU's is Allocated).
	Allocated, Peak, Reserved int64
}

// OpStat sums every call of one op (torch's FunctionEventAvg in
// key_averages()).
type OpStat struct {
	Name  string // "MatMul", "SpMM.backward", or a Range name
	Calls int
	// Total is the summed wall time of the calls, nested ops included;
	// Self excludes the time of directly nested ops.
	Total, Self time.Duration
	// Bytes is the tensor memory allocated on the CPU during the calls,
	// nested ops included; SelfBytes excludes nested ops.
	Bytes, SelfBytes int64
	// DeviceTotal is the device (CUDA kernel) time recorded for this op
	// with AddDeviceTime over DeviceCalls kernels; zero on the CPU.
	DeviceTotal time.Duration
	DeviceCalls int
}

// Avg returns Total / Calls (0 for no calls).
func (s OpStat) Avg() time.Duration {
	if s.Calls == 0 {
		return 0
	}
	return s.Total / time.Duration(s.Calls)
}

// Event is one op call.
type Event struct {
	Name string
	// Start is the time since the profile's Start; Dur the call's wall
	// time and Self that minus its directly nested calls.
	Start, Dur, Self time.Duration
	// Bytes and SelfBytes are the CPU tensor bytes allocated during the
	// call, with and without nested calls.
	Bytes, SelfBytes int64
	// Depth is the nesting depth (0 for a top-level op); Parent is the
	// index in Events of the enclosing call, -1 for none.
	Depth, Parent int
}

// DeviceEvent is one stretch of device time recorded with AddDeviceTime.
type DeviceEvent struct {
	Name, Device string
	Start, Dur   time.Duration // Start is relative to the profile's Start
}

// Stat returns the statistics of the op called name and whether it ran.
func (r *Report) Stat(name string) (OpStat, bool) {
	for _, s := range r.Stats {
		if s.Name == name {
			return s, true
		}
	}
	return OpStat{}, false
}

// SelfTotal returns the sum of every op's self time: the time spent inside
// recorded ops, each instant counted once (on one goroutine).
func (r *Report) SelfTotal() time.Duration {
	var t time.Duration
	for _, s := range r.Stats {
		t += s.Self
	}
	return t
}

// sortKeys maps the accepted sort columns, ours and torch.profiler's, to a
// "larger first" ordering key.
var sortKeys = map[string]func(OpStat) float64{
	"self":                  func(s OpStat) float64 { return float64(s.Self) },
	"self_cpu_time_total":   func(s OpStat) float64 { return float64(s.Self) },
	"total":                 func(s OpStat) float64 { return float64(s.Total) },
	"cpu_time_total":        func(s OpStat) float64 { return float64(s.Total) },
	"calls":                 func(s OpStat) float64 { return float64(s.Calls) },
	"count":                 func(s OpStat) float64 { return float64(s.Calls) },
	"avg":                   func(s OpStat) float64 { return float64(s.Avg()) },
	"cpu_time":              func(s OpStat) float64 { return float64(s.Avg()) },
	"bytes":                 func(s OpStat) float64 { return float64(s.Bytes) },
	"cpu_memory_usage":      func(s OpStat) float64 { return float64(s.Bytes) },
	"self_bytes":            func(s OpStat) float64 { return float64(s.SelfBytes) },
	"self_cpu_memory_usage": func(s OpStat) float64 { return float64(s.SelfBytes) },
	"device":                func(s OpStat) float64 { return float64(s.DeviceTotal) },
	"device_time_total":     func(s OpStat) float64 { return float64(s.DeviceTotal) },
	"cuda_time_total":       func(s OpStat) float64 { return float64(s.DeviceTotal) },
	"name":                  nil, // alphabetical
}

// SortColumns lists the column names Table and Sorted accept.
func SortColumns() []string {
	out := make([]string, 0, len(sortKeys))
	for k := range sortKeys {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Sorted returns the op statistics ordered by sortBy, largest first ("name"
// sorts alphabetically), with ties broken by name: one of "self", "total",
// "calls", "avg", "bytes", "self_bytes", "device", "name", or torch's
// "self_cpu_time_total", "cpu_time_total", "count", "cpu_memory_usage",
// "self_cpu_memory_usage", "cuda_time_total", "device_time_total". "" means
// "total". An unknown column panics with an *Error wrapping ErrArgument.
func (r *Report) Sorted(sortBy string) []OpStat {
	if sortBy == "" {
		sortBy = "total"
	}
	key, ok := sortKeys[sortBy]
	if !ok {
		panicf(ErrArgument, "Table", "unknown sort column %q (want one of %s)", sortBy, strings.Join(SortColumns(), ", "))
	}
	out := append([]OpStat(nil), r.Stats...)
	sort.SliceStable(out, func(i, j int) bool {
		if key != nil {
			if a, b := key(out[i]), key(out[j]); a != b {
				return a > b
			}
		}
		return out[i].Name < out[j].Name
	})
	return out
}

func (r *Report) hasDevice() bool {
	for _, s := range r.Stats {
		if s.DeviceCalls > 0 {
			return true
		}
	}
	return false
}

// rows renders the table cells: a header and one row per op.
func (r *Report) rows(sortBy string, limit int) (header []string, rows [][]string) {
	stats := r.Sorted(sortBy)
	if limit > 0 && len(stats) > limit {
		stats = stats[:limit]
	}
	selfAll, dev := r.SelfTotal(), r.hasDevice()
	header = []string{"Name", "Self %", "Self", "Total %", "Total", "Avg", "Calls", "Bytes", "Self bytes"}
	if dev {
		header = append(header, "Device total", "Device avg", "Kernels")
	}
	pct := func(d time.Duration) string {
		if selfAll <= 0 {
			return "-"
		}
		return fmt.Sprintf("%.2f%%", 100*float64(d)/float64(selfAll))
	}
	for _, s := range stats {
		row := []string{s.Name, pct(s.Self), FormatDuration(s.Self), pct(s.Total), FormatDuration(s.Total),
			FormatDuration(s.Avg()), fmt.Sprint(s.Calls), tensor.FormatBytes(s.Bytes), tensor.FormatBytes(s.SelfBytes)}
		if dev {
			avg := time.Duration(0)
			if s.DeviceCalls > 0 {
				avg = s.DeviceTotal / time.Duration(s.DeviceCalls)
			}
			row = append(row, FormatDuration(s.DeviceTotal), FormatDuration(avg), fmt.Sprint(s.DeviceCalls))
		}
		rows = append(rows, row)
	}
	return header, rows
}

// Table renders the per-op statistics as a text table in the manner of
// torch.profiler's key_averages().table(sort_by=sortBy, row_limit=limit):
// columns Name, Self %, Self, Total %, Total, Avg, Calls, Bytes, Self bytes
// (and device total, average and kernel count when device time was
// recorded). Percentages are of the summed self time of all ops. limit <= 0
// prints every op. sortBy is as for Sorted.
func (r *Report) Table(sortBy string, limit int) string {
	header, rows := r.rows(sortBy, limit)
	width := make([]int, len(header))
	for i, h := range header {
		width[i] = len(h)
	}
	for _, row := range rows {
		for i, c := range row {
			width[i] = max(width[i], len([]rune(c)))
		}
	}
	var b strings.Builder
	rule := func() {
		for i, w := range width {
			if i > 0 {
				b.WriteString("  ")
			}
			b.WriteString(strings.Repeat("-", w))
		}
		b.WriteByte('\n')
	}
	line := func(cells []string) {
		for i, c := range cells {
			if i > 0 {
				b.WriteString("  ")
			}
			pad := strings.Repeat(" ", width[i]-len([]rune(c)))
			if i == 0 {
				b.WriteString(c + pad)
			} else {
				b.WriteString(pad + c)
			}
		}
		b.WriteByte('\n')
	}
	rule()
	line(header)
	rule()
	for _, row := range rows {
		line(row)
	}
	rule()
	fmt.Fprintf(&b, "Self time total: %s   wall time: %s   op calls: %d", FormatDuration(r.SelfTotal()),
		FormatDuration(r.Wall), r.calls())
	if r.Overlapped > 0 {
		fmt.Fprintf(&b, "   overlapping calls (several goroutines): %d", r.Overlapped)
	}
	if r.Dropped > 0 {
		fmt.Fprintf(&b, "   calls not kept for the trace: %d", r.Dropped)
	}
	b.WriteByte('\n')
	b.WriteString(r.memoryLine())
	return b.String()
}

func (r *Report) calls() int {
	n := 0
	for _, s := range r.Stats {
		n += s.Calls
	}
	return n
}

// memoryLine is the Table's memory footer: one entry per device, and the
// device timer's error if any.
func (r *Report) memoryLine() string {
	var b strings.Builder
	if len(r.Memory) > 0 {
		b.WriteString("Memory:")
		for i, m := range r.Memory {
			if i > 0 {
				b.WriteString(";")
			}
			fmt.Fprintf(&b, " %s allocated %s, peak %s", m.Device, tensor.FormatBytes(m.Allocated), tensor.FormatBytes(m.Peak))
			if m.Device != "cpu" {
				fmt.Fprintf(&b, ", reserved %s", tensor.FormatBytes(m.Reserved))
			}
		}
		b.WriteByte('\n')
	}
	if r.DeviceTimingError != "" {
		fmt.Fprintf(&b, "Device timing error: %s\n", r.DeviceTimingError)
	}
	return b.String()
}

// String is Table("total", 20).
func (r *Report) String() string { return r.Table("total", 20) }

// HTML renders the same table as Table as an HTML <table>, for notebooks.
func (r *Report) HTML(sortBy string, limit int) string {
	header, rows := r.rows(sortBy, limit)
	var b strings.Builder
	b.WriteString("<table>\n<thead><tr>")
	for _, h := range header {
		b.WriteString("<th>" + html.EscapeString(h) + "</th>")
	}
	b.WriteString("</tr></thead>\n<tbody>\n")
	for _, row := range rows {
		b.WriteString("<tr>")
		for i, c := range row {
			if i == 0 {
				b.WriteString(`<td style="text-align:left">` + html.EscapeString(c) + "</td>")
			} else {
				b.WriteString(`<td style="text-align:right">` + html.EscapeString(c) + "</td>")
			}
		}
		b.WriteString("</tr>\n")
	}
	fmt.Fprintf(&b, "</tbody>\n</table>\n<p>Self time total: %s, wall time: %s, op calls: %d</p>\n",
		FormatDuration(r.SelfTotal()), FormatDuration(r.Wall), r.calls())
	if m := r.memoryLine(); m != "" {
		b.WriteString("<p>" + html.EscapeString(strings.TrimSpace(m)) + "</p>\n")
	}
	return b.String()
}

// FormatDuration renders d the way torch.profiler's tables do: "812ns",
// "15.204us", "3.020ms", "1.250s".
func FormatDuration(d time.Duration) string {
	switch {
	case d < time.Microsecond:
		return fmt.Sprintf("%dns", d.Nanoseconds())
	case d < time.Millisecond:
		return fmt.Sprintf("%.3fus", float64(d)/float64(time.Microsecond))
	case d < time.Second:
		return fmt.Sprintf("%.3fms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%.3fs", d.Seconds())
}
