"""Workload (a) of bench/: Kipf & Welling's GCN, full graph, plain torch.

Reads src/dst/feat/label/train/val/test .npy from args["dir"] (written by
bench/gcn.go), builds the same normalised adjacency as gnnrepl's GraphConv
(norm "both": 1/sqrt(out_deg(src) * in_deg(dst)), degrees clamped to >= 1),
and prints one JSON line: epoch times (s) and test accuracies.
"""
import json
import os
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import load, make_agg, pick  # noqa: E402

args = json.loads(sys.argv[1])
torch.set_num_threads(args["threads"])
d = args["dir"]
src, dst = load(f"{d}/src.npy"), load(f"{d}/dst.npy")
x, y = load(f"{d}/feat.npy"), load(f"{d}/label.npy")
train, test = load(f"{d}/train.npy"), load(f"{d}/test.npy")
n, f_in = x.shape
c = int(y.max()) + 1
in_deg = torch.bincount(dst, minlength=n).clamp(min=1).float()
out_deg = torch.bincount(src, minlength=n).clamp(min=1).float()
w = (out_deg[src] * in_deg[dst]).rsqrt()


def glorot(fi, fo):
    a = (6.0 / (fi + fo)) ** 0.5
    return torch.empty(fi, fo).uniform_(-a, a).requires_grad_()


def model(seed, agg):
    torch.manual_seed(seed)
    w1, b1 = glorot(f_in, 16), torch.zeros(16, requires_grad=True)
    w2, b2 = glorot(16, c), torch.zeros(c, requires_grad=True)
    opt = torch.optim.Adam([{"params": [w1, b1], "weight_decay": 5e-4},
                            {"params": [w2, b2]}], lr=0.01)

    def forward(training):
        h = F.dropout(x, 0.5, training)
        h = F.relu(agg(h @ w1) + b1)
        h = F.dropout(h, 0.5, training)
        return agg(h @ w2) + b2

    def step():
        opt.zero_grad()
        F.cross_entropy(forward(True)[train], y[train]).backward()
        opt.step()
    return forward, step


aggs = {}
def get_agg(k):
    if k not in aggs:
        aggs[k] = make_agg(k, n, n, dst, src, w)
    return aggs[k]


kind, tried = pick(args.get("aggs", ["coo", "csr", "index_add"]), lambda k: model(0, get_agg(k))[1])
agg = get_agg(kind)
_, step = model(0, agg)
for _ in range(args["warmup"]):
    step()
times = []
for _ in range(args["reps"]):
    t0 = time.perf_counter()
    step()
    times.append(time.perf_counter() - t0)

accs = []
for seed in range(args.get("acc_seeds", 0)):
    forward, step = model(seed, agg)
    for _ in range(args["epochs"]):
        step()
    with torch.no_grad():
        pred = forward(False).argmax(1)
        accs.append(float((pred[test] == y[test]).float().mean()))
print(json.dumps({"times": times, "accs": accs, "agg": kind, "tried": tried,
                  "threads": torch.get_num_threads()}))
