"""Shared helpers of the bench/ PyTorch scripts (plain torch 1.13, no PyG/DGL).

Aggregation variants, all computing out = A @ x for a (n_dst, n_src) sparse
matrix A given as destination-major CSR (indptr, indices, values):

  coo       torch.sparse.mm on a coalesced COO tensor (autograd's own backward,
            which transposes A on every call)
  csr       a custom autograd.Function: forward A @ x, backward A^T @ g, both
            CSR tensors built once (what PyG's SparseTensor caches)
  index_add x[indices] * values, then index_add_ into the destinations; the
            backward is autograd's (a gather and a scatter)

pick() times each briefly and the scripts use the fastest, so PyTorch gets its
best plain-torch aggregation on this machine.
"""
import time

import numpy as np
import torch


def load(path):
    return torch.from_numpy(np.load(path))


class _CSRMM(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, at, x):
        ctx.at = at
        return torch.sparse.mm(a, x)

    @staticmethod
    def backward(ctx, g):
        return None, None, torch.sparse.mm(ctx.at, g)


def make_agg(kind, n_dst, n_src, dst, src, val):
    """Returns f(x) = A @ x with A[dst[e], src[e]] = val[e]."""
    if kind == "coo":
        a = torch.sparse_coo_tensor(torch.stack([dst, src]), val, (n_dst, n_src)).coalesce()
        return lambda x: torch.sparse.mm(a, x)
    if kind == "csr":
        a = torch.sparse_coo_tensor(torch.stack([dst, src]), val, (n_dst, n_src)).coalesce().to_sparse_csr()
        at = torch.sparse_coo_tensor(torch.stack([src, dst]), val, (n_src, n_dst)).coalesce().to_sparse_csr()
        return lambda x: _CSRMM.apply(a, at, x)
    if kind == "index_add":
        v = val.unsqueeze(1)

        def f(x):
            out = torch.zeros(n_dst, x.shape[1], dtype=x.dtype)
            return out.index_add(0, dst, x[src] * v)
        return f
    raise ValueError(kind)


def median(xs):
    return float(np.median(np.array(xs)))


def pick(kinds, make_step, tries=2):
    """Times make_step(kind)() a few times per kind; returns the fastest kind
    and its per-kind medians."""
    res = {}
    for k in kinds:
        try:
            step = make_step(k)
            step()
            ts = []
            for _ in range(tries):
                t0 = time.perf_counter()
                step()
                ts.append(time.perf_counter() - t0)
            res[k] = median(ts)
        except Exception as e:  # a variant this torch build lacks
            res[k] = float("inf")
    best = min(res, key=res.get)
    return best, res
