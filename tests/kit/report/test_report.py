"""The conformance report by rule: statuses, the JSON Schema, serial = xdist, junit properties, Markdown."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from typing import Any

import jsonschema
import pytest

from pytest_toolconformance.report import model as report_mod
from pytest_toolconformance.report.model import OutcomeCollector, PhaseFacts, build_report, report_schema, rule_status
from pytest_toolconformance.rules import UNCHECKED_PLUGIN_SIDE, all_rules
from tests.paths import REPO

CAP1_MUTANT = "tests.subjects.mutants.cap_1_uncapped_description:factory"
QUIET = ("-p", "no:cacheprovider")


@pytest.fixture(autouse=True)
def isolated_env(monkeypatch: pytest.MonkeyPatch) -> None:
    # On GitHub Actions the inner runs would otherwise append to the real job summary.
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    # Subprocess runs (and their xdist workers) must import tests.subjects.mutants from this checkout.
    monkeypatch.setenv("PYTHONPATH", str(REPO))


def validate(report: dict[str, Any]) -> None:
    jsonschema.Draft202012Validator(report_schema()).validate(report)


def run_kit(pytester: pytest.Pytester, *args: str, subprocess: bool = False,
            name: str = "report.json") -> tuple[pytest.RunResult, dict[str, Any]]:
    """One kit run with a report; returns the run and the report, checked against the schema."""
    path = pytester.path / name
    argv = ["--toolconformance", f"--toolconformance-report={path}", *QUIET, *args]
    if subprocess:
        result = pytester.runpytest_subprocess(*argv, timeout=600)
    else:
        result = pytester.runpytest(*argv)
    assert path.is_file(), f"no report at {path}:\n{result.stdout.str()[-3000:]}\n{result.stderr.str()[-2000:]}"
    report = json.loads(path.read_text("utf-8"))
    validate(report)
    return result, report


def by_status(report: dict[str, Any]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for rule in report["rules"]:
        out.setdefault(rule["status"], set()).add(rule["id"])
    return out


# -- status rules, without pytest ---------------------------------------------------------------

def _facts(nodeid: str, when: str, outcome: str, rules: tuple[str, ...] = ("CAP-1",), **kw: Any) -> PhaseFacts:
    return PhaseFacts(nodeid=nodeid, when=when, outcome=outcome, rules=rules, **kw)


def _record(*phases: PhaseFacts) -> report_mod.TestRecord:
    collector = OutcomeCollector()
    collector.add_all(phases)
    return next(iter(collector.tests.values()))


def test_test_outcome_over_phases() -> None:
    ok = ("t", "setup", "passed")
    assert _record(_facts(*ok), _facts("t", "call", "passed"), _facts("t", "teardown", "passed")).outcome == "passed"
    assert _record(_facts("t", "setup", "failed", message="fixture broke")).outcome == "errored"
    assert _record(_facts(*ok), _facts("t", "call", "passed"),
                   _facts("t", "teardown", "failed", message="cleanup")).outcome == "errored"
    assert _record(_facts(*ok), _facts("t", "call", "failed", message="x"),
                   _facts("t", "teardown", "failed", message="y")).outcome == "failed"
    assert _record(_facts(*ok), _facts("t", "call", "failed", message="x", errored=True)).outcome == "errored"
    skipped = _record(_facts("t", "setup", "skipped", message="needs sandbox"))
    assert skipped.outcome == "skipped" and skipped.skip_reasons == ["needs sandbox"]
    xfailed = _record(_facts(*ok), _facts("t", "call", "skipped", xfail_reason="known"))
    assert xfailed.outcome == "skipped" and xfailed.skip_reasons == ["xfail: known"]
    deviation = _record(_facts(*ok), _facts("t", "call", "skipped", xfail_reason="d", deviation='rule = "CAP-1"',
                                            message="[CAP-1] expected"))
    assert deviation.outcome == "deviation" and deviation.messages == ["[CAP-1] expected"]


def test_rule_status_precedence_and_not_run_is_never_passed() -> None:
    def rec(outcome: str) -> report_mod.TestRecord:
        record = report_mod.TestRecord(outcome, ("CAP-1",))
        record.seen.add(outcome)
        return record

    assert rule_status([]) == "not-run"
    assert rule_status([rec("passed"), rec("failed"), rec("errored")]) == "failed"
    assert rule_status([rec("passed"), rec("errored"), rec("deviation")]) == "errored"
    assert rule_status([rec("passed"), rec("deviation")]) == "deviation"
    assert rule_status([rec("passed"), rec("skipped")]) == "passed"
    assert rule_status([rec("skipped"), rec("skipped")]) == "skipped"


def test_built_report_is_valid_and_scoped() -> None:
    collector = OutcomeCollector()
    collector.add_all([_facts("a", "setup", "passed"), _facts("a", "call", "failed", message="[CAP-1] no"),
                       _facts("b", "call", "passed", rules=("REG-1",))])
    report = build_report(collector, kit_version="0", host={"spec": "x", "name": "h", "version": "1",
                                                            "capabilities": []}, plugins=[], suites="host")
    validate(report)
    statuses = {r["id"]: r["status"] for r in report["rules"]}
    assert statuses["CAP-1"] == "failed" and statuses["REG-1"] == "passed"
    assert statuses["CAP-2"] == "not-run"
    # A plugin rule no test touched is outside a host-only run, not silently "not-run" or "passed".
    out = {r["id"] for r in report["out_of_scope"]}
    assert "REG-2" in out and "REG-2" not in statuses
    assert set(statuses) | out == set(all_rules())
    assert report["ok"] is False and report["why"] == ["1 rule(s) failed, 0 errored"]
    # The rule's own text travels with the report: it must read without the kit's repository.
    cap1 = next(r for r in report["rules"] if r["id"] == "CAP-1")
    assert cap1["statement"] == all_rules()["CAP-1"].statement and cap1["fix"] and cap1["seed"].startswith("¶")


def test_plugin_run_scopes_out_host_rules() -> None:
    collector = OutcomeCollector()
    collector.add(_facts("a", "call", "passed", rules=("REG-1",)))
    report = build_report(collector, kit_version="0", host={"spec": "x", "name": None, "version": None,
                                                            "capabilities": [], "checked": False},
                          plugins=["p"], suites="plugin")
    validate(report)
    scoped = {r["id"] for r in report["rules"]}
    assert scoped == {r.id for r in all_rules().values() if r.plugin_rule} - set(UNCHECKED_PLUGIN_SIDE)
    host_only = {r.id for r in all_rules().values() if not r.plugin_rule}
    assert {r["id"] for r in report["out_of_scope"]} == host_only | set(UNCHECKED_PLUGIN_SIDE)
    assert all("checks plugins only" in r["reason"] for r in report["out_of_scope"] if r["id"] in host_only)
    # A plugin rule no plugin check can observe says so, rather than "not-run".
    assert all(r["reason"] == UNCHECKED_PLUGIN_SIDE[r["id"]] for r in report["out_of_scope"]
               if r["id"] not in host_only)
    assert report["summary"]["rules"] == len(scoped) and report["ok"] is True


def test_not_applicable_and_blocked_are_their_own_outcomes() -> None:
    collector = OutcomeCollector()
    collector.add_all([
        _facts("na", "setup", "skipped", rules=("SCHEMA-3",), message="not applicable: no choice between parameters"),
        _facts("bl", "setup", "skipped", rules=("REG-3",), message="blocked by REG-1: the plugin did not load"),
        _facts("reg1", "call", "failed", rules=("REG-1",), message="[REG-1] the plugin did not load"),
        _facts("sk", "setup", "skipped", rules=("CAP-2",), message="host lacks calls"),
        _facts("na2", "setup", "skipped", rules=("CAP-3",), message="not applicable: x"),
        _facts("ok", "call", "passed", rules=("CAP-3",)),
    ])
    report = build_report(collector, kit_version="0", host={"spec": "x", "name": "h", "version": "1",
                                                            "capabilities": []}, plugins=["p"], suites="all")
    validate(report)
    rules = {r["id"]: r for r in report["rules"]}
    assert rules["SCHEMA-3"]["status"] == "not-applicable"
    assert rules["SCHEMA-3"]["skip_reasons"] == ["not applicable: no choice between parameters"]
    assert rules["REG-3"]["status"] == "blocked" and rules["REG-3"]["blocked_by"] == ["REG-1"]
    # A blocked check counts toward neither rule: REG-1 is decided by its own check alone.
    assert rules["REG-1"]["status"] == "failed" and rules["REG-1"]["decided_by"] == ["reg1"]
    assert rules["CAP-2"]["status"] == "skipped"
    assert rules["CAP-3"]["status"] == "passed", "a check that ran decides over one that does not apply"
    assert report["summary"]["not-applicable"] == 1 and report["summary"]["blocked"] == 1
    assert report["why"] == ["1 rule(s) failed, 0 errored"]


def _host_report(*facts: PhaseFacts, deviations: Any = None) -> dict[str, dict[str, Any]]:
    collector = OutcomeCollector()
    collector.add_all(facts)
    report = build_report(collector, kit_version="0", host={"spec": "x", "name": "h", "version": "1",
                                                            "capabilities": []}, plugins=[], suites="host",
                          deviations=deviations)
    validate(report)
    return {r["id"]: r for r in report["rules"]}


BLOCKED_BY_RO5 = "blocked by RO-5: case ro/x needs RO-5 as a precondition and step 4 [compose] found it broken"


@pytest.mark.parametrize("ro5", ["passed", "not-run"])
def test_a_check_blocked_by_a_rule_that_does_not_fail_fails_its_own_rule(ro5: str) -> None:
    """A step labelled RO-5 failed in an RO-3 case, but RO-5 fails nowhere: the fault would be reported
    by no check, so it is RO-3's (the case's), with the step's words."""
    ro5_checks = [_facts("ro5", "call", "passed", rules=("RO-5",))] if ro5 == "passed" else []
    rules = _host_report(_facts("case", "call", "skipped", rules=("RO-3",), message=BLOCKED_BY_RO5), *ro5_checks,
                         _facts("ro3", "call", "passed", rules=("RO-3",)))
    assert rules["RO-3"]["status"] == "failed" and rules["RO-3"]["decided_by"] == ["case"]
    assert "a step labelled RO-5 failed, and RO-5 does not fail in this run" in rules["RO-3"]["messages"][0]
    assert "step 4 [compose] found it broken" in rules["RO-3"]["messages"][0]
    assert rules["RO-5"]["status"] == ro5


