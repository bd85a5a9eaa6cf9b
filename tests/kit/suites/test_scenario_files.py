"""Every scenario file satisfies scenarios/scenario.schema.json, every precondition names a real rule, and a
case gets a sandbox folder of its own exactly when a step works in one."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from pytest_toolconformance.host.client import HostClient
from pytest_toolconformance.host.inprocess import reference_adapter
from pytest_toolconformance.rules import all_rules
from pytest_toolconformance.suites.host.scenarios import (
    Case,
    CaseRunner,
    iter_scenario_files,
    load_cases,
    scenario_schema,
)

FILES = list(iter_scenario_files())


@pytest.mark.parametrize("path", FILES, ids=[f"{p.parent.name}/{p.name}" for p in FILES])
def test_scenario_file_satisfies_the_schema(path: Path) -> None:
    doc = json.loads(path.read_text("utf-8"))
    errors = sorted(jsonschema.Draft202012Validator(scenario_schema()).iter_errors(doc), key=str)
    assert not errors, f"{path}: {errors[0].message} at {list(errors[0].absolute_path)}"
    known = all_rules()
    for case in doc["cases"]:
        for step in case["steps"]:
            named = [step.get("rule"), *((step.get("expect") or {}).get("needs") or {})]
            unknown = [rule for rule in named if rule is not None and rule not in known]
            assert not unknown, f"{path}: case {case['id']} names unknown rules {unknown}"


def _case(steps: list[dict[str, object]]) -> Case:
    return Case(file="made/up.json", family="made", data={"id": "made-up", "rules": ["REG-1"], "steps": steps})


@pytest.mark.parametrize(
    ("steps", "uses"),
    [
        ([{"do": "mkfs", "files": {"a.txt": "x"}}], True),
        ([{"do": "open", "spec": {"sandboxRoot": "${root}"}}], True),
        ([{"do": "open"}, {"do": "fs", "path": "a.txt", "expect": {"equals": {"exists": False}}}], True),
        ([{"do": "open"}, {"do": "compose", "session": "s"}], False),
    ],
    ids=["mkfs", "root-variable", "fs", "neither"],
)
def test_a_case_gets_a_folder_exactly_when_a_step_works_in_one(steps: list[dict[str, object]], uses: bool) -> None:
    case = _case(steps)
    assert case.uses_folder is uses
    adapter = reference_adapter()
    runner = CaseRunner(HostClient(adapter), case)
    adapter.close()
    assert (runner.root is not None) is uses
    assert ("root" in runner.variables) is uses
    if runner.root is not None:
        assert runner.root.is_dir()
        runner.root.rmdir()


def test_every_scenario_case_that_names_its_folder_is_given_one() -> None:
    # The run hands a folder only to the cases Case.uses_folder names: a case whose text names ${root}
    # or whose steps make or read files must be among them.
    for case in load_cases():
        text = json.dumps(case.data)
        if "${root}" in text or any(s.get("do") in ("mkfs", "fs") for s in case.data.get("steps", [])):
            assert case.uses_folder, case.id
