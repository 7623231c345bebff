package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gnnrepl/gnnrepl/acceptance"
	"github.com/gnnrepl/gnnrepl/datasets"
)

func sharedDataDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("GNNREPL_SHARED_DATA")
	if dir == "" {
		_, file, _, _ := runtime.Caller(0)
		dir = filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "data")
	}
	if _, err := os.Stat(filepath.Join(dir, "cora")); err != nil {
		t.Skipf("shared data not found at %s", dir)
	}
	abs, _ := filepath.Abs(dir)
	return abs
}

// TestShellTrainsGraphSAGE types the GraphSAGE training script into the
// shell on a pseudo-terminal, line by line as a person would, checks that
// it reaches the accuracy of the compiled program for the same seed, then
// interrupts a long training loop with Ctrl-C mid-epoch and checks that
// the model still evaluates.
func TestShellTrainsGraphSAGE(t *testing.T) {
	data := sharedDataDir(t)
	ds, err := datasets.LoadPlanetoid("cora", data)
	if err != nil {
		t.Fatal(err)
	}
	want, err := acceptance.TrainSAGE(ds, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile("../../acceptance/testdata/train_sage.go")
	if err != nil {
		t.Fatal(err)
	}

	term, exited := startShell(t, 400, "--data", data)

	term.expect("gnn> ")
	for _, line := range strings.Split(strings.TrimSpace(string(script)), "\n") {
		if strings.HasPrefix(line, "//") {
			continue
		}
		term.send(strings.TrimLeft(line, "\t") + "\r")
		term.expect("> ") // "gnn> " or the continuation prompt "...> "
	}
	term.expect(fmt.Sprintf("test accuracy %.4f", want))
	term.expect("gnn> ")

	// Ctrl-C in the middle of a long epoch loop inside compiled
	// DataLoader and training calls.
	term.send(`fmt.Println("training"); for epoch := 0; epoch < 100000; epoch++ { for loader.Next() { blocks := loader.Blocks(); loss := tensor.CrossEntropy(model.ForwardBlocks(blocks, blocks[0].SrcData("feat")), blocks[len(blocks)-1].DstData("label")); opt.ZeroGrad(); loss.Backward(); opt.Step() } }` + "\r")
	term.expect("training")
	time.Sleep(1500 * time.Millisecond)
	term.send("\x03")
	term.expect("interrupted")
	term.expect("gnn> ")
	term.send("model.Eval()\r")
	term.expect("gnn> ")
	term.send(`tensor.Accuracy(tensor.IndexSelect(model.Forward(g, feat), ds.TestIdx), testLabels) > 0.7` + "\r")
	term.expect("true")
	term.expect("gnn> ")
	term.send(":quit\r")
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("exit: %v", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the shell did not exit after :quit")
	}
}
