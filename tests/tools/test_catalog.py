"""docs/rules.md is generated from the one source of truth, and every rule is checked by something."""

from __future__ import annotations

import difflib
import importlib.util
import json
import sys
from pathlib import Path

import pytest

from pytest_toolconformance.rules import FIX_BY_FAMILY, all_rules, rules_text
from tests.paths import REPO


def _load_catalog():  # noqa: ANN202 - a module
    """tools/catalog.py is a developer tool beside the package, not importable from it."""
    spec = importlib.util.spec_from_file_location("toolconformance_catalog_tool", REPO / "tools" / "catalog.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


catalog = _load_catalog()
PLUGIN_SUITES_PENDING = (
    "plugin-bound rules are checked by pytest_toolconformance/suites/plugin/, which the plugin-suites work "
    "is creating; until that folder exists those rules count as missing"
)


def _checked(coverage: catalog.Coverage, kinds: set[str]) -> set[str]:
    return {rule for rule, checks in coverage.checks.items() if any(c.kind in kinds for c in checks)}


def test_docs_rules_md_is_generated_and_current() -> None:
    path = REPO / catalog.CATALOG_PATH
    expected = catalog.generate(REPO)
    actual = path.read_text("utf-8") if path.is_file() else ""
    if actual != expected:
        diff = "".join(list(difflib.unified_diff(actual.splitlines(True), expected.splitlines(True),
                                                 "docs/rules.md (committed)", "docs/rules.md (generated)"))[:40])
        pytest.fail(
            f"docs/rules.md is out of date with RULES.md, scenarios/, the suites and tests/subjects/mutants/; "
            f"regenerate it with `{catalog.REGENERATE}` and commit the result. First lines of the diff:\n{diff}"
        )


def test_every_host_rule_has_a_scenario_or_suite_test() -> None:
    coverage = catalog.scan(REPO)
    checked = _checked(coverage, {"scenario", "suite"})
    missing = [r.id for r in all_rules().values() if r.binds in ("host", "both") and r.id not in checked]
    assert not missing, (
        f"rules of RULES.md with no scenario case (scenarios/*/*.json) and no suite test "
        f'(suites/suite_*.py marked toolconformance("RULE")): {missing}'
    )


@pytest.mark.xfail(not catalog.plugin_suites_dir(REPO).is_dir(), reason=PLUGIN_SUITES_PENDING, strict=False)
def test_every_plugin_rule_has_a_test() -> None:
    coverage = catalog.scan(REPO)
    checked = _checked(coverage, {"scenario", "suite", "plugin-suite"})
    missing = [r.id for r in all_rules().values() if r.binds == "plugin" and r.id not in checked]
    assert not missing, (
        f"plugin rules of RULES.md with no scenario, suite or plugin suite test "
        f"(pytest_toolconformance/suites/plugin/): {missing}"
    )


def test_no_test_or_mutant_names_an_unknown_rule() -> None:
    unknown = catalog.unknown_rule_names(catalog.scan(REPO))
    assert not unknown, (
        "rule IDs that RULES.md does not define (fix the ID; the catalog is "
        f"pytest_toolconformance/data/RULES.md): {[f'{where}: {rule}' for where, rule in unknown]}"
    )


def test_every_dimension_cell_names_checks_and_mutants_that_exist() -> None:
    """Each cell of a rule's dimension table (data/dimensions.json) is covered by at least one check that
    collection finds (a scenario case id, or ``suite_*.py::test_name``) and proven by at least one broken
    host that exists (test_mutants.py holds it red on its rule); its rule is a host rule. A cell nobody
    covers is not written as covered."""
    coverage = catalog.scan(REPO)
    checks = {c.name for found in coverage.checks.values() for c in found}
    mutants = {Path(m).stem for found in coverage.mutants.values() for m in found}
    rules = all_rules()
    dimensions = catalog.load_dimensions(REPO)
    assert dimensions, "no dimension table: pytest_toolconformance/data/dimensions.json is missing"
    problems = []
    for rule, cells in dimensions.items():
        if rule not in rules or rules[rule].binds not in ("host", "both"):
            problems.append(f"{rule}: not a host rule of RULES.md")
        for cell in cells:
            where = f"{rule} / {cell['dimension']} / {cell['cell']}"
            if not cell["checks"]:
                problems.append(f"{where}: no check covers it")
            if not cell["mutants"]:
                problems.append(f"{where}: no broken host in tests/subjects/mutants/ proves its check can fail")
            problems += [f"{where}: no check {name!r} is collected" for name in cell["checks"] if name not in checks]
            problems += [f"{where}: no mutant {name!r} in tests/subjects/mutants/" for name in cell["mutants"]
                         if name not in mutants]
    assert not problems, problems


def test_a_dimension_cell_naming_a_missing_check_is_found(tmp_path: Path) -> None:
    """The test above can fail: a cell naming a check nobody wrote is not in the scan's names."""
    dimensions = {"RO-3": [{"dimension": "tools", "cell": "x", "checks": ["ro/no-such-case"], "mutants": []}]}
    (tmp_path / catalog.DIMENSIONS_PATH).parent.mkdir(parents=True)
    (tmp_path / catalog.DIMENSIONS_PATH).write_text(json.dumps(dimensions), "utf-8")
    names = {c.name for found in catalog.scan(REPO).checks.values() for c in found}
    assert catalog.load_dimensions(tmp_path) == dimensions and "ro/no-such-case" not in names
    assert "ro/exact-name-of-another-plugin-classifies-nothing" in names
    rendered = catalog.render(catalog.scan(REPO), dimensions=dimensions)
    assert "| tools | x | `ro/no-such-case` | none yet |" in rendered


def test_bundled_rules_equal_the_spec(shared_dir: Path) -> None:
    spec = shared_dir / "spec" / "RULES.md"
    if not spec.is_file():
        pytest.skip(f"{spec} is not here")
    assert rules_text() == spec.read_text("utf-8"), (
        f"pytest_toolconformance/data/RULES.md differs from {spec}; copy the spec over it "
        f"(cp {spec} {REPO / 'pytest_toolconformance/data/RULES.md'}) and regenerate docs/rules.md"
    )


# -- the scanner and generator on a small made-up repository -------------------------------------------

SUITE = """
import pytest

pytestmark = [pytest.mark.toolconformance("EXT-1")]

@pytest.mark.toolconformance("CAP-2", "CAP-3")
def test_caps(toolconformance_host):
    pass

@pytest.mark.parametrize("x", [pytest.param(1, marks=pytest.mark.toolconformance("REASON-1"))])
def test_param(x):
    pass

@pytest.mark.toolconformance("PLAN-1")
class TestPlan:
    @pytest.mark.toolconformance("PLAN-2")
    def test_one(self):
        pass

def helper():
    return pytest.mark.toolconformance("NOPE-9")
"""


@pytest.fixture
def fake_repo(tmp_path: Path) -> Path:
    (tmp_path / "scenarios" / "cap").mkdir(parents=True)
    (tmp_path / "scenarios" / "cap" / "x.json").write_text(
        json.dumps(
            {"family": "CAP", "cases": [{"id": "cap/one", "rules": ["CAP-1"]}, {"id": "cap/bad", "rules": ["CAP-99"]}]}
        )
    )
    suites = tmp_path / "pytest_toolconformance" / "suites" / "host"
    suites.mkdir(parents=True)
    (suites / "suite_demo.py").write_text(SUITE)
    (suites / "helpers.py").write_text(SUITE.replace("EXT-1", "EXT-2"))  # not a suite_*.py: not scanned
    mutants = tmp_path / "tests" / "subjects" / "mutants"
    mutants.mkdir(parents=True)
    (mutants / "cap_1_x.py").write_text('RULE = "CAP-1"\n')
    (mutants / "base.py").write_text('RULE = "NOT-A-MUTANT"\n')
    plugins = tmp_path / "tests" / "subjects" / "plugins"
    (plugins / "js" / "broken_err_4").mkdir(parents=True)
    (plugins / "js" / "broken_err_4" / "index.mjs").write_text("export default {}\n")
    (plugins / "js" / "conforming").mkdir()
    (plugins / "python").mkdir()
    (plugins / "python" / "broken_name_1.py").write_text("")
    (plugins / "python" / "broken_name_1.txt").write_text("")  # not a plugin
    return tmp_path


def test_scan_finds_scenarios_suite_markers_and_mutants(fake_repo: Path) -> None:
    coverage = catalog.scan(fake_repo)
    names = {rule: sorted(c.name for c in checks) for rule, checks in coverage.checks.items()}
    assert names["CAP-1"] == ["cap/one"]
    assert names["CAP-2"] == names["CAP-3"] == ["suite_demo.py::test_caps"]
    assert names["EXT-1"] == [
        "suite_demo.py::TestPlan::test_one",
        "suite_demo.py::test_caps",
        "suite_demo.py::test_param",
    ]
    assert names["REASON-1"] == ["suite_demo.py::test_param"]
    assert names["PLAN-1"] == names["PLAN-2"] == ["suite_demo.py::TestPlan::test_one"]
    assert "EXT-2" not in names
    assert coverage.mutants == {"CAP-1": ["tests/subjects/mutants/cap_1_x.py"]}
    assert coverage.broken_plugins == {
        "ERR-4": ["tests/subjects/plugins/js/broken_err_4"],
        "NAME-1": ["tests/subjects/plugins/python/broken_name_1.py"],
    }
    unknown = catalog.unknown_rule_names(coverage)
    assert unknown == [
        ("pytest_toolconformance/suites/host/suite_demo.py", "NOPE-9"),
        ("scenarios/cap/x.json", "CAP-99"),
    ]


def test_plugin_suites_count_when_present(fake_repo: Path) -> None:
    plugin_suites = catalog.plugin_suites_dir(fake_repo)
    plugin_suites.mkdir()
    (plugin_suites / "suite_names.py").write_text(
        'import pytest\n@pytest.mark.toolconformance("NAME-1")\ndef test_file_path():\n    pass\n'
    )
    # The plugin suites parametrize by plugin and tool, taking the rules as data: a list, a constant, a helper.
    (plugin_suites / "suite_reg.py").write_text(
        'RULES = ["NAME-2", "NAME-3"]\n'
        'def _load_rule(put):\n    """REG-1 or whatever failed."""\n    return [put.error_rule if put.error '
        'else "REG-1"]\n'
        "@for_each_tool(RULES)\ndef test_names(subject):\n    pass\n"
        "@for_each_plugin(_load_rule, loaded=False)\ndef test_loads(subject):\n    pass\n"
        '@for_each_tool(["COST-2"], select=lambda t: t.name != "UTF-8")\ndef test_cost(subject):\n    pass\n'
    )
    coverage = catalog.scan(fake_repo)
    found = {
        rule: [(c.kind, c.name) for c in coverage.checks[rule]]
        for rule in ("NAME-1", "NAME-2", "NAME-3", "REG-1", "COST-2")
    }
    assert found == {
        "NAME-1": [("plugin-suite", "suite_names.py::test_file_path")],
        "NAME-2": [("plugin-suite", "suite_reg.py::test_names")],
        "NAME-3": [("plugin-suite", "suite_reg.py::test_names")],
        "REG-1": [("plugin-suite", "suite_reg.py::test_loads")],
        "COST-2": [("plugin-suite", "suite_reg.py::test_cost")],
    }
    assert "UTF-8" not in coverage.checks and not any(r == "UTF-8" for _, r in coverage.named)


def test_render_lists_every_rule_with_anchor_reading_checks_mutants_and_fix(fake_repo: Path) -> None:
    text = catalog.render(catalog.scan(fake_repo))
    for rule in all_rules().values():
        assert f"\n### {rule.id}\n" in text
        assert f"](#{catalog.anchor(rule.id)})" in text
        if rule.reading:
            assert rule.reading in text
    cap1 = text.split("\n### CAP-1\n", 1)[1].split("\n### ", 1)[0]
    assert "scenario `cap/one`" in cap1
    assert "cap_1_x" in cap1
    err4 = text.split("\n### ERR-4\n", 1)[1].split("\n### ", 1)[0]
    assert "broken plugin [`js/broken_err_4`](../tests/subjects/plugins/js/broken_err_4)" in err4, err4
    assert "**How to fix a failure:**" in cap1 and "-k CAP-1" in cap1
    assert text.startswith("<!-- GENERATED by `python tools/catalog.py`")
    assert catalog.render(catalog.scan(fake_repo)) == text, "the catalog must be deterministic"


def test_main_writes_then_check_passes_and_detects_drift(fake_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert catalog.main(["--root", str(fake_repo), "--check"]) == 1
    assert "python tools/catalog.py" in capsys.readouterr().err
    assert catalog.main(["--root", str(fake_repo)]) == 0
    assert (fake_repo / "docs" / "rules.md").is_file()
    assert catalog.main(["--root", str(fake_repo), "--check"]) == 0
    (fake_repo / "tests" / "subjects" / "mutants" / "cap_2_y.py").write_text('RULE = "CAP-2"\n')
    assert catalog.main(["--root", str(fake_repo), "--check"]) == 1


def test_every_family_has_fix_advice() -> None:
    families = {r.family for r in all_rules().values()}
    assert families <= set(FIX_BY_FAMILY), sorted(families - set(FIX_BY_FAMILY))
    for rule in all_rules().values():
        line = catalog.fix_line(rule)
        assert rule.id in line and len(line) < 420, line
