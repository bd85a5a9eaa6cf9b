"""Known deviations: a declared failing rule turns the run green; a declared passing rule turns it red."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_toolconformance.report.deviations import Deviation, DeviationsError, load_deviations
from tests.paths import REPO

CAP1_MUTANT = "tests.subjects.mutants.cap_1_uncapped_description:factory"
QUIET = ("-p", "no:cacheprovider")
CAP1_TOML = '''
[[deviation]]
rule = "CAP-1"
reason = "descriptions are capped at 1,024 bytes until v3"
link = "https://tracker.example/HOST-12"
'''


@pytest.fixture(autouse=True)
def isolated_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    monkeypatch.setenv("PYTHONPATH", str(REPO))


def _write(tmp: Path, name: str, text: str) -> Path:
    path = tmp / name
    path.write_text(text, "utf-8")
    return path


# -- the file ------------------------------------------------------------------------------------

def test_toml_and_json_load_the_same(tmp_path: Path) -> None:
    toml = load_deviations(_write(tmp_path, "d.toml", CAP1_TOML))
    data = {"deviation": [{"rule": "CAP-1", "reason": "descriptions are capped at 1,024 bytes until v3",
                           "link": "https://tracker.example/HOST-12"}]}
    from_json = load_deviations(_write(tmp_path, "d.json", json.dumps(data)))
    assert toml.entries == from_json.entries
    assert toml.entries[0] == Deviation(index=1, rule="CAP-1", reason="descriptions are capped at 1,024 bytes until v3",
                                        link="https://tracker.example/HOST-12")
    assert load_deviations(_write(tmp_path, "empty.toml", "")).entries == ()


@pytest.mark.parametrize(
    ("name", "text", "says"),
    [
        (
            "d.toml",
            '[[deviation]]\nrule = "CAP-99"\nreason = "x"\n',
            ['entry 1 (rule = "CAP-99")', "is not a rule of this kit", "fix the ID or delete the entry"],
        ),
        ("d.toml", '[[deviation]]\nrule = "CAP-1"\n', ['entry 1 (rule = "CAP-1")', "has no reason"]),
        ("d.toml", '[[deviation]]\nrule = "CAP-1"\nreason = ""\n', ["reason must be a non-empty string"]),
        ("d.toml", '[[deviation]]\nrule = "CAP-1"\ntest = "t.py::t"\nreason = "x"\n', ["exactly one of rule or test"]),
        ("d.toml", '[[deviation]]\nrule = "CAP-1"\nreson = "x"\n', ["unknown key(s) reson"]),
        (
            "d.toml",
            '[[deviation]]\nrule = "CAP-1"\nreason = "x"\n[[deviation]]\nrule = "CAP-1"\nreason = "y"\n',
            ['entry 2 (rule = "CAP-1")', "repeats entry 1"],
        ),
        ("d.toml", "[[deviation]\nrule = 1\n", ["file: is not valid TOML", "fix the syntax"]),
        ("d.json", '{"deviation": [', ["file: is not valid JSON"]),
        ("d.json", '{"deviations": []}', ["only a list named deviation"]),
        ("d.json", '{"deviation": ["CAP-1"]}', ["entry 1: is str, not a table/object"]),
        ("d.yaml", "deviation: []", ["use .toml or .json"]),
    ],
)
def test_bad_files_are_one_line_errors_naming_file_entry_and_fix(
    tmp_path: Path, name: str, text: str, says: list[str]
) -> None:
    path = _write(tmp_path, name, text)
    with pytest.raises(DeviationsError) as err:
        load_deviations(path, source=name)
    message = str(err.value)
    assert "\n" not in message
    assert message.startswith(f"--toolconformance-deviations={name}: ")
    for part in says:
        assert part in message, message
    assert "RULES.md" not in message, "users do not have the kit's RULES.md"


def test_missing_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(DeviationsError, match="does not exist"):
        load_deviations(tmp_path / "nope.toml")


def test_test_entries_match_by_node_id_tail(tmp_path: Path) -> None:
    entry = Deviation(index=1, reason="r", test="suite_scenarios.py::test_scenario[CAP-1-cap/x]")
    assert entry.matches_test("suite_scenarios.py::test_scenario[CAP-1-cap/x]")
    assert entry.matches_test(
        "../site-packages/pytest_toolconformance/suites/suite_scenarios.py::test_scenario[CAP-1-cap/x]"
    )
    assert not entry.matches_test("suite_scenarios.py::test_scenario[CAP-1-cap/y]")
    assert not entry.matches_test("other_suite_scenarios.py::test_scenario[CAP-1-cap/x]")


def test_a_test_of_two_rules_is_excused_only_when_both_are_declared(tmp_path: Path) -> None:
    devs = load_deviations(_write(tmp_path, "d.toml", CAP1_TOML))
    assert devs.for_test("t.py::a", ["CAP-1"]) is not None
    assert devs.for_test("t.py::a", ["CAP-1", "CAP-3"]) is None
    assert devs.for_test("t.py::a", []) is None


# -- real runs -----------------------------------------------------------------------------------


def _run(pytester: pytest.Pytester, *args: str, subprocess: bool = False) -> tuple[pytest.RunResult, dict[str, Any]]:
    path = pytester.path / "report.json"
    argv = ["--toolconformance", f"--toolconformance-report={path}", *QUIET, "-rx", *args]
    result = pytester.runpytest_subprocess(*argv, timeout=600) if subprocess else pytester.runpytest(*argv)
    assert path.is_file(), result.stdout.str()[-3000:] + result.stderr.str()[-2000:]
    return result, json.loads(path.read_text("utf-8"))


def _status(report: dict[str, Any], rule: str) -> dict[str, Any]:
    return next(r for r in report["rules"] if r["id"] == rule)


def test_declared_failing_rule_turns_the_run_green(pytester: pytest.Pytester) -> None:
    deviations = _write(pytester.path, "deviations.toml", CAP1_TOML)
    result, report = _run(
        pytester, f"--toolconformance-host={CAP1_MUTANT}", f"--toolconformance-deviations={deviations}", "-k", "CAP-1"
    )
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()[-3000:]
    cap1 = _status(report, "CAP-1")
    assert cap1["status"] == "deviation"
    assert cap1["deviation"][0]["reason"] == "descriptions are capped at 1,024 bytes until v3"
    assert cap1["messages"] and "[CAP-1]" in cap1["messages"][0], "a deviation keeps the failure message"
    assert report["ok"] is True and not report["deviations"]["stale"]
    outcomes = result.parseoutcomes()
    assert outcomes.get("xfailed", 0) >= 1 and "failed" not in outcomes
    result.stdout.fnmatch_lines(['*XFAIL*CAP-1*known deviation, entry 1 (rule = "CAP-1")*'])


def test_declared_rule_that_passes_is_stale_and_fails_the_run(pytester: pytest.Pytester) -> None:
    deviations = _write(pytester.path, "deviations.toml", CAP1_TOML)
    result, report = _run(pytester, f"--toolconformance-deviations={deviations}", "-k", "CAP-1")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert result.parseoutcomes().get("failed") is None, "every test passed: only the stale entry fails the run"
    result.stdout.fnmatch_lines(
        [f'*stale deviation: entry 1 (rule = "CAP-1") in {deviations}: CAP-1 now passes; delete this entry*']
    )
    assert _status(report, "CAP-1")["status"] == "passed"
    assert report["ok"] is False and report["deviations"]["stale"][0]["rule"] == "CAP-1"
    assert report["run"]["exitstatus"] == 1


def test_test_entry_excuses_one_test(pytester: pytest.Pytester) -> None:
    _, first = _run(pytester, f"--toolconformance-host={CAP1_MUTANT}", "-k", "CAP-1")
    failing = _status(first, "CAP-1")["decided_by"]
    assert failing
    body = "".join(f'[[deviation]]\ntest = "{nodeid}"\nreason = "known"\n' for nodeid in failing)
    deviations = _write(pytester.path, "deviations.toml", body)
    result, report = _run(
        pytester, f"--toolconformance-host={CAP1_MUTANT}", f"--toolconformance-deviations={deviations}", "-k", "CAP-1"
    )
    assert result.ret == pytest.ExitCode.OK
    assert _status(report, "CAP-1")["status"] == "deviation"


def test_unknown_rule_or_malformed_file_is_a_usage_error(pytester: pytest.Pytester) -> None:
    bad = _write(pytester.path, "deviations.toml", '[[deviation]]\nrule = "CAP-42"\nreason = "x"\n')
    result = pytester.runpytest("--toolconformance", f"--toolconformance-deviations={bad}", *QUIET)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    lines = [line for line in result.stderr.lines if line.startswith("ERROR:")]
    assert lines == [
        f'ERROR: --toolconformance-deviations={bad}: entry 1 (rule = "CAP-42"): rule CAP-42 is not a rule '
        "of this kit (the report lists them all); fix the ID or delete the entry"
    ], result.stderr.str()
    broken = _write(pytester.path, "deviations.json", "{not json")
    result = pytester.runpytest("--toolconformance", f"--toolconformance-deviations={broken}", *QUIET)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: --toolconformance-deviations={broken}: file: is not valid JSON*"])


def test_deviations_hold_under_xdist(pytester: pytest.Pytester) -> None:
    deviations = _write(pytester.path, "deviations.toml", CAP1_TOML)
    result, report = _run(
        pytester,
        f"--toolconformance-host={CAP1_MUTANT}",
        f"--toolconformance-deviations={deviations}",
        "-k",
        "CAP-1",
        "-n",
        "2",
        subprocess=True,
    )
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()[-3000:]
    assert _status(report, "CAP-1")["status"] == "deviation"


def test_deviation_is_visible_in_junitxml(pytester: pytest.Pytester) -> None:
    deviations = _write(pytester.path, "deviations.toml", CAP1_TOML)
    xml = pytester.path / "junit.xml"
    result, _ = _run(
        pytester,
        f"--toolconformance-host={CAP1_MUTANT}",
        f"--toolconformance-deviations={deviations}",
        "-k",
        "CAP-1",
        f"--junitxml={xml}",
    )
    assert result.ret == pytest.ExitCode.OK
    text = xml.read_text("utf-8")
    assert '<property name="rule" value="CAP-1"' in text
    assert '<property name="toolconformance-deviation" value="rule = &quot;CAP-1&quot;"' in text


# -- entries that name their checks ----------------------------------------------
#: What the CAP-1 mutant fails: the property, and every scenario case of a description over the cap.
CAP1_PROPERTY = "test_external_descriptions_are_cut_at_1000_bytes_on_a_character_boundary"
CAP1_SCENARIOS = "test_scenario"
CAP1_PASSING_CASE = "test_scenario[CAP-1-cap/description-at-limit-unchanged]"


def _checks_entry(*checks: str) -> str:
    return f'[[deviation]]\nrule = "CAP-1"\nchecks = {json.dumps(list(checks))}\nreason = "capped at 1,024 bytes"\n'


def test_checks_must_go_with_a_rule_and_be_a_list_of_names(tmp_path: Path) -> None:
    for body in ('[[deviation]]\ntest = "t.py::t"\nchecks = ["t"]\nreason = "x"\n',
                 '[[deviation]]\nrule = "CAP-1"\nchecks = "t"\nreason = "x"\n',
                 '[[deviation]]\nrule = "CAP-1"\nchecks = []\nreason = "x"\n'):
        with pytest.raises(DeviationsError, match="checks goes with rule and is a non-empty list"):
            load_deviations(_write(tmp_path, "d.toml", body))


def test_an_entry_naming_its_checks_covers_those_alone(pytester: pytest.Pytester) -> None:
    deviations = _write(pytester.path, "deviations.toml", _checks_entry(CAP1_PROPERTY, CAP1_SCENARIOS))
    result, report = _run(pytester, f"--toolconformance-host={CAP1_MUTANT}", f"--toolconformance-deviations="
                          f"{deviations}", "-k", "CAP-1")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()[-3000:]
    assert _status(report, "CAP-1")["status"] == "deviation"
    # Naming the property alone leaves the scenario cases' failures standing: the run fails on them.
    deviations = _write(pytester.path, "deviations.toml", _checks_entry(CAP1_PROPERTY))
    result, report = _run(pytester, f"--toolconformance-host={CAP1_MUTANT}", f"--toolconformance-deviations="
                          f"{deviations}", "-k", "CAP-1")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert _status(report, "CAP-1")["status"] == "failed"
    assert result.parseoutcomes().get("xfailed") == 1


def test_a_named_check_that_passes_is_stale_while_the_rule_fails_elsewhere(pytester: pytest.Pytester) -> None:
    """The reason of a check that now passes cannot hide behind the rule's other failures."""
    deviations = _write(pytester.path, "deviations.toml",
                        _checks_entry(CAP1_PROPERTY, CAP1_SCENARIOS, CAP1_PASSING_CASE))
    result, report = _run(pytester, f"--toolconformance-host={CAP1_MUTANT}", f"--toolconformance-deviations="
                          f"{deviations}", "-k", "CAP-1")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert _status(report, "CAP-1")["status"] == "deviation"
    assert [s["check"] for s in report["deviations"]["stale"]] == [CAP1_PASSING_CASE]
    shown = CAP1_PASSING_CASE.replace("[", "?").replace("]", "?")  # fnmatch reads brackets as a class
    result.stdout.fnmatch_lines([f"*stale deviation: entry 1 (rule = \"CAP-1\")*its check {shown} now "
                                 "passes (whatever else of CAP-1 fails); remove it from checks*"])
    # --toolconformance-deviations-update takes the stale check out and keeps the entry.
    _run(pytester, f"--toolconformance-host={CAP1_MUTANT}", f"--toolconformance-deviations={deviations}",
         "--toolconformance-deviations-update", "-k", "CAP-1")
    kept = load_deviations(deviations).entries
    assert [(e.rule, e.checks) for e in kept] == [("CAP-1", (CAP1_PROPERTY, CAP1_SCENARIOS))]
