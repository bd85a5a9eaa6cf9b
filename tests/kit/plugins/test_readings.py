"""How the kit reads what a tool did (pytest_toolconformance/plugins/readings.py): evidence before words."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_toolconformance.plugins.loaders import PluginToolError
from pytest_toolconformance.plugins.readings import CallRecord, answered_as, comparable, environment_cause


def _answer(text: str, arguments: Any = None, workdir: str = "") -> CallRecord:
    return CallRecord(tool="T", plugin="p", arguments={} if arguments is None else arguments, via="handler",
                      result={"content": [{"type": "text", "text": text}], "details": {}}, workdir=workdir)


@pytest.mark.parametrize(("first", "second"), [
    ("snapshot 68a7e6f7-04f5-4984-866b-5914f4d8a0b2 taken 2026-12-04T14:33:01.123Z (4ms)",
     "snapshot 0d2e2747-e7b4-47f0-9baa-c3bca0b0eaad taken 2026-12-04T14:33:02.981Z (12ms)"),
    ("written to /tmp/toolconformance-node-l3du6eix/tmp/export-6OWk34/notes.json",
     "written to /tmp/toolconformance-node-9xk2/tmp/export-Zq01aB/notes.json"),
    ("job 3f2a9c0d1e4b5a6978 started at 10:01:02 on 2026-12-04, epoch 1733322222123, took 1.5 s",
     "job 0a1b2c3d4e5f60718293 started at 11:59:30 on 2026-12-05, epoch 1733322299999, took 2 s"),
])
def test_what_differs_per_call_is_masked(first: str, second: str) -> None:
    assert first != second and comparable(first) == comparable(second), (comparable(first), comparable(second))


@pytest.mark.parametrize(("first", "second"), [
    ("limit is 10", "limit is 20"),
    ("3 notes in inbox", "3 notes in archive"),
    ("settings are saved in the user scope", "settings are saved in the project scope"),
])
def test_what_the_call_chose_is_not_masked(first: str, second: str) -> None:
    assert comparable(first) != comparable(second)


def test_the_working_directory_is_masked() -> None:
    record = _answer("wrote /work/x/y/notes.txt", workdir="/work/x")
    assert record.comparable_text == "wrote <cwd>/y/notes.txt"


@pytest.mark.parametrize(("text", "refusal"), [
    ("Status: no active job.", False),
    ("Nothing matched the `limit` you gave: the log holds no errors.", False),
    ("No active goal. Use create_goal first.", True),
    ("limit must be a number", True),
    ("Error: No URL provided.", True),
    ("Provide exactly one mode.", True),
])
def test_a_report_of_state_or_of_nothing_found_says_no_only_beside_a_refusal(text: str, refusal: bool) -> None:
    assert _answer(text).says_no is refusal


@pytest.mark.parametrize(("text", "asks"), [
    ("Nothing to share: set file_path.", True),
    ("choose what to share: pass file_path, or latest: true", True),
    ("file_path or latest is required", True),
    ("status any, owner any:\nwrite the release notes (open, ana)", False),
    ("Nothing matched the `limit` you gave", False),
])
def test_asking_for_a_parameter_is_not_mentioning_it(text: str, asks: bool) -> None:
    assert _answer(text).asks_for(["file_path", "latest", "status", "owner", "limit"]) is asks


def test_an_answer_a_valid_call_also_gets_is_no_refusal_whatever_its_words() -> None:
    bad = _answer("Status: no active job.", {"job": 12345})
    empty = _answer("Status: no active job.", {})
    assert answered_as(bad, [empty], ["job"]) is empty
    # A valid call's own refusal, got by the bad call too, is a refusal.
    goal = _answer("No active goal. Use create_goal first.", {})
    assert answered_as(_answer(goal.text, {"note": 5}), [goal], ["note"]) is None
    share = _answer("Nothing to share: set file_path.", {})
    assert answered_as(_answer(share.text, {"x": 1}), [share], ["file_path", "latest"]) is None


def _thrown(message: str, arguments: dict[str, Any]) -> CallRecord:
    name, _, text = message.partition(": ")
    return CallRecord(tool="T", plugin="p", arguments=arguments, via="handler", error=PluginToolError("T", name, text))


def test_a_local_variable_in_a_bad_calls_throw_is_no_environment() -> None:
    record = _thrown("TypeError: text.toLowerCase is not a function", {"title": 5})
    assert environment_cause(record, ["title"], bad_call=True) is None
    # For a valid call, a function missing from an installed package is the environment's.
    assert environment_cause(record, ["title"]) is not None
    # A missing program or key is the environment's whoever gets it.
    missing = _thrown("Error: spawn rg ENOENT", {"pattern": 5})
    assert environment_cause(missing, ["pattern"], bad_call=True) is not None
