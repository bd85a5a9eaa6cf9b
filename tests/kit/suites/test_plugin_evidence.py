"""Verdicts from what a tool did, not from its words, on plugins written from the rules' sentences.

Each subject in tests/subjects/plugins/js/unseen_* shows one way the kit misjudged plugins it had
never seen: an answer whose words read as a refusal (SCHEMA-4), independent filters read as
alternatives (SCHEMA-3), answers that differ per call (SCHEMA-4, NAME-6), a throw only a bad call
gets (ERR-2), a stale name in place of an optional target selector (NAME-6), a pi extension's
transport failure thrown without a tag its host does not offer (ERR-4), and file targets only the
tool's own words or the schema's `required` tell apart (NAME-1). Each broken one fails its
rule and only it; each conforming twin stays green. Every run gets one example per property: the
verdicts must not depend on the budget.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_toolconformance.suites.plugin import PLUGIN_SUITES_DIR
from pytest_toolconformance.suites.plugin._transport import transport_imports
from tests.kit.suites.test_plugin_suites import BASE_ARGS, FAULT_TIMEOUT, JS, Run, run_suites

ONE_EXAMPLE = (f"--toolconformance-timeout={FAULT_TIMEOUT}", "--toolconformance-max-examples=1")


def _run(pytester: pytest.Pytester, name: str) -> Run:
    return run_suites(pytester, JS / name, extra=ONE_EXAMPLE)


def _failed(run: Run) -> set[tuple[str | None, str]]:
    return {(o.tool, rule) for o in run.failed() for rule in o.rules}


def _passed(run: Run) -> set[tuple[str | None, str]]:
    return {(o.tool, rule) for o in run.passed() for rule in o.rules}


def test_words_in_an_answer_a_valid_call_also_gets_are_no_refusal(pytester: pytest.Pytester,
                                                                  node_ready: str) -> None:
    """"Nothing matched the `limit` you gave" and "Status: no active job." for `{}` and a wrong type alike."""
    run = _run(pytester, "unseen_refusal_words_same_answer")
    assert _failed(run) == {("RecentErrors", "SCHEMA-4"), ("JobStatus", "SCHEMA-4")}, run.describe()
    for outcome in run.failed():
        assert "it answered exactly as it answers {}" in outcome.message, outcome.message


def test_a_refusal_that_names_the_parameter_passes(pytester: pytest.Pytester, node_ready: str) -> None:
    run = _run(pytester, "unseen_refusal_names_parameter")
    assert not run.failed(), run.describe()
    assert {("RecentErrors", "SCHEMA-4"), ("JobStatus", "SCHEMA-4"), ("RecentErrors", "NAME-6"),
            ("JobStatus", "NAME-6")} <= _passed(run)


def test_independent_filters_are_no_choice(pytester: pytest.Pytester, node_ready: str) -> None:
    run = _run(pytester, "unseen_independent_filters")
    assert not run.failed(), run.describe()
    (choice,) = [o for o in run.outcomes if "SCHEMA-3" in o.rules]
    assert choice.outcome == "skipped" and "not applicable" in choice.message, (choice.outcome, choice.message)
    assert {("ListTasks", "SCHEMA-4"), ("ListTasks", "NAME-6")} <= _passed(run)


def test_answers_are_compared_with_per_call_values_masked(pytester: pytest.Pytester, node_ready: str) -> None:
    """A fresh temporary folder, a timestamp, a UUID and a duration in every answer hide no silent default."""
    run = _run(pytester, "unseen_per_call_values")
    assert _failed(run) == {("Snapshot", "SCHEMA-4"), ("Export", "NAME-6")}, run.describe()


def test_a_throw_only_the_bad_call_gets_is_err_2(pytester: pytest.Pytester, node_ready: str) -> None:
    run = _run(pytester, "unseen_bad_arg_typeerror")
    assert _failed(run) == {("Slugify", "ERR-2")}, run.describe()
    (finding,) = run.failed()
    assert "text.toLowerCase is not a function" in finding.message


def test_a_throw_a_valid_call_also_gets_is_the_environment(pytester: pytest.Pytester, node_ready: str) -> None:
    run = _run(pytester, "unseen_throw_valid_call_too")
    assert not run.failed(), run.describe()
    assert any(a.startswith("[ERR-2]") and "host or configuration fault" in a for a in run.advisories()), \
        run.advisories()


def test_a_stale_name_for_an_optional_target_selector_fails_name_6(pytester: pytest.Pytester,
                                                                   node_ready: str) -> None:
    run = _run(pytester, "unseen_stale_target_selector")
    assert _failed(run) == {("SaveNote", "NAME-6")}, run.describe()
    (finding,) = run.failed()
    assert "`area_old` in place of the optional `area`" in finding.message
    assert "created inbox/note.md" in finding.message


def test_a_pi_extension_that_throws_meets_err_4_without_a_tag(pytester: pytest.Pytester, node_ready: str) -> None:
    run = _run(pytester, "unseen_pi_transport_throw")
    assert not run.failed(), run.describe()
    (tagged,) = [o for o in run.outcomes if "ERR-4" in o.rules]
    assert tagged.outcome == "passed", (tagged.outcome, tagged.message)
    notes = [str(v) for k, v in tagged.properties if k == "note"]
    assert notes and "not applicable" in notes[0] and "pi offers no transport tag" in notes[0], notes
    assert ("fetch_quote", "ERR-3") in _passed(run)
    assert not [a for a in run.advisories() if "elowen-plugin-shared/transport" in a], run.advisories()


def test_the_summary_says_why_the_tag_part_is_not_applicable(pytester: pytest.Pytester, node_ready: str) -> None:
    result = pytester.runpytest_inprocess(*BASE_ARGS, *ONE_EXAMPLE, "-k", "ERR-4",
                                          f"--toolconformance-plugin={JS / 'unseen_pi_transport_throw'}",
                                          str(PLUGIN_SUITES_DIR))
    result.stdout.fnmatch_lines([
        "*parts of a rule not applicable to a plugin*",
        "[[]ERR-4[]] unseen_pi_transport_throw/fetch_quote: met: *the tag part (markTransportFailure) is not "
        "applicable: it is loaded as a pi extension, and pi offers no transport tag",
    ])


def test_a_pi_extension_that_imports_the_seam_module_is_told_it_will_not_load(pytester: pytest.Pytester,
                                                                              node_ready: str) -> None:
    run = _run(pytester, "unseen_pi_imports_transport")
    assert not run.failed(), run.describe()
    (advice,) = [a for a in run.advisories() if a.startswith("[ERR-4]")]
    assert "will not load" in advice and "unseen_pi_imports_transport/index.mjs:3" in advice, advice


# -- whose tag, and the advice that works in the plugin's host ----------------------------------------


def test_transport_imports_are_found_in_the_plugins_own_sources(tmp_path: Path) -> None:
    (tmp_path / "package.json").write_text("{}")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "index.ts").write_text("import { x } from 'y';\nimport { isTransportFailure } from "
                                               "'elowen-plugin-shared/transport';\n")
    (tmp_path / "node_modules" / "dep").mkdir(parents=True)
    (tmp_path / "node_modules" / "dep" / "index.js").write_text("require('elowen-plugin-shared/transport')\n")
    assert transport_imports(tmp_path / "src" / "index.ts") == (f"{tmp_path / 'src' / 'index.ts'}:2",)
    (tmp_path / "src" / "index.ts").write_text("export default function (pi) {}\n")
    transport_imports.cache_clear()
    assert transport_imports(tmp_path / "src" / "index.ts") == ()


@pytest.mark.parametrize(("name", "rule", "offers_module"), [
    ("broken_err_3", "ERR-3", False),  # a register(ctx) plugin that does not import the module
    ("broken_err_4", "ERR-4", True),  # one that does
])
def test_advice_never_offers_a_module_the_host_lacks(pytester: pytest.Pytester, node_ready: str, name: str,
                                                     rule: str, offers_module: bool) -> None:
    run = _run(pytester, name)
    (finding,) = run.failed()
    assert finding.rules == [rule], run.describe()
    fix = next(line for line in finding.message.splitlines() if line.lstrip().startswith("fix:"))
    assert ("elowen-plugin-shared/transport" in fix) == offers_module, fix


def test_a_path_is_a_file_target_by_the_tools_words_and_its_need(pytester: pytest.Pytester,
                                                                  node_ready: str) -> None:
    """A `relPath` of a tool that reads "a specific note file", a required `out` the tool writes: both NAME-1;
    the listing tool's `path` of a folder is its scope, not a file target, though it lists "note files"."""
    run = _run(pytester, "unseen_path_named_for_its_source")
    assert {(t, r) for t, r in _failed(run) if r.startswith("NAME")} == {("NoteGet", "NAME-1"),
                                                                         ("ExportNotes", "NAME-1")}, run.describe()
    assert ("NoteList", "NAME-1") in _passed(run) and ("NoteList", "NAME-2") in _passed(run), run.describe()


