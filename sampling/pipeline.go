package sampling

import (
	"errors"
	"sync"

	"github.com/gnnrepl/gnnrepl/runctx"
)

// errStopped marks a batch skipped because its pipeline was shut down.
var errStopped = errors.New("sampling: pipeline stopped")

// result is a produced batch or its error.
type result struct {
	b   *batchResult
	err error
}

type job struct {
	i  int
	ch chan result
}

// pipeline samples the batches of one epoch in worker goroutines, at most
// window batches ahead of the consumer, and hands them out in order: a
// dispatcher queues one result channel per batch (in batch order) on
// pending, then gives the batch to a free worker, which fills the channel.
type pipeline struct {
	stop     chan struct{}
	pending  chan chan result
	wg       sync.WaitGroup
	stopOnce sync.Once
}

func startPipeline(s *source, r *epochRun, workers, window int) *pipeline {
	p := &pipeline{stop: make(chan struct{}), pending: make(chan chan result, window)}
	jobs := make(chan job)
	p.wg.Add(1 + workers)
	go func() {
		defer p.wg.Done()
		defer close(jobs)
		for i := r.next; i < r.numBatches; i++ {
			ch := make(chan result, 1)
			select {
			case p.pending <- ch:
			case <-p.stop:
				return
			}
			select {
			case jobs <- job{i, ch}:
			case <-p.stop:
				return
			}
		}
	}()
	for w := 0; w < workers; w++ {
		go func() {
			defer p.wg.Done()
			for j := range jobs {
				select {
				case <-p.stop:
					j.ch <- result{err: errStopped}
					continue
				default:
				}
				b, err := s.produce(r, j.i)
				j.ch <- result{b, err}
			}
		}()
	}
	return p
}

// receive returns the next batch in order, or the context's error when the
// running evaluation is cancelled while waiting.
func (p *pipeline) receive() (*batchResult, error) {
	done := runctx.Context().Done()
	var ch chan result
	select {
	case ch = <-p.pending:
	case <-done:
		return nil, runctx.Err()
	}
	select {
	case r := <-ch:
		return r.b, r.err
	case <-done:
		return nil, runctx.Err()
	}
}

// shutdown stops the dispatcher and workers and waits until all have
// returned; a batch being sampled is finished first.
func (p *pipeline) shutdown() {
	p.stopOnce.Do(func() { close(p.stop) })
	p.wg.Wait()
}
