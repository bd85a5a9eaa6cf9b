"""Broken wire host: answers open_session with a session id that is a number, not a string."""

from __future__ import annotations

from typing import Any

from _faulty import FaultyServer, run


class SchemaBreakingServer(FaultyServer):
    def fault(self, request: dict[str, Any]) -> bool:
        self.send({"seq": request["seq"], "result": {"session": 42}})
        return True


if __name__ == "__main__":
    run(SchemaBreakingServer)
