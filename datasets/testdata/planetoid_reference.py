# Golden values for datasets/golden_test.go.
#
# load_data and preprocess_features are those of tkipf/gcn gcn/utils.py
# (Kipf & Welling, ICLR 2017), run on the original Planetoid files in the
# shared data folder. Run with Debian's python3-numpy (1.24), python3-scipy
# (1.10) and python3-networkx (2.8):
#
#     /usr/bin/python3 datasets/testdata/planetoid_reference.py [DATA_DIR]
#
# It prints, per dataset, sha256 of the little-endian bytes of: the adjacency
# COO (row, col as int64, sorted by (row, col)), the dense features (float32),
# argmax labels (int64), sorted idx_test (int64) and the row-normalised
# features (float32).
import sys, pickle as pkl, hashlib, json
import numpy as np, scipy.sparse as sp, networkx as nx

D = sys.argv[1] if len(sys.argv) > 1 else '/work/shared/data'
def parse_index_file(filename):
    return [int(l.strip()) for l in open(filename)]

def load_data(ds):
    objs = []
    for n in ['x', 'y', 'tx', 'ty', 'allx', 'ally', 'graph']:
        with open(f"{D}/{ds}/ind.{ds}.{n}", 'rb') as f:
            objs.append(pkl.load(f, encoding='latin1'))
    x, y, tx, ty, allx, ally, graph = objs
    test_idx_reorder = parse_index_file(f"{D}/{ds}/ind.{ds}.test.index")
    test_idx_range = np.sort(test_idx_reorder)
    if ds == 'citeseer':
        full = range(min(test_idx_reorder), max(test_idx_reorder)+1)
        tx_extended = sp.lil_matrix((len(full), x.shape[1]))
        tx_extended[test_idx_range-min(test_idx_range), :] = tx
        tx = tx_extended
        ty_extended = np.zeros((len(full), y.shape[1]))
        ty_extended[test_idx_range-min(test_idx_range), :] = ty
        ty = ty_extended
    features = sp.vstack((allx, tx)).tolil()
    features[test_idx_reorder, :] = features[test_idx_range, :]
    adj = nx.adjacency_matrix(nx.from_dict_of_lists(graph))
    labels = np.vstack((ally, ty))
    labels[test_idx_reorder, :] = labels[test_idx_range, :]
    return adj, features, labels, list(range(len(y))), list(range(len(y), len(y)+500)), test_idx_range.tolist()

def preprocess_features(features):
    rowsum = np.array(features.sum(1))
    r_inv = np.power(rowsum, -1).flatten()
    r_inv[np.isinf(r_inv)] = 0.
    return sp.diags(r_inv).dot(features)

def h(a): return hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()
out = {}
for ds in ['cora', 'citeseer', 'pubmed']:
    adj, features, labels, tr, va, te = load_data(ds)
    coo = sp.coo_matrix(adj); order = np.lexsort((coo.col, coo.row))
    src = coo.row[order].astype('<i8'); dst = coo.col[order].astype('<i8')
    feat = np.asarray(features.todense()).astype('<f4')
    norm = np.asarray(preprocess_features(features).todense()).astype('<f4')
    lab = np.argmax(labels, 1).astype('<i8')
    out[ds] = dict(dtype=str(features.dtype), n=feat.shape[0], edges=len(src), src=h(src), dst=h(dst), feat=h(feat),
                   labels=h(lab), test=h(np.array(te, '<i8')), norm=h(norm),
                   tr=len(tr), va=len(va))
print(json.dumps(out, indent=1))
