"""ACCESS-8 broken: Glob, Grep and Search called without a ``path`` search the whole workspace: the
default scope is taken to be always allowed, whatever roots the live policy narrows access to."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from tests.subjects.mutants._access_support import UnconfinedToolSession, mutant_host

RULE = "ACCESS-8"


class OneToolUnconfinedSession(UnconfinedToolSession):
    def unconfined(self, name: str, params: dict[str, Any]) -> bool:
        return name in ("Glob", "Grep", "Search") and "path" not in params


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=OneToolUnconfinedSession)
