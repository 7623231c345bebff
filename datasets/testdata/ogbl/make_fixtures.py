#!/usr/bin/python3
"""Writes the tiny OGB link-prediction fixtures of datasets/ogbl_test.go.

Run from this folder with torch 1.13 (the repository's /usr/bin/python3):

    cd datasets/testdata/ogbl && /usr/bin/python3 make_fixtures.py

Each folder has the layout that the ogb package (ogb/linkproppred/dataset.py,
ogb/io/read_graph_raw.py) reads after download: headerless gzipped CSVs
under raw/ and split/<split>/{train,valid,test}.pt written by torch.save.
The three fixtures cover the three ways the published split files hold
their arrays:

  ogbl_collab     torch tensors, zip container (torch >= 1.6); "edge" is
                  saved as a transposed view (edge_index.t(), strides
                  (1, M)), as a split built from an edge_index would be.
  ogbl_ddi        torch tensors, legacy container
                  (_use_new_zipfile_serialization=False, torch < 1.6).
  ogbl_citation2  numpy arrays (ogb's DatasetSaver requires numpy; ogb's
                  loaders call replace_numpy_with_torchtensor).

The values are small and written out below so the Go test can state them.
The zip files and gzipped CSVs come out byte for byte the same on every run;
the legacy files do not (torch names their storages by memory address), so
rerunning changes their bytes but not their contents.
"""
import gzip
import os

import numpy as np
import torch


def write_csv(path, rows):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    text = "".join(",".join(str(v) for v in r) + "\n" for r in rows)
    with open(path, "wb") as f:
        # mtime=0 keeps the bytes reproducible.
        f.write(gzip.compress(text.encode(), mtime=0))


def write_raw(root, n, edges, node_feat=None, extra=None):
    raw = os.path.join(root, "raw")
    write_csv(os.path.join(raw, "num-node-list.csv.gz"), [[n]])
    write_csv(os.path.join(raw, "num-edge-list.csv.gz"), [[len(edges)]])
    write_csv(os.path.join(raw, "edge.csv.gz"), edges)
    if node_feat is not None:
        write_csv(os.path.join(raw, "node-feat.csv.gz"), node_feat)
    for name, vals in (extra or {}).items():
        write_csv(os.path.join(raw, name + ".csv.gz"), [[v] for v in vals])


def save(obj, path, legacy=False):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    torch.save(obj, path, _use_new_zipfile_serialization=not legacy)


# ogbl-collab: 6 authors, 2-d features, weighted yearly collaborations.
collab_edges = [[0, 1], [1, 2], [2, 3], [3, 4], [0, 2]]
collab_weight = [1, 2, 1, 3, 1]
collab_year = [2010, 2011, 2012, 2013, 2014]
write_raw("ogbl_collab", 6, collab_edges,
          node_feat=[[0.5, -1], [1, 2], [0.25, 0], [3, 4], [-2, 1.5], [7, 8]],
          extra={"edge_weight": collab_weight, "edge_year": collab_year})
train_ei = torch.tensor(collab_edges, dtype=torch.long).t().contiguous()  # (2, M)
save({"edge": train_ei.t(),  # (M, 2) view with strides (1, M)
      "weight": torch.tensor(collab_weight, dtype=torch.long),
      "year": torch.tensor(collab_year, dtype=torch.long)},
     "ogbl_collab/split/time/train.pt")
save({"edge": torch.tensor([[4, 5], [1, 3]]),
      "weight": torch.tensor([2, 1]),
      "year": torch.tensor([2018, 2018]),
      "edge_neg": torch.tensor([[0, 5], [2, 5], [1, 4]])},
     "ogbl_collab/split/time/valid.pt")
save({"edge": torch.tensor([[0, 3], [2, 4], [5, 1]]),
      "weight": torch.tensor([1, 1, 4]),
      "year": torch.tensor([2019, 2019, 2019]),
      "edge_neg": torch.tensor([[0, 4], [3, 5]])},
     "ogbl_collab/split/time/test.pt")

# ogbl-ddi: 5 drugs, no features, legacy container.
write_raw("ogbl_ddi", 5, [[0, 1], [1, 2], [3, 4]])
save({"edge": torch.tensor([[0, 1], [1, 2], [3, 4]])}, "ogbl_ddi/split/target/train.pt", legacy=True)
save({"edge": torch.tensor([[0, 2]]), "edge_neg": torch.tensor([[0, 3], [1, 4]])},
     "ogbl_ddi/split/target/valid.pt", legacy=True)
