// Package kernel serves a gnnrepl session over the Jupyter messaging
// protocol, version 5.3, so that notebooks, jupyter console and nbclient can
// drive it like any other Jupyter kernel.
//
// The transport is ZeroMQ through the pure-Go github.com/go-zeromq/zmq4:
// a heartbeat echo socket, shell and control ROUTER sockets, a stdin ROUTER
// socket and an IOPub PUB socket, bound only to the address named in the
// connection file. Messages are signed with the connection file's scheme
// (HMAC-SHA256 in practice) and verified in constant time; an empty key turns
// signing off, as the specification says.
//
// Control requests (interrupt_request, shutdown_request, kernel_info_request)
// are served on their own goroutine, so an interrupt reaches a cell that is
// still running on the shell channel. The cell itself runs behind the small
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
// Protocol errors (malformed multipart frames, bad signatures, undecodable
// JSON, unknown message types) are logged to the kernel's log writer and the
// message is dropped, or answered with status "error" when a reply is
// expected and the request can be identified. Every handler recovers panics,
// and so does every call into the Session. Start-up problems (an unreadable
// connection file, an unknown signature scheme, an address that cannot be
// bound) are returned as wrapped errors naming the file or the endpoint.
// Nothing in this package calls log.Fatal or os.Exit except Main's caller.
package kernel
