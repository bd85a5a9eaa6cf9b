"""ACCESS-8 broken, for GitStatus: its ``path`` is taken for a working directory rather than a
directory scope, so GitStatus runs ``git status`` wherever it is pointed, with the whole workspace as
its roots, whatever roots the live policy (and so ``currentAccess()``) narrows access to. Every other
file and directory tool keeps the live roots."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from tests.subjects.mutants._access_support import UnconfinedToolSession, mutant_host

RULE = "ACCESS-8"


class GitStatusUnconfinedSession(UnconfinedToolSession):
    def unconfined(self, name: str, params: dict[str, Any]) -> bool:
        return name == "GitStatus"


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=GitStatusUnconfinedSession)
