"""The run around the checks: its scope, its usage errors, and that an unfinished run never conforms.

Each kit run here is a real pytest run (pytester) with a small suite of rule-marked fake checks
beside the kit's own suites, which ``-k fake_`` deselects; the report is checked against its schema.
"""

from __future__ import annotations

import json
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from pytest_toolconformance.report.deviations import PLACEHOLDER
from pytest_toolconformance.report.model import report_schema
from pytest_toolconformance.rules import UNCHECKED_PLUGIN_SIDE, all_rules
from tests.paths import PLUGINS, REPO

QUIET = ("-p", "no:cacheprovider")

FAKE = '''
import pytest
from pytest_toolconformance.findings import Finding
from tests.paths import REPO

mark = pytest.mark.toolconformance

@mark("CAP-2")
def test_fake_pass():
    pass

@mark("CAP-3")
def test_fake_finding():
    raise Finding("CAP-3", "internal tools uncapped", {"cut": True}, reproduction={"plugins": ["p"]})

@mark("SCHEMA-3")
def test_fake_not_applicable():
    pytest.skip("not applicable: the plugin has no choice between parameters")

@mark("REG-3")
def test_fake_blocked():
    pytest.skip("blocked by CAP-3: the tool it needs was capped")
'''


@pytest.fixture(autouse=True)
def isolated_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)


def report_of(path: Path) -> dict[str, Any]:
    report = json.loads(path.read_text("utf-8"))
    jsonschema.Draft202012Validator(report_schema()).validate(report)
    return report


def kit(pytester: pytest.Pytester, *args: str, subprocess: bool = False) -> tuple[pytest.RunResult, dict[str, Any]]:
    path = pytester.path / "report.json"
    run = pytester.runpytest_subprocess if subprocess else pytester.runpytest
    result = run("--toolconformance", f"--toolconformance-report={path}", *QUIET, *args)
    assert path.is_file(), result.stdout.str()[-3000:]
    return result, report_of(path)


def pages_say_it_does_not_conform(pytester: pytest.Pytester) -> None:
    markdown = (pytester.path / "report.md").read_text("utf-8")
    html = (pytester.path / "report.html").read_text("utf-8")
    assert "does not conform" in markdown and "✅ conforms" not in markdown
    assert "does not conform" in html and 'class="verdict v-passed"' not in html


# -- scope -----------------------------------------------------------------------------------------

def test_a_plugin_alone_runs_the_plugin_checks_only(pytester: pytest.Pytester) -> None:
    path = pytester.path / "report.json"
    result = pytester.runpytest(f"--toolconformance-plugin={PLUGINS / 'python' / 'conforming.py'}",
                                f"--toolconformance-report={path}", "--toolconformance-max-examples=3", *QUIET,
                                "-p", "no:benchmark")  # pytest-benchmark (the kit's own test extra) makes .benchmarks/
    report = report_of(path)
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()[-3000:]
    assert report["ok"] is True and report["run"]["suites"] == "plugin" and report["host"]["checked"] is False
    # Every rule binding plugins, but those no plugin check can observe (out of scope, with why).
    plugin_rules = {r.id for r in all_rules().values() if r.plugin_rule} - set(UNCHECKED_PLUGIN_SIDE)
    assert {r["id"] for r in report["rules"]} == plugin_rules
    unchecked = {r["id"]: r["reason"] for r in report["out_of_scope"] if r["id"] in UNCHECKED_PLUGIN_SIDE}
    assert unchecked == UNCHECKED_PLUGIN_SIDE
    # A check no tool of this plugin is subject to counts its rule as not applicable, with why.
    schema_3 = next(r for r in report["rules"] if r["id"] == "SCHEMA-3")
    assert schema_3["status"] == "not-applicable" and "no tool offers alternatives" in schema_3["skip_reasons"][0]
    assert all(t["nodeid"].split("::")[0].endswith(("suite_plugin_calls.py", "suite_plugin_names.py",
                                                     "suite_plugin_registration.py"))
               for r in report["rules"] for t in r["tests"]), "a host suite ran"
    assert {r["id"] for r in report["out_of_scope"]} == set(all_rules()) - plugin_rules
    out = result.stdout.str()
    assert f"{len(plugin_rules)} rules in scope" in out and "rules out of scope: a host rule" in out
    written = sorted(p.name for p in pytester.path.iterdir())
    assert written == ["report.html", "report.json", "report.md"], "the run wrote more than the reports asked for"


