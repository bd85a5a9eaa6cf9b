"""The reference host over the wire protocol: ``python -m pytest_toolconformance.host.wire.reference_server``.

Reads one JSON request per line on stdin and writes one answer per line on stdout, in order
(docs/wire-protocol.md). Every request is served by :class:`reference_host.facade.JsonHost`, the
same object the kit uses in process, so a run over the wire checks exactly the same host.

Which requests there are and what their params are is read off the adapter contract's one
declaration (:mod:`pytest_toolconformance.host.contract`, plain data with no dependencies); the
host behind it, :mod:`reference_host.facade`, knows nothing of the kit.

Plugin code may print: the protocol keeps the original stdout to itself and points file
descriptor 1 (and ``sys.stdout``) at stderr, so a stray print can never corrupt the stream.
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from collections.abc import Callable
from typing import IO, Any

from pytest_toolconformance.host.contract import WIRE_METHODS, Method
from pytest_toolconformance.host.wire.protocol import PROTOCOL_VERSION
from reference_host import CAPABILITIES, VERSION, JsonHost

NAME = "reference-host"

_JSON_TYPES: dict[str, type] = {"object": dict, "string": str}


class BadRequest(Exception):
    """A request the server cannot act on (answered with kind ``bad-request``)."""


def _arguments(method: Method, params: dict[str, Any]) -> list[Any]:
    """The facade method's arguments from a request's params, checked against the declaration."""
    values = []
    for param in method.params:
        value = params.get(param.wire)
        if param.wire not in params:
            if param.required:
                raise BadRequest(f"params.{param.wire} is missing")
        elif param.json_type is not None and not isinstance(value, _JSON_TYPES[param.json_type]) and (
            param.required or value is not None
        ):
            raise BadRequest(f"params.{param.wire} must be {_JSON_TYPES[param.json_type].__name__}, "
                             f"got {type(value).__name__}")
        values.append(value)
    return values


#: method -> its declaration; reset is served on its own (it answers nothing).
REQUESTS: dict[str, Method] = {m.name: m for m in WIRE_METHODS if m.name != "reset"}


class Server:
    """One connection: the handshake, then requests until ``stop`` or end of input."""

    def __init__(self, out: IO[bytes], make_host: Callable[[float | None], JsonHost] | None = None) -> None:
        self.out = out
        self.make_host = make_host or _default_host
        self.host: JsonHost | None = None

    def send(self, message: dict[str, Any]) -> None:
        self.out.write(json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n")
        self.out.flush()

    def error(self, seq: Any, kind: str, message: str) -> None:
        self.send({"seq": seq, "error": {"kind": kind, "message": message, "rule": None, "subject": None}})

    def handle(self, line: bytes) -> bool:
        """Serve one request line; False once the kit said ``stop``."""
        try:
            request = json.loads(line)
        except ValueError as exc:
            self.error(None, "bad-request", f"not JSON: {exc}")
            return True
        seq = request.get("seq") if isinstance(request, dict) else None
        if not isinstance(request, dict) or not isinstance(seq, int) or not isinstance(request.get("method"), str):
            self.error(seq, "bad-request", 'a request is an object with an integer "seq" and a string "method"')
            return True
        method = request["method"]
        params = request.get("params") or {}
        if not isinstance(params, dict):
            self.error(seq, "bad-request", "params must be an object")
            return True
        if method == "hello":
            self.hello(seq, params)
            return True
        if method == "stop":
            self.send({"seq": seq, "result": {}})
            return False
        if self.host is None:
            self.error(seq, "bad-request", f"{method} before hello: the first request is the hello")
            return True
        try:
            if method == "reset":
                self.host.reset()
                self.send({"seq": seq, "result": {}})
                return True
            declared = REQUESTS.get(method)
            if declared is None:
                self.error(seq, "bad-request", f"unknown method {method!r}")
                return True
            answer = getattr(self.host, method)(*_arguments(declared, params))
        except BadRequest as exc:
            self.error(seq, "bad-request", f"{method}: {exc}")
            return True
        except Exception as exc:  # noqa: BLE001 - a bug of ours is an answer ("internal"), never a dead host
            sys.stderr.write(traceback.format_exc())
            self.error(seq, "internal", f"{method}: {type(exc).__name__}: {exc}")
            return True
        if isinstance(answer, dict) and "error" in answer:
            self.send({"seq": seq, "error": answer["error"]})
        else:
            self.send({"seq": seq, "result": {} if answer is None else answer})
        return True

    def hello(self, seq: int, params: dict[str, Any]) -> None:
        kit_protocol = params.get("protocol")
        if not isinstance(kit_protocol, int) or kit_protocol < PROTOCOL_VERSION:
            self.error(
                seq, "bad-request", f"this host speaks protocol {PROTOCOL_VERSION}; the kit offered {kit_protocol!r}"
            )
            return
        timeout = params.get("timeout")
        if self.host is not None:
            self.host.close()
        self.host = self.make_host(float(timeout) if isinstance(timeout, (int, float)) and timeout > 0 else None)
        self.send(
            {
                "seq": seq,
                "result": {
                    "name": NAME,
                    "version": VERSION,
                    "protocol": PROTOCOL_VERSION,
                    "capabilities": list(CAPABILITIES),
                    "collisions": self.host.info()["collisions"],
                },
            }
        )

    def close(self) -> None:
        if self.host is not None:
            self.host.close()
            self.host = None


def plugin_time_bound(kit_timeout: float | None) -> float:
    """How long plugin code may run in one step: well inside the kit's wait for an answer, so a
    hanging handler is reported by the host (as the in-process run reports it), not by a kill."""
    if kit_timeout is None:
        return 10.0
    return max(0.05, min(10.0, kit_timeout * 0.4))


def _default_host(kit_timeout: float | None) -> JsonHost:
    return JsonHost(call_timeout=plugin_time_bound(kit_timeout))


def serve(
    stdin: IO[bytes] | None = None,
    stdout: IO[bytes] | None = None,
    make_host: Callable[[float | None], JsonHost] | None = None,
    server_class: type[Server] = Server,
) -> int:
    """Serve requests until ``stop`` or end of input; returns the exit status. ``server_class``
    lets a test host (tests/subjects/wire_hosts/) change how some requests are answered."""
    if stdout is None:
        # The protocol owns the real stdout; anything else printed to fd 1 lands on stderr.
        stdout = os.fdopen(os.dup(sys.stdout.fileno()), "wb", buffering=1 << 16)
        sys.stdout.flush()
        os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
        sys.stdout = sys.stderr
    source = stdin if stdin is not None else sys.stdin.buffer
    server = server_class(stdout, make_host)
    try:
        for line in source:
            if not line.strip():
                continue
            if not server.handle(line):
                break
    finally:
        server.close()
        stdout.flush()
    return 0


def main() -> None:
    status = serve()
    sys.stderr.flush()
    # Plugin code may have left daemon threads hanging (a "hang" handler); they must not hold the exit.
    os._exit(status)


if __name__ == "__main__":
    main()
