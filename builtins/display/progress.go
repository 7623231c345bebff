package display

import (
	"fmt"
	"html"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
)

// ProgressInterval is the least time between two redraws of a notebook
// progress bar (about 10 updates a second); the final state is always
// drawn.
const ProgressInterval = 100 * time.Millisecond

// Progress is a progress bar for DataLoader epochs and training loops (the
// tqdm of gnnrepl). In a notebook it is an HTML bar redrawn in place with
// update_display_data at most every ProgressInterval; in the terminal it is
// drawn on standard error by github.com/schollz/progressbar. It is safe for
// concurrent use.
//
//	bar := display.NewProgress(loader.Len(), "epoch 1")
//	for loader.Next() { ...; bar.Add(1) }
//	bar.Finish()
type Progress struct {
	mu       sync.Mutex
	total    int
	n        int
	desc     string
	postfix  string
	start    time.Time
	last     time.Time // of the last notebook redraw
	finished bool

	h    *Handle                  // notebook mode
	bar  *progressbar.ProgressBar // terminal mode
	errw io.Writer                // terminal mode: where bar draws

	now func() time.Time // time.Now; tests replace it
}

// NewProgress returns a progress bar over total steps labelled description
// and draws it at 0. It panics with ErrArgument when total is negative.
func NewProgress(total int, description string) *Progress {
	return terminal.NewProgress(total, description)
}

// NewProgress returns a progress bar drawn in o (see the package-level
// NewProgress).
func (o *Output) NewProgress(total int, description string) *Progress {
	if total < 0 {
		panic(fmt.Errorf("%w: display.NewProgress: negative total %d", ErrArgument, total))
	}
	p := &Progress{total: total, desc: description, now: time.Now}
	p.start = p.now()
	if o.InNotebook() {
		p.h = o.NewHandle()
		p.draw(true)
		return p
	}
	_, errw := o.writers()
	p.errw = errw
	p.bar = progressbar.NewOptions(total,
		progressbar.OptionSetWriter(errw),
		progressbar.OptionSetDescription(description),
		progressbar.OptionSetWidth(30),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionThrottle(ProgressInterval),
		progressbar.OptionOnCompletion(func() { fmt.Fprintln(errw) }),
	)
	return p
}

// Add advances the bar by n steps.
func (p *Progress) Add(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.setLocked(p.n + n)
}

// Set moves the bar to step n (clamped to [0, total]).
func (p *Progress) Set(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.setLocked(n)
}

func (p *Progress) setLocked(n int) {
	if p.finished {
		return
	}
	p.n = min(max(n, 0), p.total)
	if p.bar != nil {
		_ = p.bar.Set(p.n)
		return
	}
	p.draw(p.n == p.total)
}

// Describe changes the label in front of the bar.
func (p *Progress) Describe(description string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.desc = description
	if p.bar != nil {
		p.bar.Describe(description)
		return
	}
	p.draw(false)
}

// SetPostfix sets text shown after the bar, such as the running loss
// ("loss 0.4123"); in the terminal it is appended to the description.
func (p *Progress) SetPostfix(s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.postfix = s
	if p.bar != nil {
		p.bar.Describe(strings.TrimSpace(p.desc + " " + s))
		return
	}
	p.draw(false)
}

// Value returns the current step.
func (p *Progress) Value() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.n
}

// Total returns the number of steps.
func (p *Progress) Total() int { return p.total }

// Finish draws the final state; later calls to Add and Set do nothing. It
// does not move the bar to the end: a loop stopped early (an interrupt)
// shows where it stopped.
func (p *Progress) Finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.finished {
		return
	}
	if p.bar != nil {
		if p.n == p.total {
			_ = p.bar.Finish()
		} else {
			_ = p.bar.Exit()
			fmt.Fprintln(p.errw)
		}
		p.finished = true
		return
	}
	p.finished = true
	p.draw(true)
}

// draw redraws the notebook bar, unless the last redraw was less than
// ProgressInterval ago and force is false.
func (p *Progress) draw(force bool) {
	t := p.now()
	if !force && !p.last.IsZero() && t.Sub(p.last) < ProgressInterval {
		return
	}
	p.last = t
	p.h.Publish(map[string]any{"text/html": p.html(t), "text/plain": p.text(t)})
}

// stats are the fraction done, elapsed time, rate and remaining time.
func (p *Progress) stats(t time.Time) (frac float64, elapsed time.Duration, rate float64, eta string) {
	elapsed = t.Sub(p.start)
	if p.total > 0 {
		frac = float64(p.n) / float64(p.total)
	}
	eta = "?"
	if s := elapsed.Seconds(); s > 0 && p.n > 0 {
		rate = float64(p.n) / s
		eta = fmtDur(time.Duration(float64(p.total-p.n) / rate * float64(time.Second)))
	}
	return
}

func fmtDur(d time.Duration) string {
	s := int(d.Round(time.Second) / time.Second)
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%02d:%02d", s/60, s%60)
}

// text is tqdm's line: "desc  45% |#####     | 45/100 [00:02<00:03, 20.10 it/s] postfix".
func (p *Progress) text(t time.Time) string {
	frac, el, rate, eta := p.stats(t)
	w := 20
	fill := int(frac * float64(w))
	s := fmt.Sprintf("%s %3d%% |%s%s| %d/%d [%s<%s, %.2f it/s]", p.desc, int(frac*100),
		strings.Repeat("#", fill), strings.Repeat(" ", w-fill), p.n, p.total, fmtDur(el), eta, rate)
	if p.postfix != "" {
		s += " " + p.postfix
	}
	return strings.TrimSpace(s)
}

func (p *Progress) html(t time.Time) string {
	frac, el, rate, eta := p.stats(t)
	col := "#1f77b4"
	if p.finished || p.n == p.total {
		col = "#2ca02c"
	}
	info := fmt.Sprintf("%d/%d [%s&lt;%s, %.2f it/s]", p.n, p.total, fmtDur(el), eta, rate)
	if p.postfix != "" {
		info += " " + html.EscapeString(p.postfix)
	}
	return fmt.Sprintf(`<div class="gnnrepl-progress" style="display:flex;align-items:center;gap:8px;font-family:monospace;font-size:12px">`+
		`<span>%s</span><span>%3d%%</span>`+
		`<div style="width:240px;height:12px;border:1px solid #999;background:#eee"><div style="width:%.1f%%;height:100%%;background:%s"></div></div>`+
		`<span>%s</span></div>`,
		html.EscapeString(p.desc), int(frac*100), frac*100, col, info)
}
