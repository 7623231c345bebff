// Package kernel serves a gnnrepl session over the Jupyter messaging
// protocol, version 5.3, so that notebooks, jupyter console and nbclient can
// drive it like any other Jupyter kernel.
//
// The transport is ZeroMQ through the pure-Go github.com/go-zeromq/zmq4:
// a heartbeat echo socket, shell and control ROUTER sockets, a stdin ROUTER
// socket and an IOPub PUB socket, bound only to the address named in the
// connection file. Messages are signed with the connection file's scheme
// (HMAC-SHA256 in practice) and verified in constant time; an empty key turns
// signing off, as the specification says. The signature must be the
// lower-case hex digest (the specification's "HMAC hex digest", which
// jupyter_client writes with hexdigest() and compares byte for byte): the
// same digest in upper or mixed case is a bad signature. A replayed
// signature is refused too.
//
// No allocation is sized by an unauthenticated peer: every socket follows
// the ZMTP byte stream beneath zmq4 and disconnects a peer, with a log
// line, as soon as it announces a frame that would take its message
// beyond Options.MaxMessageSize (1 GiB by default; the frames' sizes plus
// 64 bytes per frame; gnnrepl kernel --max-message-size), before the frame
// is allocated or read; the ZMTP handshake is limited to 64 KiB. A frame
// under the limit costs the bytes that have arrived, not its announced
// size: its buffer starts at 64 KiB and doubles as the bytes come.
//
// Start-up: Run answers kernel_info_request while the session (the
// interpreter and its prelude) is still being made, and package
// kernel/internal/prebind, which this package imports, listens on the
// connection file's TCP ports from its init function, within a few
// milliseconds of exec, so that jupyter_client's first connection attempts
// succeed instead of waiting for ZeroMQ's 100 ms reconnect:
// start_new_kernel returns in about 0.24 s here (ipykernel: 0.7 s), most of
// it jupyter_client's own 0.2 s wait for IOPub to fall silent
// (TestJupyterStartup).
//
// Output is never lost without notice. IOPub queues at most 1000 output
// messages (32 KiB of text each) per front end; a cell that prints faster
// than the front end reads waits for room, so all of it arrives with
// bounded memory (200 MiB printed by one cell reach jupyter_client in
// 3.6 s here; ipykernel: 5.4 s; TestJupyterOutputVolume). Only a front end
// that reads nothing for 10 s while its queue is full loses output, and the
// next message it gets is a stderr stream saying how many messages and
// bytes it missed.
//
// Control requests (interrupt_request, shutdown_request, kernel_info_request)
// are served on their own goroutine, so an interrupt reaches a cell that is
// still running on the shell channel. An interrupt also stops, while the
// kernel is idle, the goroutines earlier cells left running, when the
// Session implements Interrupter (ReplSession does). The cell itself runs behind the small
// Session interface; NewReplSession adapts the repl package's evaluation
// session to it, and tests drive the kernel with fakes.
//
// The protocol is specified in "Messaging in Jupyter"
// (https://jupyter-client.readthedocs.io/en/latest/messaging.html); where the
// specification is silent the kernel follows ipykernel, the reference
// implementation (aborting queued execute requests after an error, busy/idle
// around every request, no reply to an unknown message type).
//
// Error policy: a kernel must never die because of one message or one cell.
// Protocol errors are logged to the kernel's log writer. A message that
// cannot be authenticated (no <IDS|MSG> delimiter, fewer than five frames
// after it, a bad or replayed signature) is dropped, never answered (on
// shell as soon as it arrives, also while a cell runs, so that only signed
// requests wait in the shell queue). A
// signed message that is malformed (a header, parent header, metadata or
// content frame that is not a JSON object, a header field of the wrong
// type) is answered, when its header is a JSON object whose msg_type names
// a request ("x_request"), with an "x_reply" of status "error" and ename
// "ProtocolError" between status busy and idle, on the channel it came on
// (execute_request only on shell); otherwise (no msg_type, not a request)
// it is dropped. A well-formed request whose content lacks or mistypes a
// field is answered the same way by its handler; unknown message types
// get busy and idle and no reply, as in ipykernel. Every handler recovers panics,
// and so does every call into the Session. Start-up problems (an unreadable
// connection file, an unknown signature scheme, an address that cannot be
// bound) are returned as wrapped errors naming the file or the endpoint.
// Nothing in this package calls log.Fatal or os.Exit except Main's caller.
//
// Fatal runtime errors (stack overflow, concurrent map writes, out of
// memory) cannot be recovered in Go: the process ends promptly with a
// non-zero status, so that Jupyter restarts the kernel, and its report
// reaches the server's log whole, reason first ("fatal error: stack
// overflow", then every goroutine's stack). Descriptor 2's capture pipe is
// non-blocking, so the runtime never waits on a pipe whose reader it has
// stopped. The runtime writes the reason to descriptor 2 only and then
// freezes every goroutine, the pipe's reader included; so the reader
// peeks at each chunk with tee(2) and copies the runtime's lines ("fatal
// error: ", "runtime: ") to the log before it takes the chunk out of the
// pipe, and once the session is ready a crash watcher (this executable
// re-run as a small child process, package kernel/internal/crashwatch;
// about 1 MiB of private memory, started off the start-up path) receives
// the runtime's crash output (debug.SetCrashOutput) and, when a report
// begins, writes what the pipe still holds before it, then the report, to
// the log. The watcher holds only the read ends of its two pipes, ignores
// a terminal's SIGINT, and exits with the kernel; processes a cell starts
// do not inherit its pipe. A line that compiled code writes to descriptor
// 2 starting with "fatal error: " or "runtime: " is copied to the log too.
package kernel
