"""Reference outputs and gradients for the nn layer tests.

Run with Debian's python3-torch (1.13):  /usr/bin/python3 nn/testdata/reference.py
It writes nn/testdata/reference.json. DGL itself is not installable here, so
the layers are written out below in plain torch from DGL's documented
formulas (python/dgl/nn/pytorch/conv/{graphconv,sageconv,gatconv}.py): an
independent second implementation that the Go layers must agree with.
Weights use gnnrepl's layout, (in_feats, out_feats).
"""
import json
import os

import torch

torch.manual_seed(0)
torch.set_default_dtype(torch.float32)

# Graphs: edge lists in edge-id order (deliberately not sorted by destination).
GRAPHS = {
    # DGL's GraphConv docstring graph; node 5 has no in-edge.
    "g": dict(num_src=6, num_dst=6, src=[0, 1, 2, 3, 2, 5], dst=[1, 2, 3, 4, 0, 3]),
    # The same with self loops appended (dgl.add_self_loop).
    "gsl": dict(num_src=6, num_dst=6, src=[0, 1, 2, 3, 2, 5, 0, 1, 2, 3, 4, 5],
                dst=[1, 2, 3, 4, 0, 3, 0, 1, 2, 3, 4, 5]),
    # A block: 7 source nodes, the first 3 are the destinations; every
    # destination has an in-edge.
    "blk": dict(num_src=7, num_dst=3, src=[3, 0, 4, 5, 1, 6, 2, 4, 0],
                dst=[0, 0, 1, 1, 1, 2, 2, 2, 2]),
}


def T(g, k):
    return torch.tensor(g[k], dtype=torch.long)


def spmm(g, h, reduce, e=None):
    src, dst, nd = T(g, "src"), T(g, "dst"), g["num_dst"]
    m = h[src]
    if e is not None:  # (E, H) edge values scaling H heads of h
        heads = e.shape[1]
        m = (m.view(len(src), heads, -1) * e.unsqueeze(-1)).reshape(len(src), -1)
    if reduce == "max":
        out = torch.zeros(nd, h.shape[1])
        idx = dst.unsqueeze(1).expand(-1, h.shape[1])
        out = out.scatter_reduce(0, idx, m, reduce="amax", include_self=False)
        return out
    out = torch.zeros(nd, m.shape[1]).index_add(0, dst, m)
    if reduce == "mean":
        deg = torch.bincount(dst, minlength=nd).clamp(min=1).float().unsqueeze(1)
        out = out / deg
    return out


def in_deg(g):
    return torch.bincount(T(g, "dst"), minlength=g["num_dst"]).float()


def out_deg(g):
    return torch.bincount(T(g, "src"), minlength=g["num_src"]).float()


def edge_softmax(g, e):
    dst, nd = T(g, "dst"), g["num_dst"]
    idx = dst.unsqueeze(1).expand(-1, e.shape[1])
    mx = torch.full((nd, e.shape[1]), -1e30).scatter_reduce(0, idx, e, reduce="amax", include_self=True)
    ex = torch.exp(e - mx[dst])
    s = torch.zeros(nd, e.shape[1]).index_add(0, dst, ex)
    return ex / s[dst]


def graphconv(g, x, p, o):
    norm = o.get("Norm", "both")
    h = x
    if norm in ("both", "left"):
        d = out_deg(g).clamp(min=1)
        h = h * (d.pow(-0.5) if norm == "both" else 1.0 / d).unsqueeze(1)
    W = p.get("weight")
    if W is not None and o["InFeats"] > o["OutFeats"]:
        rst = spmm(g, h @ W, "sum")
    else:
        rst = spmm(g, h, "sum")
        if W is not None:
            rst = rst @ W
    if norm in ("both", "right"):
        d = in_deg(g).clamp(min=1)
        rst = rst * (d.pow(-0.5) if norm == "both" else 1.0 / d).unsqueeze(1)
    if "bias" in p:
        rst = rst + p["bias"]
    if o.get("Activation") == "relu":
        rst = torch.relu(rst)
    return rst


def sageconv(g, x, p, o):
    agg = o.get("Aggregator", "mean")
    nd = g["num_dst"]
    lin = o["InFeats"] > o["OutFeats"]
    Wn = p["fc_neigh.weight"]
    if agg == "mean":
        src = x @ Wn if lin else x
        neigh = spmm(g, src, "mean")
        if not lin:
            neigh = neigh @ Wn
    elif agg == "gcn":
        src = x @ Wn if lin else x
        neigh = (spmm(g, src, "sum") + src[:nd]) / (in_deg(g).unsqueeze(1) + 1)
        if not lin:
            neigh = neigh @ Wn
    elif agg == "pool":
        src = torch.relu(x @ p["fc_pool.weight"] + p["fc_pool.bias"])
        neigh = spmm(g, src, "max") @ Wn
    rst = neigh if agg == "gcn" else x[:nd] @ p["fc_self.weight"] + neigh
    if "bias" in p:
        rst = rst + p["bias"]
    if o.get("Activation") == "relu":
        rst = torch.relu(rst)
    return rst


