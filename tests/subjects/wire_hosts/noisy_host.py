"""Broken wire host: prints a banner on stdout before the handshake (stdout is for protocol lines)."""

from __future__ import annotations

import sys
from typing import Any

from _faulty import FaultyServer, run


class QuietServer(FaultyServer):
    method = "(no request)"

    def fault(self, request: dict[str, Any]) -> bool:  # pragma: no cover - method matches no request
        return True


def banner() -> None:
    sys.stdout.write("noisy_host 1.0 starting up, reading requests on stdin\n")
    sys.stdout.flush()


if __name__ == "__main__":
    run(QuietServer, before=banner)