save({"edge": torch.tensor([[2, 3], [0, 4]]), "edge_neg": torch.tensor([[1, 3]])},
     "ogbl_ddi/split/target/test.pt", legacy=True)

# ogbl-citation2: 6 papers, directed citations, node_year, numpy arrays,
# 3 negative targets per validation/test source.
write_raw("ogbl_citation2", 6, [[1, 0], [2, 0], [2, 1], [3, 2], [4, 3]],
          node_feat=[[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 0], [0, 1, 1], [1, 0, 1]],
          extra={"node_year": [2000, 2001, 2002, 2003, 2004, 2005]})
save({"source_node": np.array([1, 2, 2, 3, 4], dtype=np.int64),
      "target_node": np.array([0, 0, 1, 2, 3], dtype=np.int64)},
     "ogbl_citation2/split/time/train.pt")
save({"source_node": np.array([5], dtype=np.int64),
      "target_node": np.array([4], dtype=np.int64),
      "target_node_neg": np.array([[0, 1, 2]], dtype=np.int64)},
     "ogbl_citation2/split/time/valid.pt")
save({"source_node": np.array([5, 4], dtype=np.int64),
      "target_node": np.array([2, 1], dtype=np.int64),
      # Fortran order checks the column-major path of the reader.
      "target_node_neg": np.asfortranarray(np.array([[0, 3, 4], [0, 2, 5]], dtype=np.int64))},
     "ogbl_citation2/split/time/test.pt")

# Split files with bad contents, one per case of
# TestOGBLinkPropSplitContents (each replaces ogbl_ddi's valid.pt there).
L = torch.long
bad = {
    "no_positives": {"edge_neg": torch.tensor([[0, 1]])},
    "edge_shape": {"edge": torch.tensor([[0], [1]])},
    "edge_range": {"edge": torch.tensor([[0, 9]])},
    "negative_id": {"edge": torch.tensor([[-1, 0]])},
    "float_ids": {"edge": torch.tensor([[0.0, 1.0]])},
    "extra_rows": {"edge": torch.tensor([[0, 1]]), "weight": torch.tensor([1, 1])},
    "source_target": {"source_node": np.array([0, 1]), "target_node": np.array([1])},
    "neg_rows": {"source_node": np.array([0]), "target_node": np.array([1]),
                 "target_node_neg": np.array([[1], [2]])},
    "kg": {"head": torch.tensor([0]), "relation": torch.tensor([0]), "tail": torch.tensor([1])},
    "not_a_dict": [torch.tensor([[0, 1]])],
    "int32_float64": {"edge": torch.tensor([[0, 1]], dtype=torch.int32),
                      "weight": torch.tensor([0.5], dtype=torch.float64)},
}
for name, obj in bad.items():
    save(obj, os.path.join("bad", name + ".pt"), legacy=True)  # smaller

# Tensors of every storage dtype, views (an offset, two views of one
# storage, a permuted 3-d tensor) and numpy dtypes, in both containers,
# for TestReadTorchDictDTypes.
base = torch.arange(12, dtype=torch.long)
misc = {
    "sliced": base[3:7],                        # storage offset 3
    "shared_a": base.view(3, 4)[:, 1],          # strides (4,), offset 1
    "shared_b": base.view(3, 4)[1:, ::2],       # offset 4, strides (4, 2)
    "permuted": torch.arange(24, dtype=torch.int32).view(2, 3, 4).permute(2, 0, 1),
    "half": torch.tensor([0.5, -2.0, 65504.0], dtype=torch.float16),
    "double": torch.tensor([1.25, -3.5], dtype=torch.float64),
    "bool": torch.tensor([True, False, True]),
    "uint8": torch.tensor([0, 255], dtype=torch.uint8),
    "int8": torch.tensor([-128, 127], dtype=torch.int8),
    "int16": torch.tensor([-300, 300], dtype=torch.int16),
    "float": torch.tensor([[1.5, 2.5]], dtype=torch.float32),
    "empty": torch.zeros(0, 2, dtype=torch.long),
    "np_f4": np.array([0.25, -1.0], dtype=np.float32),
    "np_f8": np.array([[1.0], [2.5]], dtype=np.float64),
    "np_i4": np.array([-7, 7], dtype=np.int32),
    "np_b1": np.array([False, True]),
    "np_u1": np.array([3, 200], dtype=np.uint8),
}
save(misc, "misc/dtypes_zip.pt")
save(misc, "misc/dtypes_legacy.pt", legacy=True)