def gatconv(g, x, p, o):
    H, F = o["NumHeads"], o["OutFeats"]
    nd = g["num_dst"]
    fs = x @ p["fc.weight"]
    fd = fs[:nd]
    el = (fs.view(-1, H, F) * p["attn_l"]).sum(-1)
    er = (fd.view(-1, H, F) * p["attn_r"]).sum(-1)
    e = torch.nn.functional.leaky_relu(el[T(g, "src")] + er[T(g, "dst")], o.get("NegativeSlope", 0.2))
    a = edge_softmax(g, e)
    rst = spmm(g, fs, "sum", a)
    if o.get("Residual"):
        rst = rst + (x[:nd] @ p["res_fc.weight"] if "res_fc.weight" in p else x[:nd])
    if "bias" in p:
        rst = rst + p["bias"]
    if o.get("Activation") == "elu":
        rst = torch.nn.functional.elu(rst)
    if o.get("Merge") == "mean":
        rst = rst.view(nd, H, F).mean(1)
    return rst


def param_shapes(layer, o):
    i, f = o["InFeats"], o["OutFeats"]
    if layer == "GraphConv":
        s = {"weight": (i, f)}
        if not o.get("NoBias"):
            s["bias"] = (f,)
        return s
    if layer == "SAGEConv":
        agg = o.get("Aggregator", "mean")
        s = {"fc_neigh.weight": (i, f), "bias": (f,)}
        if agg != "gcn":
            s["fc_self.weight"] = (i, f)
        if agg == "pool":
            s["fc_pool.weight"] = (i, i)
            s["fc_pool.bias"] = (i,)
        return s
    if layer == "GATConv":
        H = o["NumHeads"]
        s = {"fc.weight": (i, H * f), "attn_l": (1, H, f), "attn_r": (1, H, f), "bias": (H * f,)}
        if o.get("Residual") and i != H * f:
            s["res_fc.weight"] = (i, H * f)
        return s


FN = {"GraphConv": graphconv, "SAGEConv": sageconv, "GATConv": gatconv}

CASES = []


def case(name, layer, graph, o):
    g = GRAPHS[graph]
    x = (torch.rand(g["num_src"], o["InFeats"]) * 2 - 1).requires_grad_()
    params = {k: (torch.rand(*s) * 2 - 1).requires_grad_() for k, s in sorted(param_shapes(layer, o).items())}
    out = FN[layer](g, x, params, o)
    R = torch.rand(*out.shape) * 2 - 1
    (out * R).sum().backward()
    flat = lambda t: [float(v) for v in t.detach().reshape(-1)]
    CASES.append(dict(
        name=name, layer=layer, graph=graph, opts=o,
        x=dict(shape=list(x.shape), data=flat(x)),
        params={k: dict(shape=list(v.shape), data=flat(v)) for k, v in params.items()},
        out=dict(shape=list(out.shape), data=flat(out)),
        R=dict(shape=list(R.shape), data=flat(R)),
        grad_x=flat(x.grad),
        grad_params={k: flat(v.grad) for k, v in params.items()},
    ))


for norm in ["both", "right", "left", "none"]:
    case(f"GraphConv/{norm}/in>out", "GraphConv", "gsl", dict(InFeats=5, OutFeats=3, Norm=norm))
    case(f"GraphConv/{norm}/in<out", "GraphConv", "gsl", dict(InFeats=3, OutFeats=4, Norm=norm, Activation="relu"))
case("GraphConv/zero-in-degree-allowed", "GraphConv", "g", dict(InFeats=4, OutFeats=2, AllowZeroInDegree=True))
case("GraphConv/block", "GraphConv", "blk", dict(InFeats=4, OutFeats=3, Norm="both"))
case("GraphConv/nobias", "GraphConv", "gsl", dict(InFeats=4, OutFeats=3, Norm="right", NoBias=True))

for agg in ["mean", "gcn", "pool"]:
    for graph in ["g", "blk"]:
        case(f"SAGEConv/{agg}/{graph}/in>out", "SAGEConv", graph, dict(InFeats=5, OutFeats=3, Aggregator=agg))
        case(f"SAGEConv/{agg}/{graph}/in<out", "SAGEConv", graph, dict(InFeats=3, OutFeats=4, Aggregator=agg, Activation="relu"))

case("GATConv/1head", "GATConv", "gsl", dict(InFeats=4, OutFeats=3, NumHeads=1))
case("GATConv/3heads/concat/elu", "GATConv", "gsl", dict(InFeats=4, OutFeats=2, NumHeads=3, Activation="elu"))
case("GATConv/2heads/mean", "GATConv", "gsl", dict(InFeats=5, OutFeats=3, NumHeads=2, Merge="mean"))
case("GATConv/residual-fc", "GATConv", "gsl", dict(InFeats=5, OutFeats=2, NumHeads=2, Residual=True))
case("GATConv/residual-identity", "GATConv", "gsl", dict(InFeats=4, OutFeats=2, NumHeads=2, Residual=True, NegativeSlope=0.1))
case("GATConv/block/2heads", "GATConv", "blk", dict(InFeats=4, OutFeats=3, NumHeads=2, Residual=True))

here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "reference.json"), "w") as f:
    json.dump(dict(torch=torch.__version__, graphs=GRAPHS, cases=CASES), f, indent=None, separators=(",", ":"))
print(len(CASES), "cases")
