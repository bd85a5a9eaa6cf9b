"""Broken wire host: hangs on its 10th request of the run, and again every EVERY requests, TIMES times in all.

Run as ``python tests/subjects/wire_hosts/hang_once_host.py STATE [TIMES]``: the requests of every process
the kit starts are counted together in the file STATE (with the hangs so far); the 10th request,
and every EVERY-th after it, is never answered while fewer than TIMES (default 1) hangs happened.
The kit kills the process at the request deadline; otherwise it is the reference host.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

from _faulty import FaultyServer, run

HANG_AT = 10
EVERY = 150
STATE = Path(sys.argv[1])
TIMES = int(sys.argv[2]) if len(sys.argv) > 2 else 1


class HangOnceServer(FaultyServer):
    method = "(every request)"

    def handle(self, line: bytes) -> bool:
        served, hangs = (int(n) for n in STATE.read_text("utf-8").split()) if STATE.exists() else (0, 0)
        served += 1
        hang = served % EVERY == HANG_AT and hangs < TIMES
        STATE.write_text(f"{served} {hangs + hang}\n", "utf-8")
        if hang:
            sys.stderr.write(f"hang_once_host: hanging on request {served} of the run\n")
            sys.stderr.flush()
            while True:
                time.sleep(3600)
        return super().handle(line)

    def fault(self, request: dict[str, Any]) -> bool:  # pragma: no cover - method matches no request
        return True


if __name__ == "__main__":
    run(HangOnceServer)
