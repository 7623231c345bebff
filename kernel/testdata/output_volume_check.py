"""Count the stdout bytes a cell's output delivers through jupyter_client.

Usage: python3 output_volume_check.py KERNEL_NAME MIB [python3]
(the kernelspec must be on JUPYTER_PATH). The cell prints MIB lines of
1 MiB (1048575 'x' and a newline); the script counts the stdout bytes of
the stream messages until the kernel is idle, prints them with the
seconds from execute_request to idle, and exits non-zero unless all of
them arrived. With the third argument it does the same with ipykernel
(kernel "python3") for comparison.
"""
import sys
import time

from jupyter_client.manager import start_new_kernel

name, mib = sys.argv[1], int(sys.argv[2])
kernels = [(name, f'for i := 0; i < {mib}; i++ {{ fmt.Println(strings.Repeat("x", 1<<20-1)) }}')]
if len(sys.argv) > 3:
    kernels.append((sys.argv[3], f'import sys\nfor i in range({mib}):\n    sys.stdout.write("x" * (2**20 - 1) + "\\n")'))
failed = False
for kname, code in kernels:
    km, kc = start_new_kernel(kernel_name=kname, startup_timeout=60)
    try:
        if kname == name:
            kc.execute_interactive('import "strings"', timeout=60)
        got, other, notices = 0, 0, []
        start = time.monotonic()
        msg_id = kc.execute(code)
        while True:
            m = kc.get_iopub_msg(timeout=120)
            if m["parent_header"].get("msg_id") != msg_id:
                continue
            t = m["msg_type"]
            if t == "stream":
                text = m["content"]["text"]
                if m["content"]["name"] == "stdout":
                    x = text.count("x") + text.count("\n")
                    got += x
                    other += len(text) - x
                else:
                    notices.append(text[:200])
            elif t == "status" and m["content"]["execution_state"] == "idle":
                break
        secs = time.monotonic() - start
        reply = kc.get_shell_msg(timeout=60)
        want = mib << 20
        print(f"{kname}: {got} of {want} stdout bytes in {secs:.2f} s, status {reply['content']['status']}, stderr {notices[:3]}")
        if got != want or other:
            print(f"FAIL: {kname}: {want - got} bytes missing, {other} unexpected")
            failed = True
    finally:
        km.shutdown_kernel(now=True)
if failed:
    sys.exit(1)
print("all checks passed")
