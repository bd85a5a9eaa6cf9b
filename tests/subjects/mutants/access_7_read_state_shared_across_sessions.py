"""ACCESS-7 broken: the read-before-write guard keeps one read-state per file for the whole workspace
instead of one per session, so a session's Write/Edit over content another session changed (through
its own Write) since this session read it is admitted.

Cell: the change is made by another session's Write/Edit in the same workspace, after both read the
file; a change made on disk (or by anything else than a Write/Edit) is still refused, and a session's
own writes still license its next one. Sentence (seed ¶42; RULES.md ACCESS-7): "Write/Edit retain
their post-queue live checks and byte/version read-before-write guard": "a write over content changed
since it was read is refused."
"""

from __future__ import annotations

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.sandbox import FileTools
from tests.subjects.mutants._access_support import mutant_host

RULE = "ACCESS-7"


class SharedReadStateTools(FileTools):
    def version_read(self, session_key: str, file_path: str) -> str | None:
        return super().version_read("*", file_path)

    def _remember(self, session_key: str, guest: str, data: bytes) -> str:
        return super()._remember("*", guest, data)


def factory() -> ReferenceHostAdapter:
    return mutant_host(file_tools_class=SharedReadStateTools)
