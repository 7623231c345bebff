"""Reference trajectories for the optimizer tests.

Run with Debian's python3-torch (1.13):  /usr/bin/python3 optim/testdata/reference.py
It writes optim/testdata/reference.json: for each torch.optim configuration,
the parameters after each of 5 steps on loss = mean((x W + b - y)^2).
"""
import json
import os

import torch

torch.manual_seed(0)
x = torch.rand(4, 3) * 2 - 1
y = torch.rand(4, 2) * 2 - 1
W0 = torch.rand(3, 2) * 2 - 1
b0 = torch.rand(2) * 2 - 1

CONFIGS = [
    ("SGD/plain", "SGD", dict(lr=0.1), None),
    ("SGD/momentum", "SGD", dict(lr=0.1, momentum=0.9), None),
    ("SGD/dampening+wd", "SGD", dict(lr=0.05, momentum=0.9, dampening=0.1, weight_decay=0.01), None),
    ("SGD/nesterov", "SGD", dict(lr=0.05, momentum=0.8, nesterov=True, weight_decay=0.05), None),
    ("SGD/maximize", "SGD", dict(lr=0.01, momentum=0.5, maximize=True), None),
    ("Adam/default", "Adam", dict(lr=0.01), None),
    ("Adam/wd+amsgrad", "Adam", dict(lr=0.01, weight_decay=0.1, amsgrad=True), None),
    ("Adam/betas+eps", "Adam", dict(lr=0.02, betas=(0.8, 0.99), eps=1e-6), None),
    ("AdamW/wd", "AdamW", dict(lr=0.01, weight_decay=0.1), None),
    ("AdamW/amsgrad", "AdamW", dict(lr=0.03, weight_decay=0.2, amsgrad=True), None),
    # Kipf & Welling style groups: decay on W only, a larger lr for b.
    ("Adam/groups", "Adam", dict(lr=0.01), [dict(weight_decay=5e-4), dict(lr=0.05)]),
]

out = []
for name, kind, opts, groups in CONFIGS:
    W = W0.clone().requires_grad_()
    b = b0.clone().requires_grad_()
    cls = getattr(torch.optim, kind)
    if groups:
        opt = cls([dict(params=[W], **groups[0]), dict(params=[b], **groups[1])], **opts)
    else:
        opt = cls([W, b], **opts)
    steps = []
    for _ in range(5):
        opt.zero_grad()
        loss = ((x @ W + b - y) ** 2).mean()
        loss.backward()
        opt.step()
        steps.append(dict(W=[float(v) for v in W.detach().reshape(-1)], b=[float(v) for v in b.detach()]))
    out.append(dict(name=name, kind=kind, opts={k: (list(v) if isinstance(v, tuple) else v) for k, v in opts.items()},
                    groups=groups, steps=steps))

flat = lambda t: [float(v) for v in t.reshape(-1)]
here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "reference.json"), "w") as f:
    json.dump(dict(torch=torch.__version__, x=flat(x), y=flat(y), W0=flat(W0), b0=flat(b0), configs=out), f)
print(len(out), "configs")
