"""Reference learning-rate sequences for the scheduler tests.

Run with Debian's python3-torch (1.13):  /usr/bin/python3 optim/testdata/schedulers.py
It writes optim/testdata/schedulers.json: for each torch.optim.lr_scheduler
configuration, the learning rate of every parameter group (and, for
OneCycleLR, the momentum or beta1) after construction and after each of the
scheduler's steps, called after optimizer.step() as torch requires.
"""
import json
import math
import os
import warnings

import torch
from torch.optim import lr_scheduler as S

warnings.simplefilter("ignore")

GROUP_LRS = [0.1, 0.01]
N = 40
# A loss that improves, stalls, improves a little (below and above the
# relative threshold), stalls again: exercises patience, cooldown, threshold.
PLATEAU = [1.0, 0.9, 0.8, 0.8, 0.8, 0.8, 0.79995, 0.8, 0.7, 0.7, 0.7, 0.7, 0.7,
           0.7, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6,
           0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5]

CONFIGS = [
    ("StepLR/3", "StepLR", dict(step_size=3)),
    ("StepLR/5,0.5", "StepLR", dict(step_size=5, gamma=0.5)),
    ("MultiStepLR", "MultiStepLR", dict(milestones=[2, 5, 5, 11, 30], gamma=0.3)),
    ("ExponentialLR", "ExponentialLR", dict(gamma=0.93)),
    ("CosineAnnealingLR/10", "CosineAnnealingLR", dict(T_max=10)),
    ("CosineAnnealingLR/7,eta", "CosineAnnealingLR", dict(T_max=7, eta_min=0.001)),
    ("LinearLR/default", "LinearLR", dict()),
    ("LinearLR/warmup", "LinearLR", dict(start_factor=0.01, end_factor=1.0, total_iters=10)),
    ("LinearLR/decay", "LinearLR", dict(start_factor=1.0, end_factor=0.2, total_iters=25)),
    ("ReduceLROnPlateau/default", "ReduceLROnPlateau", dict()),
    ("ReduceLROnPlateau/p2,c1", "ReduceLROnPlateau", dict(patience=2, cooldown=1, factor=0.5, min_lr=0.004)),
    ("ReduceLROnPlateau/abs", "ReduceLROnPlateau", dict(patience=1, threshold=0.05, threshold_mode="abs")),
    ("ReduceLROnPlateau/max", "ReduceLROnPlateau", dict(mode="max", patience=1, factor=0.7)),
    ("ReduceLROnPlateau/p0", "ReduceLROnPlateau", dict(patience=0, factor=0.9, eps=1e-3)),
    ("OneCycleLR/default", "OneCycleLR", dict(max_lr=0.5, total_steps=N)),
    ("OneCycleLR/epochs", "OneCycleLR", dict(max_lr=[0.4, 0.04], epochs=4, steps_per_epoch=10, pct_start=0.25)),
    ("OneCycleLR/linear,3phase", "OneCycleLR", dict(max_lr=0.3, total_steps=N, anneal_strategy="linear", three_phase=True,
                                                     div_factor=10, final_div_factor=100)),
    ("OneCycleLR/nomomentum", "OneCycleLR", dict(max_lr=0.2, total_steps=N, cycle_momentum=False)),
    ("OneCycleLR/adam", "OneCycleLR", dict(max_lr=0.05, total_steps=N, base_momentum=0.8, max_momentum=0.9)),
    ("SequentialLR/warmup+cosine", "SequentialLR", dict(
        schedulers=[("LinearLR", dict(start_factor=0.1, total_iters=5)), ("CosineAnnealingLR", dict(T_max=30, eta_min=0.0005))],
        milestones=[5])),
    ("SequentialLR/three", "SequentialLR", dict(
        schedulers=[("ExponentialLR", dict(gamma=0.9)), ("StepLR", dict(step_size=3, gamma=0.5)),
                    ("MultiStepLR", dict(milestones=[0, 2, 4], gamma=0.5))],
        milestones=[4, 10])),
    ("SequentialLR/onecycle", "SequentialLR", dict(
        schedulers=[("LinearLR", dict(start_factor=0.5, total_iters=3)), ("OneCycleLR", dict(max_lr=0.3, total_steps=50))],
        milestones=[6])),
]


def momenta(opt):
    out = []
    for g in opt.param_groups:
        out.append(g["betas"][0] if "betas" in g else g["momentum"])
    return out


def lrs(opt):
    return [g["lr"] for g in opt.param_groups]


out = []
for name, kind, opts in CONFIGS:
    torch.manual_seed(0)
    w = torch.zeros(2, requires_grad=True)
    b = torch.zeros(1, requires_grad=True)
    optname = "Adam" if name.endswith("adam") else "SGD"
    groups = [dict(params=[w], lr=GROUP_LRS[0]), dict(params=[b], lr=GROUP_LRS[1])]
    if optname == "Adam":
        opt = torch.optim.Adam(groups)
    else:
        opt = torch.optim.SGD(groups, lr=GROUP_LRS[0], momentum=0.9)
    if kind == "SequentialLR":
        subs = [getattr(S, k)(opt, **o) for k, o in opts["schedulers"]]
        sched = S.SequentialLR(opt, subs, milestones=opts["milestones"])
    else:
        sched = getattr(S, kind)(opt, **opts)
    seq, mom = [lrs(opt)], [momenta(opt)]
    metrics = PLATEAU if kind == "ReduceLROnPlateau" else None
    for i in range(N):
        opt.zero_grad()
        ((w.sum() + b.sum()) ** 2).backward()
        opt.step()
        if metrics:
            sched.step(metrics[i])
        else:
            sched.step()
        seq.append(lrs(opt))
        mom.append(momenta(opt))
    rec = dict(name=name, kind=kind, optimizer=optname, opts=opts, group_lrs=GROUP_LRS, steps=N, lrs=seq)
    rec["last_epoch"] = sched.last_epoch
    if kind == "OneCycleLR" or name == "SequentialLR/onecycle":
        rec["momentum"] = mom
    if kind == "OneCycleLR":
        # One step too many is an error.
        try:
            sched.step()
            sched.step()
            rec["overstep_error"] = False
        except ValueError:
            rec["overstep_error"] = True
    if metrics:
        rec["metrics"] = metrics
    out.append(rec)

path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "schedulers.json")
with open(path, "w") as f:
    json.dump(dict(torch=torch.__version__, configs=out), f, indent=1)
    f.write("\n")
print("wrote", path, len(out), "configurations")
