"""ACCESS-7 broken subtly: the guard checks that the file was read in this session, not that it is
unchanged since: an out-of-band change after the read is overwritten."""

from __future__ import annotations

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.sandbox import FileTools, SandboxRefusal
from tests.subjects.mutants._access_support import mutant_host

RULE = "ACCESS-7"


class WasReadFileTools(FileTools):
    def _guard(self, session_key: str, guest: str, current: bytes | None) -> None:
        if current is not None and self.version_read(session_key, guest) is None:
            raise SandboxRefusal(f"{guest!r} exists but was not read in this session; Read it, then write",
                                 rule="ACCESS-7")


def factory() -> ReferenceHostAdapter:
    return mutant_host(file_tools_class=WasReadFileTools)
