"""The plugin author's loop, run as a user runs it: one mistake, its finding, its rerun line.

Each plugin of tests/subjects/plugins/loop/ is one of the three kinds of docs/plugin-authors.md (a JS
plugin, a TypeScript pi extension in pi's ``export default function (pi)`` form, a Python plugin)
with one deliberate mistake. It is copied into a fresh folder, with the npm packages a real repo
would have installed, and checked by ``pytest --toolconformance-plugin=ENTRY`` in a subprocess.
The failure output must be that one finding and its rerun line, nothing of the kit's or
Hypothesis' internals; pasting the rerun line must fail exactly that check with exactly that
finding (same rule, tool and failing case).

A run of zero checks and a cut-short run are reported not ok in tests/kit/report/test_report_run.py
(test_a_run_of_zero_checks_is_not_ok, test_a_cut_short_run_is_not_ok).
"""

from __future__ import annotations

import re
import shlex
import shutil

import pytest

from tests.paths import REPO

LOOP = REPO / "tests" / "subjects" / "plugins" / "loop"
NODE_MODULES = REPO / "tests" / "node_modules"
#: Fewer generated cases than the default keeps the six runs short; the rerun gets the same.
EXAMPLES = "--toolconformance-max-examples=10"

#: plugin folder, entry, and the mistake's rule and tool (from the plugin's own comment).
KINDS = [
    pytest.param("js", "index.mjs", "SCHEMA-4", "Double", id="js"),
    pytest.param("ts", "index.ts", "REG-3", "Greet", id="typescript-pi-form"),
    pytest.param("python", "loop_python.py", "ERR-2", "Double", id="python"),
]
#: What one finding is made of: its title line, then these labelled lines, in this order.
FINDING_LINES = ("  the plugin did: ", "  reproduce: ", "  fix: ", "  rerun: pytest ")
#: Signs of internals that the default --tb must keep out of the failure output.
NOISE = ("Traceback", "Failing test case", "Falsifying example", "PluginFinding", "hypothesis",
         "pytest_toolconformance", "reference_host", ".py:")


def failures_section(output: str) -> list[str]:
    """The lines pytest prints under FAILURES, up to the next section."""
    lines = output.splitlines()
    start = next(i for i, line in enumerate(lines) if re.fullmatch(r"=+ FAILURES =+", line))
    end = next(i for i in range(start + 1, len(lines)) if re.match(r"^(=+ .* =+|-+ .* -+)$", lines[i]))
    return lines[start + 1:end]


def the_finding(section: list[str], rule: str, tool: str) -> list[str]:
    """The section's one finding, checked to be nothing else: a test header, then the finding's lines."""
    header, *finding = section
    assert re.fullmatch(r"_+ test_\w+\[" + re.escape(rule) + r"-.+-" + re.escape(tool) + r"\] _+", header), header
    assert finding[0].startswith(f"[{rule}] tool {tool} of plugin "), finding[0]
    assert [line[:len(label)] for line, label in zip(finding[1:], FINDING_LINES, strict=True)] == list(FINDING_LINES)
    return finding


@pytest.mark.parametrize(("kind", "entry", "rule", "tool"), KINDS)
def test_one_mistake_one_finding_and_its_rerun_reproduces_it(
    pytester: pytest.Pytester, node_ready: str, kind: str, entry: str, rule: str, tool: str
) -> None:
    for item in (LOOP / kind).iterdir():
        shutil.copy(item, pytester.path / item.name)
    (pytester.path / "node_modules").symlink_to(NODE_MODULES, target_is_directory=True)

    first = pytester.runpytest_subprocess(f"--toolconformance-plugin={entry}", EXAMPLES)
    output = first.stdout.str()
    assert first.ret == pytest.ExitCode.TESTS_FAILED, output
    assert first.parseoutcomes()["failed"] == 1, output
    section = failures_section(output)
    finding = the_finding(section, rule, tool)
    assert not [line for line in section for sign in NOISE if sign in line]
    assert f"FAILED {rule}: 1 test(s)" in output and "does not conform" in output
    # Hypothesis keeps caches beside the run even with no example database: not in the plugin's folder.
    assert not (pytester.path / ".hypothesis").exists(), "the run wrote .hypothesis/ into the plugin's folder"

    rerun = shlex.split(finding[-1].removeprefix("  rerun: "))
    assert rerun[:2] == ["pytest", f"--toolconformance-plugin={entry}"]
    assert any(arg.startswith("--toolconformance-seed=") for arg in rerun)
    again = pytester.runpytest_subprocess(*rerun[1:], EXAMPLES)
    again_output = again.stdout.str()
    assert again.ret == pytest.ExitCode.TESTS_FAILED, again_output
    again.assert_outcomes(failed=1)
    assert failures_section(again_output) == section  # same check, same rule and tool, same failing case


def test_a_rerun_line_selects_that_tool_alone(pytester: pytest.Pytester, node_ready: str) -> None:
    """Two tools whose names start the same (FetchStatus, FetchStatusTagged): the rerun line of the first's
    finding runs that one check, not the other tool's check of the rule as a name's substring would."""
    plugin = REPO / "tests" / "subjects" / "plugins" / "js" / "verdict_status_flattened"
    first = pytester.runpytest_subprocess(f"--toolconformance-plugin={plugin}", EXAMPLES, "-k", "ERR-3")
    output = first.stdout.str()
    first.assert_outcomes(failed=1, passed=1)
    rerun = shlex.split(the_finding(failures_section(output), "ERR-3", "FetchStatus")[-1].removeprefix("  rerun: "))
    assert rerun[-2:] == ["-k", "ERR-3-verdict_status_flattened-FetchStatus]"], rerun
    again = pytester.runpytest_subprocess(*rerun[1:], EXAMPLES)
    again.assert_outcomes(failed=1)