def test_a_block_stands_through_a_chain_of_failing_rules() -> None:
    """PLAN-2's case is blocked by RO-3, whose only check is blocked by RO-5, which fails: both stand;
    had RO-5 passed, RO-3's blocked check would fail RO-3, and then PLAN-2's block stands on RO-3."""
    chain = [_facts("plan", "call", "skipped", rules=("PLAN-2",), message="blocked by RO-3: x"),
             _facts("ro3", "call", "skipped", rules=("RO-3",), message=BLOCKED_BY_RO5)]
    rules = _host_report(*chain, _facts("ro5", "call", "failed", rules=("RO-5",), message="[RO-5] no"))
    assert [rules[r]["status"] for r in ("PLAN-2", "RO-3", "RO-5")] == ["blocked", "blocked", "failed"]
    rules = _host_report(*chain, _facts("ro5", "call", "passed", rules=("RO-5",)))
    assert [rules[r]["status"] for r in ("PLAN-2", "RO-3", "RO-5")] == ["blocked", "failed", "passed"]


def test_a_check_counted_against_its_own_rule_is_excused_by_its_deviation(tmp_path: Any) -> None:
    from pytest_toolconformance.report.deviations import load_deviations

    path = tmp_path / "d.toml"
    path.write_text('[[deviation]]\nrule = "RO-3"\nreason = "this host honours foreign claims in children"\n')
    rules = _host_report(_facts("case", "call", "skipped", rules=("RO-3",), message=BLOCKED_BY_RO5),
                         _facts("ro5", "call", "passed", rules=("RO-5",)), deviations=load_deviations(path))
    assert rules["RO-3"]["status"] == "deviation"


