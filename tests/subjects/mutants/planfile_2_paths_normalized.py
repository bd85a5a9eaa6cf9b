"""PLANFILE-2 broken: guest paths are normalized (``..``, ``.``, doubled slashes) before they are
compared with the plan path, so another spelling reaches the allowance."""

from __future__ import annotations

import posixpath

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.sandbox import Components, Sandbox
from tests.subjects.mutants._access_support import mutant_host

RULE = "PLANFILE-2"
ALSO = {
    "PLANFILE-4": "the paired executor uses the same path rules, so its doubled-slash row is admitted too",
}


class NormalizingSandbox(Sandbox):
    def resolve_guest_path(self, path: str) -> Components:
        if isinstance(path, str) and path.startswith("/") and "\x00" not in path:
            path = "/" + posixpath.normpath(path).lstrip("/")
        return super().resolve_guest_path(path)


def factory() -> ReferenceHostAdapter:
    return mutant_host(sandbox_class=NormalizingSandbox)
