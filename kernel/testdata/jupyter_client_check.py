"""Drive the gnnrepl kernel with jupyter_client, as notebooks and nbclient do.

Usage: python3 jupyter_client_check.py KERNEL_NAME
(the kernelspec must be on JUPYTER_PATH). Prints one line per check and
exits non-zero at the first failure.
"""
import atexit
import sys
import time

from jupyter_client.manager import start_new_kernel

name = sys.argv[1]
t0 = time.time()
km, kc = start_new_kernel(kernel_name=name, startup_timeout=60)
print(f"started and ready in {time.time() - t0:.3f}s")
proc = km.provisioner.process  # the kernel's Popen, for its exit status
atexit.register(lambda: km.is_alive() and km.shutdown_kernel(now=True))


def check(cond, what):
    if not cond:
        print("FAIL:", what)
        km.shutdown_kernel(now=True)
        sys.exit(1)
    print("ok:", what)


info = kc.kernel_info(reply=True, timeout=30)["content"]
check(info["protocol_version"] == "5.3" and info["language_info"]["name"] == "go", "kernel_info")

outputs = []
reply = kc.execute_interactive('fmt.Println("hi")\n1+1', output_hook=outputs.append, timeout=30)
kinds = [(m["msg_type"], m["content"]) for m in outputs]
check(reply["content"]["status"] == "ok", "execute ok")
check(("stream", {"name": "stdout", "text": "hi\n"}) in kinds, "stream output")
check(any(t == "execute_result" and c["data"]["text/plain"] == "2" for t, c in kinds), "execute_result")
check(reply["content"]["execution_count"] == 1, "execution_count")

kc.execute_interactive('import "strings"', timeout=30)
comp = kc.complete('x := "é"; strings.Rep', reply=True, timeout=30)["content"]
check("Repeat" in comp["matches"] and comp["cursor_start"] == 18 and comp["cursor_end"] == 21, "complete in code points")

insp = kc.inspect("strings.Repeat", 10, reply=True, timeout=30)["content"]
check(insp["found"] and "Repeat" in insp["data"]["text/plain"], "inspect")

def shell_reply(msg_id):
    while True:
        m = kc.get_shell_msg(timeout=30)
        if m["parent_header"].get("msg_id") == msg_id:
            return m


isc = shell_reply(kc.is_complete("for i := 0; i < 3; i++ {"))["content"]
check(isc["status"] == "incomplete" and isc["indent"] == "\t", "is_complete")

hist = kc.history(hist_access_type="tail", n=2, reply=True, timeout=30)["content"]
check([h[2] for h in hist["history"]] == ['fmt.Println("hi")\n1+1', 'import "strings"'], "history tail")

errs = []
reply = kc.execute_interactive('panic("boom")', output_hook=errs.append, timeout=30)
check(reply["content"]["status"] == "error" and reply["content"]["ename"] == "Panic", "panic reported")

# Interrupt an endless loop through interrupt_request (interrupt_mode message).
msg_id = kc.execute("for {}")
time.sleep(0.5)
km.interrupt_kernel()
reply = shell_reply(msg_id)
check(reply["content"]["status"] == "error" and reply["content"]["ename"] == "KeyboardInterrupt", "interrupt")
reply = kc.execute_interactive("1", timeout=30)
check(reply["content"]["status"] == "ok", "alive after interrupt")

# stdin: fmt.Scanln asks the front end.
outputs = []
reply = kc.execute_interactive('var name string\nfmt.Scanln(&name)\n"hello " + name',
                               allow_stdin=True, stdin_hook=lambda m: kc.input("Ada"),
                               output_hook=outputs.append, timeout=30)
check(any(m["msg_type"] == "execute_result" and m["content"]["data"]["text/plain"] == '"hello Ada"' for m in outputs), "input_request")

check(kc.is_alive(), "heartbeat")
km.shutdown_kernel(now=False)
check(not km.is_alive(), "clean shutdown")
code = proc.wait(timeout=10)
check(code == 0, f"kernel exit status 0 (got {code})")
print("all checks passed")
