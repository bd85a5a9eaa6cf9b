"""The one exception of the wire client: the host broke the protocol (or died, or hung)."""

from __future__ import annotations

from pytest_toolconformance.findings import Unjudged, shorten
from pytest_toolconformance.host.client import HostProtocolError

#: Fault names, the first words of every message, so a report says at a glance what went wrong.
FAULTS = {
    "start": "could not be started",
    "handshake": "broke the handshake",
    "version": "speaks another protocol version",
    "timeout": "did not answer in time",
    "exited": "exited",
    "not-json": "wrote a line that is not JSON",
    "not-a-response": "wrote a line that is not a protocol answer",
    "wrong-seq": "answered with the wrong sequence number",
    "schema": "answered in violation of the message schema",
    "internal": "failed internally",
    "bad-request": "could not understand a request",
    "replay": "could not be brought back to its state after a restart",
    "gave-up": "was restarted too often; the kit gave up on it",
    "write": "stopped reading its stdin",
    "too-long": "wrote a line longer than the kit accepts",
}


def quote(line: bytes | str, limit: int = 300) -> str:
    """A line as it was written, cut to ``limit`` characters, in repr quotes."""
    text = line.decode("utf-8", errors="replace") if isinstance(line, bytes) else line
    return repr(shorten(text.rstrip("\n"), limit, verbatim=True))


class WireProtocolError(HostProtocolError):
    """A host over the wire answered something the protocol does not allow, or did not answer.

    It is the host's fault, not a broken rule, so the kit reports it as *errored*
    (:mod:`pytest_toolconformance.report.outcomes`). The message says which host, which request, and
    what was wrong, quoting the offending line; ``stderr`` is the tail of the host's stderr.
    """

    def __init__(
        self,
        host: str,
        fault: str,
        detail: str,
        *,
        method: str | None = None,
        seq: int | None = None,
        line: bytes | str | None = None,
        stderr: str = "",
    ) -> None:
        self.host = host
        self.fault = fault
        self.detail = detail
        self.method = method
        self.seq = seq
        self.line = line
        self.stderr = stderr
        where = f" (request {method}, seq {seq})" if method is not None else ""
        #: The fault without the host's name and stderr: "exited (request call, seq 7): ...".
        self.summary = f"{FAULTS.get(fault, fault)}{where}: {detail}"
        if line is not None:
            self.summary += f"\n  offending line: {quote(line)}"
        text = f"wire host {host!r} {self.summary}"
        if stderr.strip():
            tail = "\n    ".join(stderr.rstrip().splitlines())
            text += f"\n  host stderr (tail):\n    {tail}"
        super().__init__(text)


class WireHostUnusable(Unjudged):
    """A request refused unsent: an earlier request of the same check met a protocol fault (the
    host's state is unknown now, so the kit sends nothing more until the next reset), or the kit
    has given up on the host.

    This is a ``BaseException`` on purpose: a property-based check (hypothesis) treats an
    ``Exception`` as a failing example and re-runs the check hundreds of times to shrink it, which
    against a broken host only burns time; a ``BaseException`` ends the check at once. It is
    reported as *errored*, with the original fault's message.
    """

    def __init__(self, original: WireProtocolError, note: str | None = None) -> None:
        self.original = original
        if note is None:
            note = ("an earlier request of this check met this fault; the kit sends nothing more to the host "
                    "until the next reset")
        super().__init__(f"{original}\n  ({note})")

    def given_up(self) -> str | None:
        if self.original.fault != "gave-up":
            return None
        return (f"not run: wire host {self.original.host!r} {self.original.summary.splitlines()[0]} (its stderr is "
                "shown at the first check the kit gave up in)")
