"""The in-process guard of a Python plugin's calls: its own working directory, no network."""

from __future__ import annotations

import contextlib
import errno
import ipaddress
import os
import re
import secrets
import socket
import sys
import tempfile
import threading
from collections.abc import Iterator
from http import HTTPStatus
from pathlib import Path
from typing import Any

# One process, one working directory: Python handlers that need a chdir take turns.
_CWD_LOCK = threading.RLock()

#: The kit's fault origin: the one host whose requests get an answer (docs/readings.md, ERR-3 and ERR-4).
FAULT_ORIGIN = "origin.toolconformance.invalid"
_STATUS_PATH = re.compile(rb"^[A-Z]+ /status/(5\d\d)(?:[/?#]| )")
_RESET_PATH = re.compile(rb"^[A-Z]+ /reset(?:[/?#]| )")


class _FaultOrigin:
    """A server in the plugin's process on a local socket with no network address (abstract on Linux):
    ``/status/5xx`` is answered with that status, ``/reset`` has its connection closed once the request
    is in. What it did is appended to the running call's attempts."""

    def __init__(self) -> None:
        self.attempts: list[str] | None = None
        self.address: str | None = None
        self._lock = threading.Lock()

    def connect(self, timeout: Any) -> socket.socket:
        """A connection to the origin, as ``socket.create_connection`` would return one to a host."""
        with self._lock:
            if self.address is None:
                self.address = self._listen()
        sock = _FaultSocket(socket.AF_UNIX, socket.SOCK_STREAM)
        if timeout is not socket._GLOBAL_DEFAULT_TIMEOUT:  # type: ignore[attr-defined]
            sock.settimeout(timeout)
        sock.connect(self.address)
        return sock

    def _listen(self) -> str:
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        name = f"toolconformance-fault-{os.getpid()}-{secrets.token_hex(6)}"
        # Abstract on Linux: nothing is written, and the name exists in the plugin's namespace only.
        address = f"\0{name}" if sys.platform.startswith("linux") else os.path.join(tempfile.gettempdir(), name)
        server.bind(address)
        server.listen(8)
        threading.Thread(target=self._serve, args=(server,), name="toolconformance-fault-origin", daemon=True).start()
        return address

    def _serve(self, server: socket.socket) -> None:
        while True:
            connection, _ = server.accept()
            threading.Thread(target=self._answer, args=(connection,), daemon=True).start()

    def _answer(self, connection: socket.socket) -> None:
        with connection:
            request = b""
            while b"\r\n\r\n" not in request and len(request) < 65536:
                chunk = connection.recv(4096)
                if not chunk:
                    return
                request += chunk
            status = _STATUS_PATH.match(request)
            if status:
                code = int(status[1])
                self._note(f"{FAULT_ORIGIN} answered {code}")
                phrase = HTTPStatus(code).phrase if code in HTTPStatus._value2member_map_ else "Server Error"
                _respond(connection, code, phrase, f"{code} {phrase} (the toolconformance fault origin)")
            elif _RESET_PATH.match(request):
                self._note(f"{FAULT_ORIGIN} reset the connection")
            else:
                _respond(connection, 404, "Not Found", "not a path of the toolconformance fault origin")

    def _note(self, what: str) -> None:
        attempts = self.attempts
        if attempts is not None:
            attempts.append(what)


def _respond(connection: socket.socket, code: int, phrase: str, text: str) -> None:
    body = f"{text}\n".encode()
    connection.sendall(
        f"HTTP/1.1 {code} {phrase}\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n"
        f"Content-Length: {len(body)}\r\n\r\n".encode() + body
    )


class _FaultSocket(socket.socket):
    """A local socket that takes TCP options (http.client sets TCP_NODELAY) as a TCP one would."""

    def setsockopt(self, level: int, option: int, value: Any, *rest: Any) -> None:  # type: ignore[override]
        if level == socket.IPPROTO_TCP:
            return
        super().setsockopt(level, option, value, *rest)


_FAULTS = _FaultOrigin()


