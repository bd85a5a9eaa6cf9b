"""Broken wire host: answers open_session with the next request's sequence number."""

from __future__ import annotations

from typing import Any

from _faulty import FaultyServer, run


class WrongSeqServer(FaultyServer):
    def fault(self, request: dict[str, Any]) -> bool:
        assert self.host is not None
        self.send({"seq": request["seq"] + 1, "result": self.host.open_session(request["params"]["spec"])})
        return True


if __name__ == "__main__":
    run(WrongSeqServer)
