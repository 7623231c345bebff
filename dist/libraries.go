package dist

import "fmt"

// Library is what Libraries found of one run-time dependency: Name ("MPI",
// "NCCL", "METIS"), OK when it loads, and Detail (the path and version, or why
// not).
type Library struct {
	Name   string
	OK     bool
	Detail string
}

// Libraries opens (without initializing) the libraries package dist uses
// and says what it found, for gnnrepl doctor: libmpi with its
// MPI_Get_library_version and whether this process runs under a launcher,
// libnccl.so.2 with its ncclGetVersion, and libmetis with its idx_t width. It uses the same search as Init and
// Partition, so doctor cannot disagree with them.
func Libraries() []Library {
	var out []Library
	if m, err := loadMPI(); err != nil {
		out = append(out, Library{Name: "MPI", Detail: err.Error()})
	} else {
		launch := "not started by mpirun: dist.World() runs as one rank"
		if name, r, s, _, _, ok := envLaunch(); ok {
			launch = fmt.Sprintf("started by %s as rank %d of %d", name, r, s)
		}
		out = append(out, Library{Name: "MPI", OK: true, Detail: fmt.Sprintf("%s, %s (%s); %s", m.impl, m.version, m.path, launch)})
	}
	if v, path, err := NCCLVersion(); err != nil {
		out = append(out, Library{Name: "NCCL", Detail: err.Error()})
	} else {
		out = append(out, Library{Name: "NCCL", OK: true, Detail: fmt.Sprintf("NCCL %s (%s, ncclGetVersion)", v, path)})
	}
	if d, err := METISAvailable(); err != nil {
		out = append(out, Library{Name: "METIS", Detail: err.Error()})
	} else {
		out = append(out, Library{Name: "METIS", OK: true, Detail: d})
	}
	return out
}