def test_forgetting_the_flag_gives_a_hint(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(*QUIET)
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    result.stdout.fnmatch_lines(["hint: the conformance checks run only when asked: --toolconformance*"
                                 "--toolconformance-plugin=PATH*"])


# -- outcomes and the finding ------------------------------------------------------------------------

def test_outcomes_and_the_finding_in_every_report(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_fake=FAKE)
    result, report = kit(pytester, "-k", "fake_", "--toolconformance-seed=42")
    rules = {r["id"]: r for r in report["rules"]}
    assert rules["SCHEMA-3"]["status"] == "not-applicable" and rules["REG-3"]["status"] == "blocked"
    assert rules["REG-3"]["blocked_by"] == ["CAP-3"] and rules["CAP-3"]["status"] == "failed"
    out = result.stdout.str()
    assert "NOT APPLICABLE SCHEMA-3: the plugin has no choice" in out
    assert "BLOCKED REG-3: by CAP-3" in out
    # The failure is the finding and its rerun line, nothing of the kit's frames.
    finding = rules["CAP-3"]["messages"][0]
    assert finding.startswith("[CAP-3] the host under test: expected internal tools uncapped\n  the host did: ")
    assert '  rerun: pytest --toolconformance --toolconformance-seed=42 -k "CAP-3 and test_fake_finding"' in finding
    assert "  fix: " in finding and '  reproduce: {"plugins": ["p"]}' in finding
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip("_ ") == "test_fake_finding")
    assert "\n".join(lines[start + 1:start + 1 + len(finding.splitlines())]) == finding, out
    assert lines[start + 1 + len(finding.splitlines())].startswith("---"), "more than the finding is shown"
    assert "Traceback" not in out and "raise Finding" not in out
    markdown = (pytester.path / "report.md").read_text("utf-8")
    assert finding in markdown and "rules.md" not in markdown
    assert all_rules()["CAP-3"].statement in markdown, "the rule's text is not in the report"
    assert "seed 42 (given by --toolconformance-seed)" in markdown
    long = pytester.runpytest("--toolconformance", *QUIET, "-k", "fake_finding", "--tb=long")
    assert "raise Finding" in long.stdout.str(), "--tb=long shows the kit's frames"


def test_a_finding_keeps_what_the_check_printed_and_the_markers_outcome(pytester: pytest.Pytester) -> None:
    """The kit builds a finding's report itself (no traceback formatted): what the check wrote is still
    shown with it and in JUnit's system-out, and pytest's xfail marker still applies to it."""
    pytester.makepyfile(test_fake=FAKE + '''
import sys

@mark("CAP-3")
def test_fake_finding_after_output():
    print("the check's own note on stdout")
    print("and one on stderr", file=sys.stderr)
    raise Finding("CAP-3", "internal tools uncapped", {"cut": True})

@mark("CAP-3")
@pytest.mark.xfail(reason="a known CAP-3 failure of this fake host", strict=True)
def test_fake_finding_expected():
    raise Finding("CAP-3", "internal tools uncapped", {"cut": True})
''')
    junit = pytester.path / "junit.xml"
    result = pytester.runpytest("--toolconformance", *QUIET, "-k", "after_output or expected", f"--junitxml={junit}",
                                "-o", "junit_logging=all")
    result.assert_outcomes(failed=1, xfailed=1)
    out = result.stdout.str()
    assert "[CAP-3] the host under test: expected internal tools uncapped" in out and "Traceback" not in out
    result.stdout.fnmatch_lines(["*- Captured stdout call -*", "the check's own note on stdout",
                                 "*- Captured stderr call -*", "and one on stderr"])
    xml = junit.read_text("utf-8")
    assert "the check's own note on stdout" in xml and "and one on stderr" in xml, xml


