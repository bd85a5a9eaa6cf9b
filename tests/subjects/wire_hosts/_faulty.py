"""Shared by the deliberately broken wire hosts: the reference host's server, one fault injected.

Each ``*_host.py`` beside this file is run as ``python tests/subjects/wire_hosts/NAME.py``. It behaves like
``python -m pytest_toolconformance.host.wire.reference_server`` until it meets the request its
fault is about, so the kit sees a host that works and then breaks in one way only.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from typing import Any

from pytest_toolconformance.host.wire.reference_server import Server, serve


class FaultyServer(Server):
    """Serves like the reference host, but hands requests of ``method`` to :meth:`fault`."""

    #: The request the fault is injected into: nearly every check opens a session after its reset.
    method = "open_session"

    def handle(self, line: bytes) -> bool:
        request = json.loads(line)
        if request.get("method") == self.method:
            return self.fault(request)
        return super().handle(line)

    def fault(self, request: dict[str, Any]) -> bool:
        """Answer (or not) ``request``; True to go on serving."""
        raise NotImplementedError

    def write_raw(self, data: bytes) -> None:
        self.out.write(data)
        self.out.flush()


def run(server_class: type[FaultyServer], before: Callable[[], None] | None = None) -> None:
    """Serve stdin/stdout with ``server_class``; ``before`` runs before anything is read."""
    if before is not None:
        before()
    status = serve(server_class=server_class)
    sys.stderr.flush()
    os._exit(status)
