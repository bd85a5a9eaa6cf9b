"""PLANFILE-5 broken: a delegated child's ``currentAccess()`` carries no ``planFile``, but the sandbox
access its file operations run under is built with its parent's live ``planFile``: the allowance is
forwarded below the descriptor, so the child may write the parent's plan file.

Cell: the sandbox operations (and core Write/Edit) of a child of a Project conversation's Plan turn;
the child's descriptor, as the adapter and plugin code read it, is right. Sentence (seed ¶41;
RULES.md PLANFILE-5): "It is absent on host and Build turns and on all delegated read-only origins.
Do not construct or forward this allowance to a child; read currentAccess() at execution time."
"""

from __future__ import annotations

from dataclasses import replace

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.sandbox import SandboxAccess
from reference_host.session import Session
from tests.subjects.mutants._access_support import mutant_host

RULE = "PLANFILE-5"


class ForwardedSandboxPlanSession(Session):
    def sandbox_access(self) -> SandboxAccess:
        access = super().sandbox_access()
        if self.parent is not None and access.plan_file is None:
            return replace(access, plan_file=self.parent.sandbox_access().plan_file)
        return access


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=ForwardedSandboxPlanSession)
