"""What can go wrong between the kit and a host, short of a broken rule.

A host spec that gives no adapter is the user's error (:class:`HostSpecError`, a usage error); an
answer outside the contract is the host's bug (:class:`HostProtocolError`, reported as *errored*);
a structured refusal of input is an ordinary answer the suites may expect (:class:`HostRefusal`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_toolconformance.findings import Unjudged


class HostSpecError(Exception):
    """A ``--toolconformance-host`` value that cannot give an adapter; the message is one line."""


class HostProtocolError(Unjudged, Exception):
    """The host answered something the adapter contract does not allow."""


class HostRefusal(Exception):
    """The host refused input with a structured error (``kind``, ``message``, ``rule``)."""

    def __init__(self, method: str, err: Mapping[str, Any]) -> None:
        self.method = method
        self.kind = err.get("kind")
        self.rule = err.get("rule")
        self.message = err.get("message")
        self.error = dict(err)
        super().__init__(f"{method}: {self.kind}: {self.message}")