def test_the_seed_is_printed_and_random_is_one_seed_for_the_run(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_fake=FAKE)
    default = pytester.runpytest("--toolconformance", *QUIET, "-k", "fake_pass")
    default.stdout.fnmatch_lines(["toolconformance: seed 0 (the default seed*"])
    _, report = kit(pytester, "-k", "fake_", "--toolconformance-seed=random")
    seed = report["run"]["seed"]
    assert f"--toolconformance-seed={seed} " in report["rules"][[r["id"] for r in report["rules"]].index("CAP-3")
                                                                   ]["messages"][0]
    assert "drawn at random" in report["run"]["seed_sentence"]


# -- an unfinished run never conforms ----------------------------------------------------------------

def test_an_interrupted_run_is_not_ok(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_fake=FAKE + '''
@mark("CAP-4")
def test_fake_ctrl_c():
    raise KeyboardInterrupt
''')
    # In a process of its own, as a real Ctrl-C: an in-process run would interrupt this very session.
    result, report = kit(pytester, "-k", "fake_pass or fake_ctrl_c", subprocess=True)
    assert result.ret == pytest.ExitCode.INTERRUPTED
    assert report["ok"] is False and report["why"][0].startswith("interrupted")
    pages_say_it_does_not_conform(pytester)


def test_ctrl_c_in_the_middle_of_a_check_is_not_ok(pytester: pytest.Pytester) -> None:
    started = pytester.path / "started"
    pytester.makepyfile(test_fake=FAKE + f'''
import time
from pathlib import Path

@mark("CAP-4")
def test_fake_long_check():
    Path({str(started)!r}).write_text("x")
    while True:
        time.sleep(0.05)
''')
    path = pytester.path / "report.json"
    child = subprocess.Popen([sys.executable, "-m", "pytest", "--toolconformance", f"--toolconformance-report={path}",
                              *QUIET, "-k", "fake_pass or fake_long_check"], cwd=pytester.path,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(600):
            if started.exists() or child.poll() is not None:
                break
            time.sleep(0.1)
        assert started.exists(), "the long check never started"
        child.send_signal(signal.SIGINT)  # what Ctrl-C in a terminal sends
        assert child.wait(timeout=60) == pytest.ExitCode.INTERRUPTED
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    report = report_of(path)
    assert report["ok"] is False and report["why"][0].startswith("interrupted")
    pages_say_it_does_not_conform(pytester)


def test_a_cut_short_run_is_not_ok(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_fake=FAKE.replace("import pytest\n", "import pytest\n\ndef test_fake_0_user_test():\n"
                                               "    assert False, 'a user test fails first'\n", 1))
    result, report = kit(pytester, "-k", "fake_0 or fake_pass", "-x")
    assert result.ret != pytest.ExitCode.OK
    assert report["ok"] is False and any(w.startswith("cut short (stopping after 1 failures)") for w in report["why"])
    assert next(r for r in report["rules"] if r["id"] == "CAP-2")["status"] == "not-run"
    pages_say_it_does_not_conform(pytester)


def test_a_collection_error_is_not_ok(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_fake=FAKE, test_broken="def test_x(:\n")
    result, report = kit(pytester, "-k", "fake_pass", "--continue-on-collection-errors")
    assert result.ret != pytest.ExitCode.OK
    assert report["ok"] is False and report["why"][0].startswith("1 error(s) during collection")
    pages_say_it_does_not_conform(pytester)


def test_a_run_of_zero_checks_is_not_ok(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_fake=FAKE)
    result, report = kit(pytester, "-k", "fake_not_applicable")
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    assert report["ok"] is False and report["why"][0].startswith("no check ran")
    pages_say_it_does_not_conform(pytester)


def test_a_check_blocked_by_a_rule_that_did_not_fail_fails_the_run(pytester: pytest.Pytester) -> None:
    """Blocked by CAP-3, which did not run: nothing says CAP-3 fails, so the blocked step is REG-3's fault."""
    pytester.makepyfile(test_fake=FAKE)
    result, report = kit(pytester, "-k", "fake_blocked")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    reg_3 = next(r for r in report["rules"] if r["id"] == "REG-3")
    assert reg_3["status"] == "failed" and "a step labelled CAP-3 failed" in reg_3["messages"][0]
    assert "FAILED REG-3: 1 test(s)" in result.stdout.str()


def test_a_run_whose_output_pipe_closed_leaves_a_report_that_says_so(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_fake=FAKE.replace('@mark("CAP-2")\ndef test_fake_pass():',
                                               '@mark("CAP-2")\n@pytest.mark.parametrize("i", range(400))\n'
                                               'def test_fake_pass(i):'))
    path = pytester.path / "report.json"
    path.write_text('{"ok": true}')  # an earlier run's green report must not survive
    child = subprocess.Popen([sys.executable, "-m", "pytest", "--toolconformance", f"--toolconformance-report={path}",
                              *QUIET, "-v", "-k", "fake_pass"], cwd=pytester.path, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL)
    assert child.stdout is not None
    child.stdout.readline()
    child.stdout.close()  # as `pytest ... | head -1` does
    assert child.wait(timeout=300) != 0
    report = report_of(path)
    assert report["ok"] is False and "did not finish" in report["why"][0]
    pages_say_it_does_not_conform(pytester)


# -- usage errors --------------------------------------------------------------------------------------

@pytest.mark.parametrize(("args", "says"), [
    (("--toolconformance-plugin=no/such/plugin",), "--toolconformance-plugin=no/such/plugin: * does not exist; *"),
    (("--toolconformance", "--toolconformance-max-examples=0"),
     "--toolconformance-max-examples='0' is out of range: it must be at least 1"),
    (("--toolconformance", "--toolconformance-max-examples=many"),
     "--toolconformance-max-examples='many' must be an integer"),
    (("--toolconformance", "--toolconformance-timeout=soon"), "--toolconformance-timeout='soon' must be a number"),
    (("--toolconformance", "--toolconformance-seed=-1"),
     "--toolconformance-seed='-1' is out of range: it must be from 0 to 4294967295"),
    (("--toolconformance", "--toolconformance-suites=some"),
     "--toolconformance-suites='some' must be one of host, plugin, all"),
    (("--toolconformance", "--toolconformance-suites=plugin"), "*needs a plugin to check*"),
    # A host in a plugin-only run is refused with why, not named in the header and ignored.
    (("--toolconformance-plugin=.", "--toolconformance-host=nosuch:factory"),
     "--toolconformance-host=nosuch:factory is not used by a plugin-only run: *--toolconformance-suites=all*"),
])
def test_usage_errors_are_one_line_and_exit_4(pytester: pytest.Pytester, args: tuple[str, ...], says: str) -> None:
    result = pytester.runpytest(*args, *QUIET)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.stderr.lines if line.startswith("ERROR:")]
    assert len(errors) == 1, result.stderr.str()
    result.stderr.fnmatch_lines([f"ERROR: {says}"])
    assert "Traceback" not in result.stderr.str()


