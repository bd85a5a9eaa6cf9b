"""Every scenario file satisfies scenarios/scenario.schema.json, and every precondition names a real rule."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from pytest_toolconformance.rules import all_rules
from pytest_toolconformance.suites.host.scenarios import iter_scenario_files, scenario_schema

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
