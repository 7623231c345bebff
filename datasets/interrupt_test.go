package datasets

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/gnnrepl/gnnrepl/runctx"
)

// TestLoadInterrupted: dataset loading observes the session's interrupt
// (runctx): a text loader stops within 65536 lines and a generator between
// its relations, returning an error wrapping context.Canceled and no data.
func TestLoadInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	defer runctx.Set(ctx)()
	path := filepath.Join(sharedData(t), "snap-email-enron", "email-Enron.txt.gz")
	if el, err := ReadSNAP(path); !errors.Is(err, context.Canceled) || el != nil {
		t.Errorf("ReadSNAP after an interrupt: %v, %v", el, err)
	}
	if d, err := SyntheticMAG(SyntheticMAGOptions{Scale: 0.001, Seed: 1}); !errors.Is(err, context.Canceled) || d != nil {
		t.Errorf("SyntheticMAG after an interrupt: %v, %v", d, err)
	}
}