@contextlib.contextmanager
def blocked_network(attempts: list[str]) -> Iterator[None]:
    """No network for Python plugin code: DNS fails like ENOTFOUND, connects like ECONNREFUSED.

    What the code reached for is appended to ``attempts``. The errors are the plain ``OSError``s a
    real outage raises (untagged), so that ERR-4 can tell a rethrown fault from a new error.
    """
    original = {
        "getaddrinfo": socket.getaddrinfo,
        "gethostbyname": socket.gethostbyname,
        "gethostbyname_ex": socket.gethostbyname_ex,
        "create_connection": socket.create_connection,
        "connect": socket.socket.connect,
        "connect_ex": socket.socket.connect_ex,
    }

    def literal(host: Any) -> bool:
        try:
            ipaddress.ip_address(str(host).strip("[]"))
            return True
        except ValueError:
            return host in (None, "", "localhost")

    def dns(host: Any, *args: Any, **kwargs: Any) -> Any:
        attempts.append(f"dns:{host}")
        if literal(host):
            return original["getaddrinfo"](host, *args, **kwargs)
        raise socket.gaierror(
            socket.EAI_NONAME, f"Name or service not known: {host} (no network under pytest-toolconformance)"
        )

    def refused(where: Any) -> OSError:
        return ConnectionRefusedError(
            errno.ECONNREFUSED, f"Connection refused: {where} (no network under pytest-toolconformance)"
        )

    def gethostbyname(host: Any) -> Any:
        dns(host)
        return host

    def gethostbyname_ex(host: Any) -> Any:
        dns(host)
        return (host, [], [host])

    def create_connection(address: Any, *args: Any, **kwargs: Any) -> Any:
        host = address[0] if isinstance(address, (tuple, list)) and address else address
        if isinstance(host, str) and host.lower().rstrip(".") == FAULT_ORIGIN and hasattr(socket, "AF_UNIX"):
            attempts.append(f"connect:{address}")
            return _FAULTS.connect(args[0] if args else kwargs.get("timeout", socket._GLOBAL_DEFAULT_TIMEOUT))  # type: ignore[attr-defined]
        if not literal(host):
            dns(host)
        attempts.append(f"connect:{address}")
        raise refused(address)

    def connect(self: socket.socket, address: Any) -> None:
        if self.family in (socket.AF_INET, socket.AF_INET6):
            attempts.append(f"connect:{address}")
            raise refused(address)
        return original["connect"](self, address)

    def connect_ex(self: socket.socket, address: Any) -> int:
        if self.family in (socket.AF_INET, socket.AF_INET6):
            attempts.append(f"connect:{address}")
            return errno.ECONNREFUSED
        return original["connect_ex"](self, address)

    _FAULTS.attempts = attempts
    socket.getaddrinfo = dns  # type: ignore[assignment]
    socket.gethostbyname = gethostbyname  # type: ignore[assignment]
    socket.gethostbyname_ex = gethostbyname_ex  # type: ignore[assignment]
    socket.create_connection = create_connection  # type: ignore[assignment]
    socket.socket.connect = connect  # type: ignore[method-assign]
    socket.socket.connect_ex = connect_ex  # type: ignore[method-assign]
    try:
        yield
    finally:
        _FAULTS.attempts = None
        socket.getaddrinfo = original["getaddrinfo"]  # type: ignore[assignment]
        socket.gethostbyname = original["gethostbyname"]  # type: ignore[assignment]
        socket.gethostbyname_ex = original["gethostbyname_ex"]  # type: ignore[assignment]
        socket.create_connection = original["create_connection"]  # type: ignore[assignment]
        socket.socket.connect = original["connect"]  # type: ignore[method-assign]
        socket.socket.connect_ex = original["connect_ex"]  # type: ignore[method-assign]


@contextlib.contextmanager
def guarded_call(workdir: Path, attempts: list[str]) -> Iterator[None]:
    """Run a Python plugin's call in ``workdir`` with the network blocked (one call at a time:
    the process has one working directory)."""
    with _CWD_LOCK:
        previous = os.getcwd()
        os.chdir(workdir)
        try:
            with blocked_network(attempts):
                yield
        finally:
            os.chdir(previous)
