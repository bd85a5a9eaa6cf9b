"""PLANFILE-1 broken: a Project conversation's Plan turn keeps its ``planFile`` after the account's live
scope loses the conversation's Project, so the sandbox still admits the plan write.

Cell: a managed or local Project conversation's own Plan turn whose Project is revoked while it runs
(docs/readings.md, "Readings fixed by the sandbox audit": "Revoking the conversation's Project from
the live scope ... withdraws its plan file. The next currentAccess() has no planFile, and a plan write
is refused"); ``projectIds`` itself does drop the Project (ACCESS-2 holds). Sentence (seed ¶41;
RULES.md PLANFILE-1): "PluginAccessDescriptor.planFile?: string is a core-minted exact guest path,
present only on a managed or local Project conversation's own Plan turn."
"""

from __future__ import annotations

from dataclasses import replace

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.access import AccessDescriptor
from reference_host.session import Session
from tests.subjects.mutants._access_support import mutant_host

RULE = "PLANFILE-1"


class PlanFileOutlivesProjectSession(Session):
    def current_access(self) -> AccessDescriptor:
        access = super().current_access()
        if access.plan_file is None and self.restrictions.plan_file is not None:
            return replace(access, plan_file=self.restrictions.plan_file)
        return access


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=PlanFileOutlivesProjectSession)
