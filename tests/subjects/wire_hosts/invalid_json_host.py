"""Broken wire host: answers open_session with a line that is not JSON (Python-style quotes)."""

from __future__ import annotations

from typing import Any

from _faulty import FaultyServer, run


class InvalidJsonServer(FaultyServer):
    def fault(self, request: dict[str, Any]) -> bool:
        self.write_raw(b"{'seq': %d, 'result': {'session': 's1'}}\n" % request["seq"])
        return True


if __name__ == "__main__":
    run(InvalidJsonServer)
