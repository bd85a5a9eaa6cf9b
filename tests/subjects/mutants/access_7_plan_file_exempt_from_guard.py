"""ACCESS-7 broken in the cell "the plan file, written by Write/Edit on a Project Plan turn".

Sentence (seed ¶42): "Write/Edit retain their post-queue live checks and byte/version read-before-write
guard." RULES.md ACCESS-7: "a write over content changed since it was read is refused."

Cell: a managed or local Project conversation's Plan turn writes its own plan file with Write or Edit
(direct or queued); the plan file exists and was never read in this session, or changed on disk since
the session read or wrote it.

What the host does: it treats the plan file as the Plan turn's own scratch file and skips the
read-before-write guard when the write is admitted by the plan-file allowance. Every other write
(Build turns, every other file) keeps the guard; the sandbox's allowance itself (which path, which
parents) is untouched.
"""

from __future__ import annotations

import threading
from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.sandbox import FileTools, SandboxAccess
from tests.subjects.mutants._access_support import mutant_host

RULE = "ACCESS-7"

_STASH = threading.local()


class PlanFileUnguardedTools(FileTools):
    def _enqueue_mutation(self, label: str, access_provider: Any, file_path: object, session_key: str, make: Any):  # type: ignore[no-untyped-def]
        def provider() -> SandboxAccess:
            access = access_provider()
            _STASH.plan_file = access.plan_file if access.read_only else None
            return access

        return super()._enqueue_mutation(label, provider, file_path, session_key, make)

    def _guard(self, session_key: str, guest: str, current: bytes | None) -> None:
        if current is not None and getattr(_STASH, "plan_file", None) == guest:
            return  # the plan file: no read-before-write guard
        super()._guard(session_key, guest, current)


def factory() -> ReferenceHostAdapter:
    return mutant_host(file_tools_class=PlanFileUnguardedTools)
