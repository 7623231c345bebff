package kernel

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"
	"unicode/utf8"
)

// maxStreamChunk bounds the text of one stream message; a larger pending
// output is sent as several messages.
const maxStreamChunk = 32 << 10

// cellIO is the ExecIO of one execute_request. Stream writes are buffered
// as an ordered list of segments (stdout and stderr interleaved as written)
// and flushed every flushEvery while the cell runs, when maxStreamChunk
// bytes are pending, before any display message, and when the cell ends.
// A flush waits for room in IOPub's queues (Kernel.waitOutputRoom), and
// the writer with it, so a cell that prints faster than the front end
// reads is slowed down, with bounded memory, and all of its output
// arrives.
type cellIO struct {
	k          *Kernel
	parent     *Message
	ctx        context.Context
	silent     bool
	allowStdin bool
	count      int

	mu      sync.Mutex
	segs    []segment
	pending int
	live    bool // the cell is running (a flusher goroutine exists)
	stopFl  chan struct{}
	flDone  chan struct{}

	stdout, stderr streamWriter
}

type segment struct {
	name string
	data []byte
}

type streamWriter struct {
	c    *cellIO
	name string
}

func (w streamWriter) Write(p []byte) (int, error) {
	w.c.write(w.name, p)
	return len(p), nil
}

// newCellIO starts the periodic flusher of a cell's output.
func newCellIO(k *Kernel, parent *Message, ctx context.Context, silent, allowStdin bool) *cellIO {
	c := &cellIO{k: k, parent: parent, ctx: ctx, silent: silent, allowStdin: allowStdin, live: true,
		stopFl: make(chan struct{}), flDone: make(chan struct{})}
	c.stdout = streamWriter{c, "stdout"}
	c.stderr = streamWriter{c, "stderr"}
	if silent {
		close(c.flDone)
		return c
	}
	go func() {
		defer close(c.flDone)
		t := time.NewTicker(flushEvery)
		defer t.Stop()
		for {
			select {
			case <-c.stopFl:
				return
			case <-t.C:
				c.mu.Lock()
				c.flushLocked(false)
				c.mu.Unlock()
			}
		}
	}()
	return c
}

// finish stops the flusher and sends all pending output. Later writes (from
// goroutines the cell left running) are sent as they come.
func (c *cellIO) finish() {
	if !c.silent {
		close(c.stopFl)
	}
	<-c.flDone
	c.mu.Lock()
	c.live = false
	c.flushLocked(true)
	c.mu.Unlock()
}

func (c *cellIO) Stdout() io.Writer {
	if c.silent {
		return io.Discard
	}
	return c.stdout
}

func (c *cellIO) Stderr() io.Writer {
	if c.silent {
		return io.Discard
	}
	return c.stderr
}

func (c *cellIO) write(name string, p []byte) {
	if c.silent || len(p) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if n := len(c.segs); n > 0 && c.segs[n-1].name == name {
		c.segs[n-1].data = append(c.segs[n-1].data, p...)
	} else {
		c.segs = append(c.segs, segment{name: name, data: append([]byte(nil), p...)})
	}
	c.pending += len(p)
	if !c.live || c.pending >= maxStreamChunk {
		c.flushLocked(false)
	}
}

// flushLocked publishes pending segments in order. Unless final, an
// incomplete UTF-8 sequence at the very end is kept for the next write.
func (c *cellIO) flushLocked(final bool) {
	if len(c.segs) == 0 {
		return
	}
	var keep []segment
	for i, s := range c.segs {
		data := s.data
		if !final && i == len(c.segs)-1 {
			if n := incompleteTail(data); n > 0 {
				keep = []segment{{name: s.name, data: append([]byte(nil), data[len(data)-n:]...)}}
				data = data[:len(data)-n]
			}
		}
		for len(data) > 0 {
			chunk := data
			if len(chunk) > maxStreamChunk {
				chunk = chunk[:maxStreamChunk]
				if n := incompleteTail(chunk); n > 0 && n < len(chunk) {
					chunk = chunk[:len(chunk)-n]
				}
			}
			data = data[len(chunk):]
			c.k.waitOutputRoom()
			c.k.publish(c.parent, "stream", map[string]any{"name": s.name, "text": string(chunk)})
		}
	}
	c.segs = keep
	c.pending = 0
	for _, s := range keep {
		c.pending += len(s.data)
	}
}

// incompleteTail returns the length of a trailing, possibly valid but
// unfinished UTF-8 sequence of b (0 if b ends on a rune boundary).
func incompleteTail(b []byte) int {
	for n := 1; n <= 3 && n <= len(b); n++ {
		r := b[len(b)-n]
		if r < 0x80 {
			return 0 // ASCII: complete
		}
		if utf8.RuneStart(r) {
			// A start byte n bytes from the end: complete iff it needs n bytes.
			if need := runeLen(r); need > n {
				return n
			}
			return 0
		}
	}
	return 0
}

// runeLen is the encoded length announced by a UTF-8 start byte.
func runeLen(b byte) int {
	switch {
	case b&0xE0 == 0xC0:
		return 2
	case b&0xF0 == 0xE0:
		return 3
	case b&0xF8 == 0xF0:
		return 4
	}
	return 1
}

func (c *cellIO) Display(data, metadata map[string]any, displayID string, update bool) error {
	if update && displayID == "" {
		return fmt.Errorf("kernel: update_display_data needs a display id")
	}
	if data == nil {
		data = map[string]any{}
	}
	if metadata == nil {
		metadata = map[string]any{}
	}
	if c.silent {
		return nil
	}
	content := map[string]any{"data": data, "metadata": metadata, "transient": map[string]any{}}
	if displayID != "" {
		content["transient"] = map[string]any{"display_id": displayID}
	}
	msgType := "display_data"
	if update {
		msgType = "update_display_data"
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.flushLocked(true)
	c.k.waitOutputRoom()
	if err := c.k.publish(c.parent, msgType, content); err != nil {
		return fmt.Errorf("kernel: %s: %w", msgType, err)
	}
	return nil
}

func (c *cellIO) ClearOutput(wait bool) {
	if c.silent {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.flushLocked(true)
	c.k.waitOutputRoom()
	c.k.publish(c.parent, "clear_output", map[string]any{"wait": wait})
}

func (c *cellIO) Input(prompt string, password bool) (string, error) {
	if c.silent || !c.allowStdin {
		return "", ErrStdinNotAllowed
	}
	c.mu.Lock()
	c.flushLocked(true)
	c.mu.Unlock()
	return c.k.requestInput(c.ctx, c.parent, prompt, password)
}

func (c *cellIO) ExecutionCount() int { return c.count }
