"""ACCESS-7 broken: Write/Edit no longer check that the bytes they overwrite are the bytes last read."""

from __future__ import annotations

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.sandbox import FileTools
from tests.subjects.mutants._access_support import mutant_host

RULE = "ACCESS-7"


class UnguardedFileTools(FileTools):
    def _guard(self, session_key: str, guest: str, current: bytes | None) -> None:
        return None


def factory() -> ReferenceHostAdapter:
    return mutant_host(file_tools_class=UnguardedFileTools)
