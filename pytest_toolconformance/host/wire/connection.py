"""The connection to one wire host process: start it, send a request line and read its answer line
by a deadline, stop it.

Like Bowtie's ``Connection`` under its small client, and shaped like the plugin side's
:class:`~pytest_toolconformance.plugins.loaders.bridge_connection.BridgeConnection`:
:class:`WireConnection` knows the process and its line transport, nothing of the protocol's
messages; the adapter over it (:mod:`.client`) numbers, checks and words them. Anything with the
methods of :class:`Connection` can stand in for it (a test serves the reference host in process).

The process is the kit's one line supervisor (:class:`~pytest_toolconformance.supervisor.LineProcess`),
unconfined: a host under test is the user's own program, run as given, in a session of its own so
that a hung host is killed with any children it started.
"""

from __future__ import annotations

import contextlib
import subprocess
from collections.abc import Mapping, Sequence
from typing import Protocol

from pytest_toolconformance.supervisor import LineProcess, ProcessFault, ProcessHolder

#: What is kept of a host's stderr for the messages of a fault.
STDERR_TAIL_BYTES = 4000


class Connection(Protocol):
    """What the wire adapter needs of a connection: one run of a host, numbered requests on it."""

    @property
    def pid(self) -> int: ...

    def alive(self) -> bool: ...

    def status_text(self) -> str: ...

    def stderr_tail(self) -> str: ...

    def take_seq(self) -> int: ...

    def request(self, line: bytes, deadline: float) -> bytes: ...

    def stop(self, grace: float = 0.0) -> None: ...


class WireConnection(ProcessHolder):
    """One running host (``argv``, started at once in ``cwd`` with ``env``) and its line transport.

    :meth:`request` raises :class:`~pytest_toolconformance.supervisor.ProcessFault` when the process
    can no longer be trusted (no answer by the deadline, gone, a line without end)."""

    def __init__(self, argv: Sequence[str], *, cwd: str | None = None, env: Mapping[str, str] | None = None) -> None:
        self._process = LineProcess(argv, cwd=cwd, env=env, stderr_limit=STDERR_TAIL_BYTES, name="wire-host")
        self._seq = 0

    def status_text(self) -> str:
        """How the process stands, for a message: ``(still running)``, ``(exit status 3)``, ..."""
        return self._process.status_text()

    def stderr_tail(self) -> str:
        """The last bytes the host wrote to stderr, ``...`` in front when earlier ones were dropped."""
        tail = self._process.tail
        text = tail.text()
        if tail.truncated:
            text = "..." + text[text.find("\n") + 1 :] if "\n" in text else "..." + text
        return text

    def take_seq(self) -> int:
        """The ``seq`` of the next request on this connection (each run of the host counts from 0)."""
        seq, self._seq = self._seq, self._seq + 1
        return seq

    def request(self, line: bytes, deadline: float) -> bytes:
        """Send one request line and read the next line (with its ``\\n``), both by ``deadline``."""
        self._process.send(line, deadline)
        return self._process.read_line(deadline)

    def wait(self, timeout: float) -> int | None:
        """The exit status once the process has left, waiting up to ``timeout`` s; None if it is still running."""
        with contextlib.suppress(subprocess.TimeoutExpired):
            return self._process.popen.wait(timeout)
        return None

    def stop(self, grace: float = 0.0) -> None:
        """End the host and everything it started, after up to ``grace`` s for it to leave by itself
        (it was asked to stop). Safe to call more than once."""
        if grace > 0:
            self.wait(grace)
        self._process.close()


__all__ = ["STDERR_TAIL_BYTES", "Connection", "ProcessFault", "WireConnection"]
