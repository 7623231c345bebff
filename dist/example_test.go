package dist_test

import (
	"fmt"

	"github.com/gnnrepl/gnnrepl/dist"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// A script written for N ranks: under `mpirun -np N gnnrepl run` World is
// MPI's communicator; in one process it has size 1 and the sum is the
// rank's own value.
func Example() {
	comm := dist.World()
	x := tensor.FromFloat32([]float32{1, 2}, 2)
	if err := comm.AllReduce(x, "sum"); err != nil {
		panic(err)
	}
	fmt.Println(comm.Size(), x.Float32s())
	// Output: 1 [1 2]
}
