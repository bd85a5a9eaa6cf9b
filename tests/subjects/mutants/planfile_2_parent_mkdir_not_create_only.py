"""PLANFILE-2 broken, in the cell "the sandbox: parents created only where missing": on a read-only turn
the sandbox admits a mkdir of an ancestor of the plan file whether or not it exists (``mkdir -p``), so
making an existing plan directory again is admitted instead of refused. Other directories are refused."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.sandbox import Components, Sandbox
from tests.subjects.mutants._access_support import mutant_host

RULE = "PLANFILE-2"


class MkdirPSandbox(Sandbox):
    def make_dir(self, comps: Components, *, create_only: bool = False) -> Any:
        return super().make_dir(comps, create_only=False)


def factory() -> ReferenceHostAdapter:
    return mutant_host(sandbox_class=MkdirPSandbox)
