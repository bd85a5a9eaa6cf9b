"""Broken wire host: never answers open_session (it reads the request, then sleeps for good)."""

from __future__ import annotations

import sys
import time
from typing import Any

from _faulty import FaultyServer, run


class HangingServer(FaultyServer):
    def fault(self, request: dict[str, Any]) -> bool:
        sys.stderr.write(f"hang_host: hanging on {request['method']} seq {request['seq']}\n")
        sys.stderr.flush()
        while True:
            time.sleep(3600)


if __name__ == "__main__":
    run(HangingServer)