def test_a_run_of_zero_checks_is_not_ok() -> None:
    collector = OutcomeCollector()
    collector.add(_facts("sk", "setup", "skipped", rules=("CAP-2",), message="host lacks calls"))
    report = build_report(collector, kit_version="0", host={"spec": "x", "name": "h", "version": "1",
                                                            "capabilities": []}, plugins=[], suites="host")
    validate(report)
    assert report["ok"] is False and report["why"][0].startswith("no check ran")
    unfinished = build_report(OutcomeCollector(), kit_version="0", host={"spec": "x", "name": "h", "version": "1",
                                                                         "capabilities": []}, plugins=[],
                              suites="host", incomplete=["interrupted"])
    validate(unfinished)
    assert unfinished["ok"] is False and unfinished["why"][0] == "interrupted"
    assert all("did not finish" in r["reason"] for r in unfinished["rules"])
    # Ctrl-C in the first check: it says why once, and guesses no other cause ("none collected").
    assert unfinished["why"][1:] == ["no check finished: nothing was verified"]


# -- real runs ----------------------------------------------------------------------------------

FAKE_SUITE = '''
import pytest

mark = pytest.mark.toolconformance

@pytest.fixture
def broken_fixture():
    raise RuntimeError("adapter could not start")

@mark("CAP-2")
def test_fake_pass():
    pass

@mark("CAP-3")
def test_fake_fail():
    assert 1 == 2, "[CAP-3] expected: internal tools uncapped"

@mark("CAP-4")
def test_fake_setup_error(broken_fixture):
    pass

@mark("REASON-1")
def test_fake_skip():
    pytest.skip("host lacks capability 'calls'")

@mark("REASON-2")
def test_fake_pass_and_skip_a():
    pass

@mark("REASON-2")
def test_fake_pass_and_skip_b():
    pytest.skip("not this one")

@mark("REASON-3")
def test_fake_protocol_fault():
    from pytest_toolconformance.host.client import HostProtocolError
    raise HostProtocolError("host answered compose() with list, not an object")

@mark("REASON-3")
def test_fake_plain_exception():
    raise KeyError("a plain exception in a check is a failure")

@mark("REASON-4")
@pytest.mark.xfail(strict=True, reason="should fail")
def test_fake_strict_xpass():
    pass

@mark("RO-1")
@pytest.mark.xfail(reason="host lacks it for now")
def test_fake_xfail():
    assert False

def test_fake_no_rule():
    assert False, "not a conformance test: decides no rule"
'''


