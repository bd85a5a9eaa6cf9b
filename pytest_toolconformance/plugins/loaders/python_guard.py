"""The in-process guard of a Python plugin's calls: its own working directory, no network."""

from __future__ import annotations

import contextlib
import errno
import ipaddress
import os
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

# One process, one working directory: Python handlers that need a chdir take turns.
_CWD_LOCK = threading.RLock()


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

    socket.getaddrinfo = dns  # type: ignore[assignment]
    socket.gethostbyname = gethostbyname  # type: ignore[assignment]
    socket.gethostbyname_ex = gethostbyname_ex  # type: ignore[assignment]
    socket.create_connection = create_connection  # type: ignore[assignment]
    socket.socket.connect = connect  # type: ignore[method-assign]
    socket.socket.connect_ex = connect_ex  # type: ignore[method-assign]
    try:
        yield
    finally:
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
