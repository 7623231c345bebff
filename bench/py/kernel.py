"""Workload (e) of bench/: Jupyter kernel startup and execute round trip,
gnnrepl's kernel against Debian's ipykernel, driven by jupyter_client.

For each kernel (args["kernels"]: a list of {"name", "argv"} where argv is
the kernelspec's argv with "{connection_file}"):

  startup     from just before the kernel process is spawned to the first
              kernel_info_reply on the shell channel with IOPub delivering
              (the client asks every 10 ms until both hold; this is what a
              notebook waits for before it shows the kernel as ready). The process is started
              directly with the kernelspec's argv, so jupyter_client's
              KernelManager bookkeeping (the same for both kernels) is left
              out.
  first cell  from spawn to the idle status after the first execute_request
              ("1+1"), which for gnnrepl includes the session's prelude.
  round trip  the median, over args["reps"] requests after args["warmup"],
              of execute_request("1+1") sent to status idle received on
              IOPub, through jupyter_client's execute_interactive (what
              jupyter console and nbclient use), and again ("raw") through
              BlockingKernelClient.execute and get_iopub_msg / get_shell_msg
              alone, which leaves out execute_interactive's asyncio polling.

Prints one JSON line: {name: {startup, first_cell, round_trip, rts}} in
seconds, plus per-run startups.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

from jupyter_client import BlockingKernelClient
from jupyter_client.connect import write_connection_file

args = json.loads(sys.argv[1])


def ready(kc, timeout):
    """Asks kernel_info every 10 ms until a reply has arrived on shell and
    a message (iopub_welcome or a status) on IOPub, so that the client
    cannot miss the output of its first request (ZeroMQ's slow joiner:
    a subscriber that connects late misses what was published before, as
    jupyter_client's wait_for_ready also handles). Returns the time both
    held."""
    deadline = time.perf_counter() + timeout
    shell = iopub = False
    while time.perf_counter() < deadline:
        kc.kernel_info()
        t_end = time.perf_counter() + 0.01
        while time.perf_counter() < t_end:
            for get in (kc.get_shell_msg, kc.get_iopub_msg):
                try:
                    m = get(timeout=0.001)
                except Exception:
                    continue
                if m["msg_type"] == "kernel_info_reply":
                    shell = True
                elif m["msg_type"] in ("iopub_welcome", "status"):
                    iopub = True
            if shell and iopub:
                return time.perf_counter()
    raise RuntimeError("kernel not ready within %s s" % timeout)


def drain(kc):
    while True:
        try:
            kc.get_iopub_msg(timeout=0.05)
        except Exception:
            return


def one(spec, tmp, reps, warmup):
    cf = os.path.join(tmp, "kernel-%s.json" % spec["name"])
    write_connection_file(cf, ip="127.0.0.1", key=os.urandom(16).hex().encode())
    argv = [a.replace("{connection_file}", cf) for a in spec["argv"]]
    kc = BlockingKernelClient(connection_file=cf)
    kc.load_connection_file()
    kc.start_channels()
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        t_ready = ready(kc, 60)
        kc.execute_interactive("1+1", timeout=120, output_hook=lambda m: None)
        t_first = time.perf_counter()
        drain(kc)
        rts, raw = [], []
        for i in range(warmup + reps):
            t = time.perf_counter()
            kc.execute_interactive("1+1", timeout=30, output_hook=lambda m: None)
            if i >= warmup:
                rts.append(time.perf_counter() - t)
        for i in range(warmup + reps):
            t = time.perf_counter()
            mid = kc.execute("1+1")
            while True:
                m = kc.get_iopub_msg(timeout=30)
                if (m["parent_header"].get("msg_id") == mid and m["msg_type"] == "status"
                        and m["content"]["execution_state"] == "idle"):
                    break
            kc.get_shell_msg(timeout=30)
            if i >= warmup:
                raw.append(time.perf_counter() - t)
        kc.shutdown()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
    finally:
        kc.stop_channels()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return t_ready - t0, t_first - t0, rts, raw


out = {}
with tempfile.TemporaryDirectory() as tmp:
    for spec in args["kernels"]:
        starts, firsts, rts, raws = [], [], [], []
        for run in range(args["runs"]):
            s, f, r, w = one(spec, tmp, args["reps"], args["warmup"])
            starts.append(s)
            firsts.append(f)
            rts.extend(r)
            raws.extend(w)
        out[spec["name"]] = {
            "startup": statistics.median(starts),
            "startups": starts,
            "first_cell": statistics.median(firsts),
            "round_trip": statistics.median(rts),
            "round_trip_p90": sorted(rts)[int(0.9 * (len(rts) - 1))],
            "round_trip_raw": statistics.median(raws),
        }
print(json.dumps(out))