def test_statuses_from_real_outcomes(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    pytester.makepyfile(test_fake=FAKE_SUITE)
    summary = pytester.path / "step-summary.md"
    summary.write_text("earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    result, report = run_kit(pytester, "-k", "fake_")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    rules = {r["id"]: r for r in report["rules"]}
    assert rules["CAP-2"]["status"] == "passed"
    assert rules["CAP-3"]["status"] == "failed"
    assert "[CAP-3] expected: internal tools uncapped" in rules["CAP-3"]["messages"][0]
    assert rules["CAP-3"]["decided_by"] == ["test_fake.py::test_fake_fail"]
    assert rules["CAP-4"]["status"] == "errored" and "adapter could not start" in rules["CAP-4"]["messages"][0]
    assert rules["REASON-1"]["status"] == "skipped"
    assert rules["REASON-1"]["skip_reasons"] == ["host lacks capability 'calls'"]
    assert rules["REASON-2"]["status"] == "passed"
    assert rules["REASON-2"]["decided_by"] == ["test_fake.py::test_fake_pass_and_skip_a"]
    # A protocol fault means the host could not be checked: errored, even beside a failing test of the rule.
    assert rules["REASON-3"]["status"] == "failed"
    outcomes = {t["nodeid"].split("::")[1]: t["outcome"] for t in rules["REASON-3"]["tests"]}
    assert outcomes == {"test_fake_protocol_fault": "errored", "test_fake_plain_exception": "failed"}
    assert rules["REASON-4"]["status"] == "failed", "a strict XPASS is a failure pytest decided, not a crash"
    assert rules["RO-1"]["status"] == "skipped" and rules["RO-1"]["skip_reasons"] == ["xfail: host lacks it for now"]
    assert rules["CAP-1"]["status"] == "not-run" and rules["CAP-1"]["tests"] == []
    assert report["summary"]["tests"] == 10, "the test without a rule decides nothing"
    assert report["host"]["name"] == "reference-host" and report["host"]["capabilities"]
    assert report["kit"]["version"]
    # The pages beside the JSON report, and the job summary appended to, not replaced.
    assert (pytester.path / "report.md").is_file() and (pytester.path / "report.html").is_file()
    text = summary.read_text("utf-8")
    assert text.startswith("earlier step\n") and "CAP-3" in text and "does not conform" in text


#: The two report tests below run every host check (the agreement test twice) for what the report
#: says of them, not for the cases each property draws: at the mutants' examples a property.
EXAMPLES = "--toolconformance-max-examples=5"


def test_serial_and_xdist_reports_agree_by_rule(pytester: pytest.Pytester) -> None:
    _, serial = run_kit(pytester, EXAMPLES, name="serial.json")
    result, parallel = run_kit(pytester, EXAMPLES, "-n", "2", subprocess=True, name="xdist.json")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()[-3000:]
    assert parallel["run"]["workers"] == 2

    def key(report: dict[str, Any]) -> dict[str, tuple[str, list[str], list[tuple[str, str]]]]:
        return {r["id"]: (r["status"], r["decided_by"], [(t["nodeid"], t["outcome"]) for t in r["tests"]])
                for r in report["rules"]}

    assert key(serial) == key(parallel)
    # Written once, by the controller: one "report:" line, and nothing but the report and its pages.
    assert result.stdout.str().count("report: ") == 1
    assert sorted(p.name for p in pytester.path.glob("xdist*")) == ["xdist.html", "xdist.json", "xdist.md"]
    assert serial["summary"] == parallel["summary"]
    assert by_status(serial).get("passed"), "the reference host passed no rule"
    assert not by_status(serial).get("failed") and serial["ok"] is True


def test_mutant_full_run_fails_exactly_its_rule(pytester: pytest.Pytester) -> None:
    from tests.subjects.mutants import cap_1_uncapped_description as mutant

    result, report = run_kit(pytester, f"--toolconformance-host={CAP1_MUTANT}", EXAMPLES)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    failed = by_status(report).get("failed", set())
    # Exactly the mutant's rule, plus the rules it declares it cannot help breaking (ALSO, with a reason).
    assert mutant.RULE in failed and failed <= {mutant.RULE, *getattr(mutant, "ALSO", ())}, by_status(report)
    assert not by_status(report).get("errored")
    cap1 = next(r for r in report["rules"] if r["id"] == "CAP-1")
    assert all("[CAP-1]" in m for m in cap1["messages"]) and cap1["messages"]
    assert report["host"]["spec"] == CAP1_MUTANT and report["ok"] is False


def test_junitxml_carries_the_rule_of_each_test_case(pytester: pytest.Pytester) -> None:
    xml = pytester.path / "junit.xml"
    result = pytester.runpytest("--toolconformance", "-k", "CAP-1", f"--junitxml={xml}", *QUIET)
    assert result.ret == pytest.ExitCode.OK
    assert not list(pytester.path.rglob("*.json")), "no report is written without --toolconformance-report"
    assert "toolconformance: rules" in result.stdout.str(), "the terminal still gets the summary by rule"
    cases = ET.parse(xml).getroot().findall(".//testcase")
    assert cases, "no test case in the junit file"
    for case in cases:
        rules = [p.get("value") for p in case.findall("./properties/property") if p.get("name") == "rule"]
        assert "CAP-1" in rules, f"{case.get('name')}: properties {rules}"


def test_report_path_from_ini_is_relative_to_the_ini_file(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\ntoolconformance = true\ntoolconformance_report = out/conformance.json\n")
    sub = pytester.mkdir("elsewhere")
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(sub)
        result = pytester.runpytest("-k", "CAP-1", *QUIET)
    assert result.ret == pytest.ExitCode.OK
    written = pytester.path / "out" / "conformance.json"
    assert written.is_file() and (pytester.path / "out" / "conformance.html").is_file()
    validate(json.loads(written.read_text("utf-8")))


def test_the_verdict_line_says_how_much_was_checked() -> None:
    """A host that declares 2 of 16 capabilities must not read "conforms" alone."""
    from pytest_toolconformance.report.model import RULE_STATUSES, verdict_line

    def report(ok: bool, why: list[str], **counts: int) -> dict[str, Any]:
        summary = {status: 0 for status in RULE_STATUSES} | counts
        summary["rules"] = sum(counts.values())
        rules = [{"id": "CAP-1", "status": "skipped", "skip_reasons": ["host 'h' does not declare capability caps"]}]
        return {"ok": ok, "why": why, "summary": summary, "rules": rules}

    line = verdict_line(report(True, [], passed=11, skipped=45))
    assert line == ("conforms on 11 of 56 rules in scope; not checked: 45 skipped "
                    "(e.g. host 'h' does not declare capability caps)")
    assert verdict_line(report(True, [], passed=3, deviation=1)) == (
        "conforms on 4 of 4 rules in scope (1 as known deviations)")
    assert verdict_line(report(False, ["1 rule(s) failed, 0 errored"], passed=3, failed=1)) == (
        "does not conform: 1 rule(s) failed, 0 errored")