def test_ini_numbers_are_checked_and_named(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\ntoolconformance = true\ntoolconformance_max_examples = lots\n")
    result = pytester.runpytest(*QUIET)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: ini toolconformance_max_examples must be an integer*"])


def test_help_says_what_each_value_is(pytester: pytest.Pytester) -> None:
    out = pytester.runpytest("--help").stdout.str()
    for option, metavar in (("plugin", "PATH"), ("report", "PATH"), ("deviations", "PATH"), ("max-examples", "N"),
                            ("seed", "N|random"), ("timeout", "S"), ("tool-budget", "BYTES"), ("host", "SPEC"),
                            ("suites", "host|plugin|all")):
        assert f"--toolconformance-{option}={metavar}" in out, option
    assert "TOOLCONFORMANCE_" not in out
    for ini, kind in (("toolconformance_max_examples", "int"), ("toolconformance_timeout", "float"),
                      ("toolconformance_tool_budget", "int")):
        assert f"{ini} ({kind})" in out, ini


# -- deviations update -----------------------------------------------------------------------------------

def test_deviations_update_keeps_the_files_comments_and_a_removed_stale_entry_does_not_fail_the_run(
        pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_fake=FAKE)
    deviations = pytester.path / "deviations.toml"
    deviations.write_text("# Reviewed by the team each release.\n\n"
                          '[[deviation]]\n# fixed in 2.1\nrule = "CAP-2"\nreason = "was broken once"\n\n'
                          '# Diagnostics come with v3.\n[[deviation]]\nrule = "DIAG-1"\n'
                          'reason = "not exercised here"\n')
    result, report = kit(pytester, "-k", "fake_pass", f"--toolconformance-deviations={deviations}",
                         "--toolconformance-deviations-update")
    out = result.stdout.str()
    assert "1 stale removed" in out and "delete this entry" not in out, out[-2000:]
    assert result.ret == pytest.ExitCode.OK and report["ok"] is True and report["deviations"]["stale"] == []
    assert deviations.read_text("utf-8") == ("# Reviewed by the team each release.\n\n# Diagnostics come with v3.\n"
                                             '[[deviation]]\nrule = "DIAG-1"\nreason = "not exercised here"\n')


def test_deviations_update_writes_failures_and_drops_stale_entries(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_fake=FAKE)
    deviations = pytester.path / "deviations.toml"
    deviations.write_text('[[deviation]]\nrule = "CAP-2"\nreason = "was broken once"\n\n'
                          '[[deviation]]\nrule = "DIAG-1"\nreason = "not exercised here"\n')
    select = ("-k", "fake_pass or fake_finding")
    result, _ = kit(pytester, *select, f"--toolconformance-deviations={deviations}",
                    "--toolconformance-deviations-update")
    assert "deviations: wrote" in result.stdout.str() and "1 added (CAP-3" in result.stdout.str()
    text = deviations.read_text("utf-8")
    assert 'rule = "CAP-2"' not in text, "the stale entry (CAP-2 passes) stays"
    assert 'rule = "DIAG-1"' in text, "an entry this run did not exercise is not stale"
    assert f'rule = "CAP-3"\nreason = "{PLACEHOLDER}"' in text
    # The placeholder is refused until a person writes a reason.
    refused = pytester.runpytest("--toolconformance", f"--toolconformance-deviations={deviations}", *QUIET, *select)
    assert refused.ret == pytest.ExitCode.USAGE_ERROR
    refused.stderr.fnmatch_lines(['ERROR: *entry 2 (rule = "CAP-3"): reason is still the placeholder*'])
    deviations.write_text(text.replace(PLACEHOLDER, "uncapped until v2"))
    result, report = kit(pytester, *select, f"--toolconformance-deviations={deviations}")
    assert result.ret == pytest.ExitCode.OK and report["ok"] is True
    assert next(r for r in report["rules"] if r["id"] == "CAP-3")["status"] == "deviation"


# -- the rerun line reproduces the finding -----------------------------------------------------------------

def test_the_seams_paragraphs_are_named_apart_from_the_runs_seed(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_fake=FAKE)
    kit(pytester, "-k", "fake_finding")
    markdown = (pytester.path / "report.md").read_text("utf-8")
    html = (pytester.path / "report.html").read_text("utf-8")
    assert "In the seam's text: ¶" in markdown and "In the seam's text: ¶" in html
    assert "Seed: ¶" not in markdown + html and "seed 0" in markdown  # the random seed keeps its word


def test_a_plugin_reports_title_is_the_plugins_name_beside_its_path(pytester: pytest.Pytester, node_ready: str) -> None:
    plugin = PLUGINS / "js" / "conforming"
    report = pytester.path / "out" / "report.json"
    pytester.runpytest_inprocess(f"--toolconformance-plugin={plugin}", f"--toolconformance-report={report}",
                                 "--toolconformance-max-examples=5", *QUIET)
    markdown = report.with_suffix(".md").read_text("utf-8")
    assert markdown.splitlines()[0] == f"## Tool conformance: conforming (`{plugin}`)"
    assert f"<title>Tool conformance: conforming ({plugin})</title>" in report.with_suffix(".html").read_text("utf-8")


def test_the_rerun_line_reproduces_exactly_that_finding(pytester: pytest.Pytester, node_ready: str) -> None:
    plugin = PLUGINS / "js" / "broken_schema_4"
    first = pytester.inline_run(f"--toolconformance-plugin={plugin}", "--toolconformance-seed=random",
                                "--toolconformance-max-examples=10", *QUIET)
    (failed,) = first.listoutcomes()[2]
    message = dict(failed.user_properties)["toolconformance-finding"]
    rerun = message.rsplit("  rerun: ", 1)[1]
    argv = shlex.split(rerun)
    assert argv[0] == "pytest"
    again = pytester.inline_run(*argv[1:], "--toolconformance-max-examples=10", *QUIET)
    _, _, failed_again = again.listoutcomes()
    assert [r.nodeid for r in failed_again] == [failed.nodeid]
    assert dict(failed_again[0].user_properties)["toolconformance-finding"] == message


def test_host_findings_are_short_and_rerun_exactly_their_case(pytester: pytest.Pytester) -> None:
    """A scenario's finding shows what differs and where the case is, not the whole
    answer and the whole case (lines of 3,000 characters), and its rerun line reruns that case alone."""
    host = "--toolconformance-host=tests.subjects.mutants.reg_4_details_in_model_result:factory"
    result = pytester.runpytest_inprocess("--toolconformance", host, "-k", "REG-4 and test_scenario", "-p",
                                          "no:cacheprovider")
    out = result.stdout.str()
    findings = [line for line in out.splitlines() if line.startswith("[REG-4]")]
    assert findings, out[-2000:]
    assert max(len(line) for line in out.splitlines()) < 1000, max(out.splitlines(), key=len)
    reproductions = [line for line in out.splitlines() if line.startswith("  reproduce: scenario ")]
    assert reproductions and all("in scenarios/reg/" in line for line in reproductions), reproductions
    rerun = next(line for line in out.splitlines() if line.startswith("  rerun: ") and "test_scenario[" in line)
    again = pytester.runpytest_inprocess(*shlex.split(rerun.removeprefix("  rerun: ").removeprefix("pytest ")),
                                         "-p", "no:cacheprovider")
    again.assert_outcomes(failed=1)


def test_a_wire_hosts_rerun_line_pastes_into_a_shell_and_names_no_kit_path(pytester: pytest.Pytester) -> None:
    """A host spec is a command of its own (exec:python3 host.py): the rerun line quotes it, names a
    suite's case by its id rather than by its path in site-packages, and reruns that case alone."""
    import pytest_toolconformance

    mutant_host = REPO / "tests" / "subjects" / "wire_hosts" / "mutant_host.py"
    spec = f"exec:{sys.executable} {mutant_host} tests.subjects.mutants.reg_4_details_in_model_result"
    result = pytester.runpytest_inprocess("--toolconformance", f"--toolconformance-host={spec}", "-k",
                                          "REG-4 and test_scenario", *QUIET)
    reruns = [line.removeprefix("  rerun: ") for line in result.stdout.str().splitlines()
              if line.startswith("  rerun: ")]
    assert reruns, result.stdout.str()[-2000:]
    kit_folder = str(Path(pytest_toolconformance.__file__).parent)
    for rerun in reruns:
        argv = shlex.split(rerun)
        assert f"--toolconformance-host={spec}" in argv, rerun
        assert kit_folder not in rerun and "site-packages" not in rerun, rerun
    again = pytester.runpytest_inprocess(*shlex.split(reruns[0])[1:], *QUIET)
    again.assert_outcomes(failed=1)


def test_an_attack_rows_finding_reproduces_with_what_the_host_was_given(pytester: pytest.Pytester) -> None:
    """An attack row's reproduction is the plan file, the route and the operation;
    the row's title and expectation are the finding's first line already, not repeated beside them."""
    host = "--toolconformance-host=tests.subjects.mutants.planfile_2_paths_normalized:factory"
    result = pytester.runpytest_inprocess("--toolconformance", host, "-k", "test_plan_file_attack and dot-segment",
                                          "-p", "no:cacheprovider")
    reproductions = [line for line in result.stdout.str().splitlines() if line.startswith("  reproduce: ")]
    assert reproductions, result.stdout.str()[-2000:]
    for line in reproductions:
        given = json.loads(line.removeprefix("  reproduce: "))
        assert set(given) == {"planFile", "via", "op"}, line
