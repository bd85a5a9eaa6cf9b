"""PLANFILE-3 broken, in the cell "copy: the plan file away, a file onto the plan path": the sandbox takes a
copy whose destination is the plan path as a write of the plan file, so on a Plan turn any file in the
roots can be copied onto the plan path. Copying the plan file away is still refused."""

from __future__ import annotations

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from tests.subjects.mutants._access_support import mutant_host
from tests.subjects.mutants.planfile_3_rename_onto_plan_admitted import OntoPlanSandbox

RULE = "PLANFILE-3"


class CopyOntoPlanSandbox(OntoPlanSandbox):
    kind = "copy"


def factory() -> ReferenceHostAdapter:
    return mutant_host(sandbox_class=CopyOntoPlanSandbox)
