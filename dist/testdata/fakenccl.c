// A stand-in for libnccl.so.2 with NCCL's C ABI (nccl.h signatures), for
// the CPU-side test of package dist's binding (TestNCCLFakeLibrary): it
// records what it was called with, so the test checks that the Go side
// passes every argument, the 128-byte ncclUniqueId by value included, as
// the C ABI wants. Buffers are host memory here; no GPU is involved.
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct { char internal[128]; } ncclUniqueId;
typedef struct fakeComm { int nranks, rank, dev; } *ncclComm_t;

static struct fakeComm comms[8];
static int64_t rec[8];

int ncclGetVersion(int *v) { *v = 22105; return 0; }

int ncclGetUniqueId(ncclUniqueId *id) {
	for (int i = 0; i < 128; i++) id->internal[i] = (char)(i ^ 0x5a);
	return 0;
}

int ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId id, int rank) {
	for (int i = 0; i < 128; i++)
		if (id.internal[i] != (char)(i ^ 0x5a)) return 4; // ncclInvalidArgument
	if (nranks != 1 || rank != 0) return 4;
	comms[0].nranks = nranks;
	comms[0].rank = rank;
	*comm = &comms[0];
	return 0;
}

int ncclCommInitAll(ncclComm_t *comm, int ndev, const int *devlist) {
	if (ndev < 1 || ndev > 8) return 4;
	for (int i = 0; i < ndev; i++) {
		comms[i].nranks = ndev;
		comms[i].rank = i;
		comms[i].dev = devlist[i];
		comm[i] = &comms[i];
	}
	return 0;
}

int ncclCommDestroy(ncclComm_t comm) { return comm ? 0 : 4; }
int ncclCommAbort(ncclComm_t comm) { return comm ? 0 : 4; }

const char *ncclGetErrorString(int rc) { return rc == 4 ? "invalid argument (fake)" : "fake error"; }

// One rank: the sum, max, min, prod and average are the input itself.
int ncclAllReduce(const void *send, void *recv, size_t count, int dt, int op, ncclComm_t comm, void *stream) {
	rec[0] = (int64_t)count; rec[1] = dt; rec[2] = op; rec[3] = (int64_t)(intptr_t)stream;
	rec[4] = comm ? comm->rank : -1;
	if (dt != 7) return 4; // float32 only in this fake
	if (send != recv) memcpy(recv, send, count * 4);
	float *f = recv;
	for (size_t i = 0; i < count; i++) f[i] *= (float)comm->nranks;
	return 0;
}

int ncclBroadcast(const void *send, void *recv, size_t count, int dt, int root, ncclComm_t comm, void *stream) {
	rec[0] = (int64_t)count; rec[1] = dt; rec[2] = root; rec[3] = (int64_t)(intptr_t)stream;
	return 0;
}

int ncclAllGather(const void *send, void *recv, size_t count, int dt, ncclComm_t comm, void *stream) {
	rec[0] = (int64_t)count; rec[1] = dt; rec[3] = (int64_t)(intptr_t)stream;
	return 0;
}

int ncclGroupStart(void) { rec[5]++; return 0; }
int ncclGroupEnd(void) { rec[6]++; return 0; }

// fakeRecord copies what the last calls recorded.
void fakeRecord(int64_t *out) { memcpy(out, rec, sizeof rec); }
