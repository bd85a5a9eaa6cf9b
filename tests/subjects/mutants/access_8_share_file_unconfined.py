"""ACCESS-8 broken: ShareFile shares a workspace file outside the live roots that ``currentAccess()``
reports (and that Read, Write, ListDir, ... are held to).

Cell: ShareFile, a core tool whose primary single-file target is ``file_path`` (seed ¶29) but which is
not one of the read/write/search tools; every other file and directory tool is confined as before.
Sentence (seed ¶42; RULES.md ACCESS-8): "File and directory tools consume the same host policy."
"""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from tests.subjects.mutants._access_support import UnconfinedToolSession, mutant_host

RULE = "ACCESS-8"


class ShareFileUnconfinedSession(UnconfinedToolSession):
    def unconfined(self, name: str, params: dict[str, Any]) -> bool:
        return name == "ShareFile"


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=ShareFileUnconfinedSession)
