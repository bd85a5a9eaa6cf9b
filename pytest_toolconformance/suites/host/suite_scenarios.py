"""Every language-neutral scenario case, run through the adapter contract."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_toolconformance.host.client import HostClient
from pytest_toolconformance.suites.host.scenarios import Case, CaseRunner, load_cases

CASES = load_cases()


def _param(case: Case) -> object:
    return pytest.param(case, id=case.param_id, marks=[pytest.mark.toolconformance(*case.rules)])


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_scenario(case: Case, toolconformance_host: HostClient, request: pytest.FixtureRequest) -> None:
    toolconformance_host.require(*case.data.get("requires", []))
    if "collisions" in case.data:
        toolconformance_host.require_collisions(case.data["collisions"])
    # Only a case that works in a directory of its own gets one: most never do, and a folder made and
    # later removed was most of such a case's system time.
    root: Path | None = request.getfixturevalue("toolconformance_folder") if case.uses_folder else None
    CaseRunner(toolconformance_host, case, root=root).run()