def test_a_wrong_typed_optional_parameter_answered_as_if_absent_fails(pytester: pytest.Pytester,
                                                                       node_ready: str) -> None:
    """`{"action": "list", "tag": 5}` answered "No items." as `{"action": "list"}` is: the value was dropped."""
    run = _run(pytester, "unseen_wrong_type_ignored")
    assert _failed(run) == {("Notebook", "SCHEMA-4")}, run.describe()
    (finding,) = run.failed()
    assert "it answered exactly as it answers {\"action\": " in finding.message, finding.message


def test_a_wrong_typed_optional_parameter_refused_passes(pytester: pytest.Pytester, node_ready: str) -> None:
    run = _run(pytester, "unseen_wrong_type_refused")
    assert not run.failed(), run.describe()
    assert {("Notebook", "SCHEMA-4"), ("Notebook", "NAME-6"), ("Notebook", "ERR-2")} <= _passed(run)


def test_no_normal_result_is_no_pass_of_the_result_shape(pytester: pytest.Pytester, node_ready: str) -> None:
    """A tool every call of which throws (no network here) shows no normal result: REG-3 is not observed."""
    run = _run(pytester, "transport")
    shape = [o for o in run.outcomes if "REG-3" in o.rules and o.tool == "FetchRethrow"]
    assert [o.outcome for o in shape] == ["skipped"], run.describe()
    assert "not observed: no call of FetchRethrow returned a normal result" in shape[0].message, shape[0].message
