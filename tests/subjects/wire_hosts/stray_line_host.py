"""Broken wire host: after the handshake it prints one stray line on stdout (a debug print left in) when it
opens its first session, then serves correctly; it declares no plan-file sandbox (stdout is for protocol
lines only, so every check after it is lost, but a check of a capability it never declared is not its)."""

from __future__ import annotations

import json
from typing import Any

from _faulty import FaultyServer, run

from pytest_toolconformance.host.wire.reference_server import Server


class StrayLineServer(FaultyServer):
    stray_written = False

    def send(self, message: dict[str, Any]) -> None:
        result = message.get("result")
        if isinstance(result, dict) and isinstance(result.get("capabilities"), list):
            result["capabilities"] = [c for c in result["capabilities"] if c not in ("sandbox", "plan-file")]
        super().send(message)

    def fault(self, request: dict[str, Any]) -> bool:
        if not self.stray_written:
            self.stray_written = True
            self.write_raw(b"opening session\n")
        # Served as the reference host serves it: FaultyServer.handle would hand it back here.
        return Server.handle(self, json.dumps(request).encode())


if __name__ == "__main__":
    run(StrayLineServer)
