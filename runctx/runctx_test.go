package runctx

import (
	"context"
	"testing"
)

func TestSession(t *testing.T) {
	a := Session()
	if a != Session() || a.Err() != nil {
		t.Fatal("Session changed or is done before an interrupt")
	}
	CancelSession()
	if a.Err() != context.Canceled {
		t.Errorf("after CancelSession: %v", a.Err())
	}
	if b := Session(); b == a || b.Err() != nil {
		t.Errorf("no fresh context after CancelSession")
	}
}

func TestErr(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	restore := Set(ctx)
	if Err() != nil || Context() != ctx {
		t.Fatal("Set")
	}
	cancel()
	if Err() != context.Canceled {
		t.Errorf("Err = %v", Err())
	}
	restore()
	if Err() != nil || Context() != context.Background() {
		t.Errorf("restore")
	}
}
