"""A small Debug Adapter Protocol client, to drive debugpy the way VS Code does.

The protocol (https://microsoft.github.io/debug-adapter-protocol/) is JSON messages over a
socket, each preceded by a `Content-Length: N` header and a blank line. The client sends
requests ({"seq", "type": "request", "command", "arguments"}); the adapter answers each with a
response ({"type": "response", "request_seq", "success", "body"}) and also sends events
({"type": "event", "event", "body"}: "initialized", "stopped", "output", "terminated", ...).

VS Code's "attach" to a program started as
`python -m debugpy --listen 127.0.0.1:PORT --wait-for-client prog.py` is:

    initialize -> attach -> (event "initialized") -> setExceptionBreakpoints ->
    configurationDone -> (attach response; the program runs)

then, at a stop: threads, stackTrace, evaluate, setBreakpoints, continue, stepIn, ...
`DAPClient` does exactly these, and nothing waits without a deadline: every wait raises
`DAPTimeout` (with what was received) when the deadline passes, so a failing test never hangs.
"""

import json
import socket
import time


class DAPTimeout(AssertionError):
    """A message did not arrive in time; the text says what was awaited and what came."""


class DAPClient:
    def __init__(self, host, port, connect_timeout=60.0, timeout=60.0):
        """Connect to the adapter at host:port, retrying until it listens (it starts with the
        debugged process) or `connect_timeout` seconds pass. `timeout` is the default deadline
        of every later wait."""
        self.timeout = timeout
        self.events = []            # every event received, in order
        self._pending = []          # events not yet taken by wait_event
        self._responses = {}
        self._seq = 0
        self._buffer = b""
        deadline = time.monotonic() + connect_timeout
        while True:
            try:
                self.sock = socket.create_connection((host, port), timeout=5)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise DAPTimeout("no debug adapter listening on %s:%d" % (host, port))
                time.sleep(0.2)

    # -- wire format ---------------------------------------------------------------------
    def send(self, command, arguments=None):
        """Send a request; return its sequence number (see `response`)."""
        self._seq += 1
        message = {"seq": self._seq, "type": "request", "command": command}
        if arguments is not None:
            message["arguments"] = arguments
        body = json.dumps(message).encode("utf-8")
        self.sock.sendall(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        return self._seq

    def _read_message(self, deadline):
        while True:
            head, sep, rest = self._buffer.partition(b"\r\n\r\n")
            if sep:
                length = None
                for line in head.split(b"\r\n"):
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value.strip())
                if length is None:
                    raise ValueError("DAP header without Content-Length: %r" % head)
                if len(rest) >= length:
                    self._buffer = rest[length:]
                    return json.loads(rest[:length].decode("utf-8"))
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            self.sock.settimeout(min(left, 1.0))
            try:
                chunk = self.sock.recv(65536)
            except socket.timeout:
                continue
            if not chunk:
                raise ConnectionError("the debug adapter closed the connection")
            self._buffer += chunk

    def _pump(self, deadline):
        """Read one message into the queues; False when the deadline passed first."""
        message = self._read_message(deadline)
        if message is None:
            return False
        if message.get("type") == "event":
            self.events.append(message)
            self._pending.append(message)
        elif message.get("type") == "response":
            self._responses[message["request_seq"]] = message
        return True

    # -- requests and events -------------------------------------------------------------
    def response(self, seq, timeout=None):
        """The response to request `seq`; raises when it failed or did not come in time."""
        deadline = time.monotonic() + (timeout or self.timeout)
        while seq not in self._responses:
            if not self._pump(deadline):
                raise DAPTimeout("no response to request %d; events so far: %s"
                                 % (seq, self.event_summary()))
        message = self._responses.pop(seq)
        if not message.get("success"):
            raise AssertionError("request %s failed: %s" % (message.get("command"),
                                                            message.get("message")))
        return message.get("body") or {}

    def request(self, command, arguments=None, timeout=None):
        """Send a request and return its response body."""
        return self.response(self.send(command, arguments), timeout)

    def wait_event(self, name, timeout=None):
        """The body of the next event called `name` not yet taken."""
        return self.wait_any((name,), timeout)[1]

    def wait_any(self, names, timeout=None):
        """(name, body) of the first event not yet taken whose name is in `names`."""
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            for i, event in enumerate(self._pending):
                if event["event"] in names:
                    del self._pending[i]
                    return event["event"], event.get("body", {})
            if not self._pump(deadline):
                raise DAPTimeout("no %s event; events so far: %s" % (
                    " or ".join(names), self.event_summary()))

    def output(self, category=None):
        """The text of every `output` event so far (of `category`: "stdout", "stderr")."""
        return "".join(e["body"].get("output", "") for e in self.events
                       if e["event"] == "output"
                       and (category is None or e["body"].get("category") == category))

    def event_summary(self):
        parts = []
        for e in self.events[-30:]:
            body = e.get("body", {})
            if e["event"] == "output":
                parts.append("output:%r" % body.get("output", "")[-200:])
            else:
                parts.append("%s:%s" % (e["event"], json.dumps(body)[:200]))
        return "; ".join(parts)

    # -- VS Code's steps -----------------------------------------------------------------
    def attach(self, **arguments):
        """initialize, attach, setExceptionBreakpoints, configurationDone, as VS Code."""
        self.request("initialize", {
            "clientID": "vscode", "clientName": "dynalens tests", "adapterID": "debugpy",
            "pathFormat": "path", "linesStartAt1": True, "columnsStartAt1": True,
            "supportsVariableType": True, "supportsRunInTerminalRequest": False,
            "locale": "en"})
        args = {"justMyCode": True, "redirectOutput": True}
        args.update(arguments)
        attach = self.send("attach", args)
        self.wait_event("initialized")
        self.request("setExceptionBreakpoints", {"filters": []})
        self.request("configurationDone")
        self.response(attach)

    def wait_stopped(self, timeout=None):
        """Wait for a `stopped` event; return (thread id, top frame, the event's body)."""
        body = self.wait_event("stopped", timeout)
        return self.top_frame(body) + (body,)

    def top_frame(self, stopped):
        """(thread id, top frame) of a `stopped` event's body; the frame has `source.path`,
        `line` and `id` (for evaluate)."""
        body = stopped
        thread = body.get("threadId")
        if thread is None:
            thread = self.request("threads")["threads"][0]["id"]
        frames = self.request("stackTrace", {"threadId": thread, "startFrame": 0,
                                             "levels": 20})["stackFrames"]
        return thread, frames[0]

    def set_breakpoints(self, path, lines):
        """Breakpoints of one file (replacing that file's earlier ones); the adapter's answer."""
        return self.request("setBreakpoints", {
            "source": {"path": path}, "breakpoints": [{"line": n} for n in lines],
            "lines": list(lines)})["breakpoints"]

    def evaluate(self, expression, frame_id):
        return self.request("evaluate", {"expression": expression, "frameId": frame_id,
                                         "context": "repl"})["result"]

    def continue_(self, thread):
        self.request("continue", {"threadId": thread})

    def step_in(self, thread):
        self.request("stepIn", {"threadId": thread})

    def close(self):
        try:
            self.send("disconnect", {"terminateDebuggee": False})
        except OSError:
            pass
        try:
            self.sock.close()
        except OSError:
            pass
