"""ACCESS-8 broken: the Search tool ignores the live policy's roots (the other file tools keep them)."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from tests.subjects.mutants._access_support import UnconfinedToolSession, mutant_host

RULE = "ACCESS-8"


class OneToolUnconfinedSession(UnconfinedToolSession):
    def unconfined(self, name: str, params: dict[str, Any]) -> bool:
        return name == "Search"


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=OneToolUnconfinedSession)
