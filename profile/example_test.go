package profile_test

import (
	"fmt"
	"strings"

	"github.com/gnnrepl/gnnrepl/profile"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// A profile of one forward and backward pass, as a table sorted by call
// count (times vary from run to run, so only the names and counts are
// printed here).
func Example() {
	x := tensor.Ones(4, 3)
	w := tensor.Ones(3, 2).SetRequiresGrad(true)
	r := profile.Run(func() {
		loss := tensor.CrossEntropy(tensor.ReLU(tensor.MatMul(x, w)), tensor.FromInt64([]int64{0, 1, 0, 1}))
		loss.Backward()
	})
	for _, s := range r.Sorted("name") {
		fmt.Println(s.Name, s.Calls)
	}
	fmt.Println(strings.Contains(r.Table("self", 5), "Self %"))
	// Output:
	// Backward 1
	// CrossEntropy 1
	// LogSoftmax 1
	// LogSoftmax.backward 1
	// MatMul 1
	// MatMul.backward 1
	// NLLLoss 1
	// NLLLoss.backward 1
	// ReLU 1
	// ReLU.backward 1
	// true
}
