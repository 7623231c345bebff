"""Drive the gnnrepl kernel with jupyter_client through what a new user hit.

Usage: python3 jupyter_newuser_check.py KERNEL_NAME
(the kernelspec must be on JUPYTER_PATH). Prints one line per check and
exits non-zero at the first failure. Checks: a (value, error) result shows
its error; a nil pointer result is shown, not dereferenced; a call that
returns nothing shows nothing; top-level forms yaegi gets wrong work; after
interrupting a compiled call that cannot be interrupted (time.Sleep), later
cells are answered at once with a Busy error, and a restart recovers.
"""
import atexit
import sys
import time

from jupyter_client.manager import start_new_kernel

name = sys.argv[1]
km, kc = start_new_kernel(kernel_name=name, startup_timeout=60)
atexit.register(lambda: km.is_alive() and km.shutdown_kernel(now=True))


def check(cond, what):
    if not cond:
        print("FAIL:", what)
        km.shutdown_kernel(now=True)
        sys.exit(1)
    print("ok:", what)


def run(code, timeout=30):
    """Executes code; returns the reply content and the text/plain result."""
    outs = []
    reply = kc.execute_interactive(code, output_hook=outs.append, timeout=timeout)
    text = [m["content"]["data"]["text/plain"] for m in outs if m["msg_type"] == "execute_result"]
    return reply["content"], (text[0] if text else None)


def shell_reply(msg_id, timeout=30):
    while True:
        m = kc.get_shell_msg(timeout=timeout)
        if m["parent_header"].get("msg_id") == msg_id:
            return m["content"]


r, text = run('datasets.Planetoid("nope", "")')
check(r["status"] == "ok" and text.startswith("(*graph.Graph)(nil), error: datasets: invalid argument"), f"(value, error) result shows the error: {text!r}")
r, text = run('d, err := datasets.LoadPlanetoid("nope", "")')
check(r["status"] == "ok" and text is None, "tuple define shows nothing")
r, text = run("d")
check(r["status"] == "ok" and text == "(*datasets.Dataset)(nil)", f"nil pointer result: {text!r}")
r, _ = run("d.Graph")
check(r["status"] == "error" and any("nil pointer" in line for line in r["traceback"]), "nil field read has a hint")

r, text = run('loss := tensor.CrossEntropy(model.Forward(g, g.NData("feat")), g.NData("label"))\nloss.Backward()')
check(r["status"] == "ok" and text is None, f"loss.Backward() shows nothing: {text!r}")
r, text = run('tensor.CrossEntropy(model.Forward(g, g.NData("feat")), g.NData("label")).Backward()')
check(r["status"] == "ok" and text is None, f"a no-value call on a call result shows nothing: {text!r}")

r, text = run("p := model.Parameters()[0]\np.Shape()")
check(r["status"] == "ok" and text is not None and text.startswith("["), f"index of a compiled slice at top level: {text!r}")
r, text = run("got := 0\nfor i := 0; i < 2; i++ { a, err := datasets.Planetoid(\"nope\", \"\"); if a == nil && err != nil { got++ } }\ngot")
check(r["status"] == "ok" and text == "2", f"tuple define in a loop body: {text!r}")

# Interrupt a compiled call that does not poll the interrupt.
msg_id = kc.execute("time.Sleep(30 * time.Second)")
time.sleep(1)
t0 = time.time()
km.interrupt_kernel()
r = shell_reply(msg_id)
check(r["status"] == "error" and r["ename"] == "KeyboardInterrupt" and "cannot be interrupted" in r["evalue"], f"interrupt reply: {r.get('evalue')!r}")
for code in ["1 + 1", "x := 2"]:
    t1 = time.time()
    r, _ = run(code, timeout=10)
    check(r["status"] == "error" and r["ename"] == "Busy" and "restart the kernel" in r["evalue"] and time.time() - t1 < 5,
          f"{code!r} while the call runs: Busy at once")
km.restart_kernel(now=True)
kc.wait_for_ready(timeout=60)
r, text = run("40 + 2")
check(r["status"] == "ok" and text == "42", "after a restart")
km.shutdown_kernel(now=True)
print("all checks passed")
