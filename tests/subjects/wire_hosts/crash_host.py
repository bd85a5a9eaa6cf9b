"""Broken wire host: works for a while, then dies in the middle of a request (exit status 3).

Each process serves 30 requests after its handshake and crashes on the 31st, whatever it is.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from _faulty import FaultyServer, run

CRASH_AT = 31


class CrashingServer(FaultyServer):
    method = "(every request)"
    served = 0

    def handle(self, line: bytes) -> bool:
        request = json.loads(line)
        if request.get("method") != "hello":
            self.served += 1
            if self.served >= CRASH_AT:
                sys.stderr.write(f"crash_host: simulated crash on request {self.served} ({request.get('method')})\n")
                sys.stderr.flush()
                os._exit(3)
        return super().handle(line)

    def fault(self, request: dict[str, Any]) -> bool:  # pragma: no cover - method matches no request
        return True


if __name__ == "__main__":
    run(CrashingServer)
