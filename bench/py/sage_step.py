"""Workload (b) of bench/: one GraphSAGE-mean training step on the blocks
gnnrepl sampled and wrote to args["dir"] (layout in bench/sage.go).

Layer i on block i (DGL's SAGEConv, aggregator "mean"):
  h_dst = h[:num_dst]
  out   = h_dst @ W_self + mean_{j in N(d)} h_j @ W_neigh + b
with W_neigh applied before the aggregation when in > out (as gnnrepl and
DGL do), ReLU between layers, no dropout; loss = cross-entropy on the
seeds; Adam (lr, weight decay from the manifest).

Prints one JSON line: the losses of the first two steps from the initial
weights, and the times of args["reps"] steps after args["warmup"].
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
man = json.load(open(f"{d}/manifest.json"))
x, y = load(f"{d}/feat.npy"), load(f"{d}/label.npy")
blocks = []
for i, b in enumerate(man["blocks"]):
    indptr, indices = load(f"{d}/block{i}_indptr.npy"), load(f"{d}/block{i}_indices.npy")
    deg = indptr[1:] - indptr[:-1]
    dst = torch.repeat_interleave(torch.arange(b["num_dst"]), deg)
    val = (1.0 / deg.clamp(min=1).float())[dst]
    blocks.append((b["num_src"], b["num_dst"], dst, indices, val))
init = {p["name"]: load(f"{d}/param_{p['name']}.npy") for p in man["params"]}
nl = len(blocks)


def build(kind):
    aggs = [make_agg(kind, nd, ns, dst, src, val) for ns, nd, dst, src, val in blocks]
    p = {k: v.clone().requires_grad_() for k, v in init.items()}
    opt = torch.optim.Adam(list(p.values()), lr=man["lr"], weight_decay=man["weight_decay"])

    def step():
        h = x
        for i in range(nl):
            ws, wn, b = p[f"layers.{i}.fc_self.weight"], p[f"layers.{i}.fc_neigh.weight"], p[f"layers.{i}.bias"]
            nd = blocks[i][1]
            if wn.shape[0] > wn.shape[1]:
                neigh = aggs[i](h @ wn)
            else:
                neigh = aggs[i](h) @ wn
            h = h[:nd] @ ws + neigh + b
            if i < nl - 1:
                h = F.relu(h)
        loss = F.cross_entropy(h, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return float(loss)
    return step


kind, tried = pick(args.get("aggs", ["coo", "csr", "index_add"]), build)
step = build(kind)
losses = [step(), step()]
step = build(kind)
for _ in range(args["warmup"]):
    step()
times = []
for _ in range(args["reps"]):
    t0 = time.perf_counter()
    step()
    times.append(time.perf_counter() - t0)
print(json.dumps({"losses": losses, "times": times, "agg": kind, "tried": tried,
                  "threads": torch.get_num_threads()}))
