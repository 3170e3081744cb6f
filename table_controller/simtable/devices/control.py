"""The control socket of ``sim run``: one JSON object a line over a Unix socket.

Request ``{"verb": "draw", "args": ["Ah"]}``, reply ``{"ok": true, ...}`` (what the verb did)
or ``{"ok": false, "error": "one line"}``. A connection may carry any number of requests, one
reply each, in order. Rules this module keeps:

1. A line is at most :data:`MAX_LINE` bytes; a longer one is answered with an error and the
   connection is closed (the rest of it cannot be trusted to be a line boundary).
2. Anything that is not a request (bad JSON, not an object, a verb that is not a string, args
   that are not a list of strings or numbers) gets an error reply; the server never raises.
3. Every verb runs under the bench's lock, so requests from several clients never interleave
   inside one device change.

See ``docs/protocol.md`` ("The simulator's control socket").
"""

from __future__ import annotations

import contextlib
import json
import socket
import socketserver
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from table_controller.simtable.devices.bench import BenchError, SimBench

#: The longest request line accepted (bytes, the newline included).
MAX_LINE = 4096


#: The longest ``reply_after`` a request may ask for (seconds).
MAX_REPLY_AFTER = 1.0


class Request(NamedTuple):
    """One request line, parsed."""

    verb: str
    args: list[str]
    #: seconds to hold the reply back after the verb ran (``"reply_after"``; 0: at once)
    reply_after: float = 0.0


def parse_request(line: bytes) -> Request:
    """Return the verb, arguments and reply delay of one request line.

    ``"reply_after": SECONDS`` (0..1) holds the reply back that long after the verb ran, so a
    client timing what a verb did (a card's frame crossing to the controller) is not woken by
    the reply while it crosses, as no real device's client would be.

    :raises BenchError: saying what is wrong with it.

    >>> parse_request(b'{"verb": "chips", "args": [3, "200"]}')
    Request(verb='chips', args=['3', '200'], reply_after=0.0)
    >>> parse_request(b'{"verb": "draw", "reply_after": 0.01}').reply_after
    0.01
    >>> parse_request(b'[1]')
    Traceback (most recent call last):
    ...
    table_controller.simtable.devices.bench.BenchError: a request is a JSON object ...
    """
    try:
        req = json.loads(line)
    except (ValueError, UnicodeDecodeError) as exc:
        raise BenchError(f"bad JSON: {exc}") from None
    if not isinstance(req, dict):
        raise BenchError('a request is a JSON object {"verb": ..., "args": [...]}')
    verb, args = req.get("verb"), req.get("args", [])
    if not isinstance(verb, str):
        raise BenchError('"verb" must be a string')
    if not isinstance(args, list) or not all(
            isinstance(a, str | int | float) and not isinstance(a, bool) for a in args):
        raise BenchError('"args" must be a list of strings or numbers')
    unknown = set(req) - {"verb", "args", "reply_after"}
    if unknown:
        raise BenchError(f"unknown request keys: {', '.join(sorted(unknown))}")
    delay = req.get("reply_after", 0.0)
    if isinstance(delay, bool) or not isinstance(delay, int | float) or not (
            0 <= delay <= MAX_REPLY_AFTER):
        raise BenchError(f'"reply_after" must be a number of seconds, 0..{MAX_REPLY_AFTER:g}')
    return Request(verb, [str(a) for a in args], float(delay))


def answer(bench: SimBench, line: bytes) -> dict[str, Any]:
    """Return the reply to one request line (never raises)."""
    try:
        req = parse_request(line)
        done = {"ok": True, **bench.execute(req.verb, req.args)}
        if req.reply_after:
            time.sleep(req.reply_after)  # this connection's thread only
        return done
    except BenchError as exc:
        return {"ok": False, "error": str(exc).splitlines()[0]}
    except Exception as exc:  # a device error must not take the server down
        return {"ok": False, "error": f"{type(exc).__name__}: {exc}".splitlines()[0]}


class _Handler(socketserver.StreamRequestHandler):
    server: ControlServer

    def handle(self) -> None:
        while True:
            try:
                line = self.rfile.readline(MAX_LINE + 1)
            except OSError:
                return
            if not line:
                return
            too_long = len(line) > MAX_LINE or (len(line) == MAX_LINE and not line.endswith(b"\n"))
            if too_long:
                reply = {"ok": False, "error": f"request line longer than {MAX_LINE} bytes"}
            elif not line.strip():
                continue
            else:
                reply = answer(self.server.bench, line)
            try:
                self.wfile.write(json.dumps(reply).encode() + b"\n")
                self.wfile.flush()
            except OSError:
                return
            if too_long:
                return


class ControlServer(socketserver.ThreadingUnixStreamServer):
    """The control socket of a :class:`SimBench` (a thread per connection).

    :param path: the socket's path (a stale one the bench made is replaced).
    """

    daemon_threads = True

    def __init__(self, bench: SimBench, path: str | Path) -> None:
        self.bench = bench
        self.path = Path(path)
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        super().__init__(str(self.path), _Handler)
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Serve in a thread."""
        self._thread = threading.Thread(target=self.serve_forever, name="sim-ctl", daemon=True)
        self._thread.start()

    def close(self) -> None:
        """Stop serving and remove the socket."""
        if self._thread is not None:
            self.shutdown()
            self._thread.join(5)
        self.server_close()
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()


class ControlClient:
    """A connection to a control socket.

    :param path: the socket (``DIR/ctl.sock``).
    :param timeout: seconds to wait for a reply.
    :raises OSError: if nothing listens there.
    """

    def __init__(self, path: str | Path, timeout: float = 10.0) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        try:
            self.sock.connect(str(path))
        except OSError:
            self.sock.close()
            raise
        self._file = self.sock.makefile("rb")
        self._lock = threading.Lock()  # one request and its reply at a time, whatever thread

    def request(self, verb: str, *args: str | int | float,
                reply_after: float = 0.0) -> dict[str, Any]:
        """Send one request; return the reply (held back ``reply_after`` s by the server)."""
        req: dict[str, Any] = {"verb": verb, "args": list(args)}
        if reply_after:
            req["reply_after"] = reply_after
        return self.send_line(json.dumps(req).encode())

    def send_line(self, line: bytes) -> dict[str, Any]:
        """Send raw bytes as one request line; return the reply (for tests of bad input)."""
        with self._lock:
            self.sock.sendall(line.rstrip(b"\n") + b"\n")
            reply = self._file.readline()
        if not reply:
            raise ConnectionError("the control socket closed the connection")
        out: dict[str, Any] = json.loads(reply)
        return out

    def __call__(self, verb: str, *args: str | int | float,
                 reply_after: float = 0.0) -> dict[str, Any]:
        """Send a request that must succeed; return its reply.

        :raises BenchError: with the error if it was refused.
        """
        reply = self.request(verb, *args, reply_after=reply_after)
        if not reply.get("ok"):
            raise BenchError(f"{verb} {' '.join(map(str, args))}: {reply.get('error')}")
        return reply

    def close(self) -> None:
        """Close the connection."""
        self._file.close()
        self.sock.close()

    def __enter__(self) -> ControlClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def ctl_once(path: str | Path, verb: str, args: Sequence[str], timeout: float = 10.0
             ) -> dict[str, Any]:
    """Send one request on a new connection; return the reply."""
    with ControlClient(path, timeout) as client:
        return client.request(verb, *args)
