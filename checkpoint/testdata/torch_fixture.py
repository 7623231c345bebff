"""PyTorch fixture for checkpoint's interop test (TestTorchFixture).

Run with Debian's python3-torch (1.13):
    /usr/bin/python3 checkpoint/testdata/torch_fixture.py
It writes, next to this script:
  sage.safetensors  the state_dict of a 2-layer DGL-style GraphSAGE (mean)
  gcn.safetensors   the state_dict of a 2-layer DGL-style GCN (GraphConv)
  io.safetensors    the graph (src, dst), the input features x and both
                    models' outputs (sage_out, gcn_out) in eval mode.

DGL is not installable here, so the layers are plain torch modules that
mirror DGL's SAGEConv and GraphConv (python/dgl/nn/pytorch/conv/
{sageconv,graphconv}.py): the same parameter names and layouts (nn.Linear
weights (out, in); GraphConv's weight (in, out)), the same formulas. The
Python safetensors package is not installed either, so the files are
written by hand below, in the safetensors format: an 8-byte little-endian
header length, a JSON header padded with spaces to a multiple of 8, and
the raw little-endian data. The output equals safetensors.torch.save_file's
up to the order of the tensors in the data.
"""
import json
import os
import struct

import torch
import torch.nn as tnn

torch.manual_seed(0)
HERE = os.path.dirname(os.path.abspath(__file__))

# A small directed graph where every node has an in-edge (GraphConv refuses
# zero in-degree nodes, as DGL's does by default); edges unsorted.
N = 9
SRC = [0, 1, 2, 3, 4, 5, 6, 7, 8, 0, 2, 4, 6, 8, 1, 3, 5, 7, 8, 2]
DST = [1, 2, 3, 4, 5, 6, 7, 8, 0, 4, 6, 8, 1, 3, 5, 7, 0, 2, 2, 2]
src, dst = torch.tensor(SRC), torch.tensor(DST)
F_IN, HID, OUT = 5, 7, 3


def mean_neigh(h):
    out = torch.zeros(N, h.shape[1]).index_add(0, dst, h[src])
    deg = torch.bincount(dst, minlength=N).clamp(min=1).float().unsqueeze(1)
    return out / deg


class SAGEConv(tnn.Module):  # dgl.nn.SAGEConv(in, out, "mean")
    def __init__(self, i, o):
        super().__init__()
        self.fc_self = tnn.Linear(i, o, bias=False)
        self.fc_neigh = tnn.Linear(i, o, bias=False)
        self.bias = tnn.Parameter(torch.randn(o))

    def forward(self, x):
        return self.fc_self(x) + self.fc_neigh(mean_neigh(x)) + self.bias


class GraphConv(tnn.Module):  # dgl.nn.GraphConv(in, out, norm="both")
    def __init__(self, i, o):
        super().__init__()
        self.weight = tnn.Parameter(torch.randn(i, o) / i ** 0.5)
        self.bias = tnn.Parameter(torch.randn(o))

    def forward(self, x):
        dout = torch.bincount(src, minlength=N).clamp(min=1).float()
        din = torch.bincount(dst, minlength=N).clamp(min=1).float()
        h = x * dout.pow(-0.5).unsqueeze(1)
        h = torch.zeros(N, h.shape[1]).index_add(0, dst, h[src]) @ self.weight
        return h * din.pow(-0.5).unsqueeze(1) + self.bias


class Stack(tnn.Module):  # ReLU between layers; dropout is off in eval mode
    def __init__(self, layer):
        super().__init__()
        self.layers = tnn.ModuleList([layer(F_IN, HID), layer(HID, OUT)])

    def forward(self, x):
        h = torch.relu(self.layers[0](x))
        return self.layers[1](h)


DTYPES = {torch.float32: "F32", torch.int64: "I64", torch.float16: "F16"}


def save_file(tensors, path, metadata=None):
    header, blobs, off = {}, [], 0
    if metadata:
        header["__metadata__"] = metadata
    for name in sorted(tensors):
        t = tensors[name].detach().contiguous()
        b = t.numpy().astype(t.numpy().dtype.newbyteorder("<")).tobytes()
        header[name] = {"dtype": DTYPES[t.dtype], "shape": list(t.shape), "data_offsets": [off, off + len(b)]}
        blobs.append(b)
        off += len(b)
    js = json.dumps(header, separators=(",", ":")).encode()
    js += b" " * (-len(js) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(js)))
        f.write(js)
        for b in blobs:
            f.write(b)


sage, gcn = Stack(SAGEConv).eval(), Stack(GraphConv).eval()
x = torch.randn(N, F_IN)
with torch.no_grad():
    sage_out, gcn_out = sage(x), gcn(x)
meta = {"format": "pt"}
save_file(sage.state_dict(), os.path.join(HERE, "sage.safetensors"), meta)
# One tensor in float16, to check the conversion on load (torch's
# load_state_dict copies into the float32 parameter).
gsd = gcn.state_dict()
gsd["layers.1.bias"] = gsd["layers.1.bias"].half()
with torch.no_grad():
    gcn.layers[1].bias.copy_(gsd["layers.1.bias"].float())
    gcn_out = gcn(x)
save_file(gsd, os.path.join(HERE, "gcn.safetensors"), meta)
save_file({"src": src, "dst": dst, "x": x, "sage_out": sage_out, "gcn_out": gcn_out},
          os.path.join(HERE, "io.safetensors"), meta)
print("sage keys:", list(sage.state_dict()))
print("gcn keys:", list(gsd))
