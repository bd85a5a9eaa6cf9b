"""ACCESS-7 broken, cell "the session's own write then Edit (allowed)": the read-before-write guard
records a version only when the session Reads a file, not when it writes one, so a session that wrote
a file must read it back before it may Edit or Write it again. The guard protects against content
changed *since it was read*; the session's own write is the content it knows, and refusing it is a
guard that no longer tracks what the session has seen."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.sandbox import FileTools, ToolResult
from tests.subjects.mutants._access_support import mutant_host

RULE = "ACCESS-7"


class ReadOnlyVersionsFileTools(FileTools):
    reading = False

    def read(self, access_provider: Any, file_path: str, session_key: str) -> ToolResult:
        self.reading = True
        try:
            return super().read(access_provider, file_path, session_key)
        finally:
            self.reading = False

    def _remember(self, session_key: str, guest: str, data: bytes) -> str:
        version = super()._remember(session_key, guest, data)
        if not self.reading:
            with self._versions_lock:
                self._versions.pop((session_key, guest), None)
        return version


def factory() -> ReferenceHostAdapter:
    return mutant_host(file_tools_class=ReadOnlyVersionsFileTools)
