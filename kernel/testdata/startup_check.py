"""Time jupyter_client's start_new_kernel, from the call to wait_for_ready
returning, as notebooks and nbclient start a kernel.

Usage: python3 startup_check.py N KERNEL_NAME...
(the kernelspecs must be on JUPYTER_PATH; a name that is not installed is
skipped). Prints one line per kernel: the median, min and max of N starts.
wait_for_ready ends after 0.2 s without IOPub messages, so no kernel starts
in less than about 0.25 s.
"""
import statistics
import sys
import time

from jupyter_client.kernelspec import NoSuchKernel
from jupyter_client.manager import start_new_kernel

n = int(sys.argv[1])
for name in sys.argv[2:]:
    ts = []
    try:
        for _ in range(n):
            t0 = time.time()
            km, kc = start_new_kernel(kernel_name=name, startup_timeout=60)
            ts.append(time.time() - t0)
            kc.stop_channels()
            km.shutdown_kernel(now=True)
    except NoSuchKernel:
        print(f"{name}: not installed")
        continue
    print(f"{name}: start_new_kernel to ready: median {statistics.median(ts):.3f}s, min {min(ts):.3f}s, max {max(ts):.3f}s over {n} starts")
