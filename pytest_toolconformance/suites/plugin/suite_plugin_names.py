"""File and directory parameter names (NAME-1..5, from the definition) and unknown parameters (NAME-6, by calls).

NAME-6 is checked through the host: its own validation refusing a call counts (the REG-6
reading). A call that keeps every declared parameter right and adds an unknown one is advisory
when accepted, since the seam's own example accepts it; a stale name *in place of* a declared one
is refused, unless what it replaced is an optional parameter that selects no target. A tool that
declares no parameter has no default target to use silently: NAME-6 does not apply to it. A call
that is not refused fails only on evidence that the unknown name was taken (see
``success_evidence``); without it the kit advises.

A tool none of whose valid calls succeeds, and whose refusals reject one of its own declared
parameters, is a half-done rename (NAME-5: "Renaming a parameter changes the live schema and every
caller together").
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from pytest_toolconformance.findings import shorten
from pytest_toolconformance.plugins.arguments import (
    call_arguments_for,
    full_call_arguments_with_a_name_for,
    properties,
    required,
    simplest_arguments,
    stale_name,
    unknown_only_for,
    valid,
)
from pytest_toolconformance.plugins.parametrize import for_each_tool, generate_tests
from pytest_toolconformance.plugins.readings import CallRecord, answered_as, comparable, success_evidence
from pytest_toolconformance.plugins.static import name_findings, parameter_role
from pytest_toolconformance.plugins.subject import ToolSubject
from pytest_toolconformance.profile import run_property

pytest_generate_tests = generate_tests

NAME_RULES = ["NAME-1", "NAME-2", "NAME-3", "NAME-4", "NAME-5"]
TARGET_ROLES = ("file", "output", "scope", "cwd", "path")


def _flat_view(schema: Any) -> dict[str, Any]:
    """The parameters a schema names, a root union's branches merged (a refused schema has names too)."""
    if not isinstance(schema, dict):
        return {}
    merged = dict(properties(schema))
    needed = set(_required(schema))
    for key in ("anyOf", "oneOf", "allOf"):
        branches = [b for b in schema.get(key) or [] if isinstance(b, dict)]
        for branch in branches:
            for name, prop in properties(branch).items():
                merged.setdefault(name, prop)
        # A name every branch requires is required whichever branch a call takes (allOf: any branch's).
        each = [set(_required(b)) for b in branches]
        if each:
            needed |= set.union(*each) if key == "allOf" else set.intersection(*each)
    # Which names are required tells a tool's target from a side file (NAME-1 against NAME-3's reading).
    return {"type": "object", "properties": merged, "required": sorted(needed)}


def _required(schema: dict[str, Any]) -> list[str]:
    names = schema.get("required")
    return [n for n in names if isinstance(n, str)] if isinstance(names, list) else []


@for_each_tool(NAME_RULES, select=lambda tool: True)
def test_file_target_name(toolconformance_subject: ToolSubject) -> None:
    """NAME-1..5: file_path for the primary single-file target, path for a scope, role names for a
    second file, cwd for a working directory, and no aliases (a tool the host refused too: its
    names are the plugin's all the same)."""
    subject = toolconformance_subject
    tool = subject.tool
    found = name_findings(tool.name, _flat_view(tool.declared_schema), tool.description)
    mine = [f for f in found if f.rule == subject.rule]
    findings = [f for f in mine if not f.advisory]
    for advice in (f for f in mine if f.advisory):
        subject.advise(advice.message)
    if findings:
        raise subject.finding(
            _EXPECTED[subject.rule],
            "; ".join(f.message for f in findings),
            fix="rename the parameter in the schema and in execute together, without keeping the old name",
        )


_EXPECTED = {
    "NAME-1": "the primary single-file target to be named file_path",
    "NAME-2": "a directory or search scope to be named path",
    "NAME-3": "a second file with its own role to get its own role name (like output_path)",
    "NAME-4": "an execution working directory to be named cwd",
    "NAME-5": "one name per role, no aliases beside file_path, path or cwd",
}


@for_each_tool(["NAME-6"])
def test_unknown_parameters_refused(toolconformance_subject: ToolSubject) -> None:
    """NAME-6: an unknown-only call, or a stale name in place of a declared one, is refused and
    changes nothing; an accepted extra beside correct parameters is advisory."""
    subject = toolconformance_subject
    tool = subject.tool
    schema = subject.require_callable()
    declared = list(properties(schema))
    req = set(required(schema))
    if not declared:
        pytest.skip(f"not applicable: {tool.name} declares no parameters, so no unknown one can stand in for a "
                    "declared target and no default target exists to be used silently")
    advisories: list[str] = []

    def reference(args: dict[str, Any]) -> CallRecord | None:
        return subject.call(args) if valid(schema, args) else None

    def check_refused(record: CallRecord, what: str, unknown: list[str]) -> None:
        if record.thrown:
            return  # a throw for a bad argument is ERR-2's finding
        if record.changed:
            raise subject.finding(
                f"a refused call ({what}) to change nothing",
                f"it changed the working directory: {', '.join(record.changed)}; answered {shorten(record.text)}",
                record, fix="check the arguments before touching anything",
            )
        without = {k: v for k, v in record.arguments.items() if k not in unknown}
        default = reference(without)
        # Evidence first: the answer the call without the unknown name also gets is no refusal, whatever
        # words it holds ("Status: no active job.", a parameter's name).
        if answered_as(record, default, declared) is None and record.refused(declared + unknown):
            if not record.names_any(declared + unknown):
                advisories.append(f"refused {what} without naming the parameter ({shorten(record.text, 100)})")
            return
        evidence = success_evidence(record, [record.arguments[k] for k in unknown], default, declared)
        if evidence is None:
            advisories.append(f"answered {what} without a recognizable refusal ({shorten(record.text, 100)})")
            return
        raise subject.finding(
            f"a text refusal for {what} (the host's validation or the handler's own)",
            f"it answered {shorten(record.text)} as if the call were fine: {evidence}",
            record,
            fix="refuse unknown parameters in execute (name them and the expected ones), or declare the "
                "schema with additionalProperties: false",
        )

    with subject.reporting():
        # Unknown-only calls.
        run_property(unknown_only_for(schema),
                     lambda args: check_refused(subject.call(args), "an unknown-only call", list(args)),
                     share_draws=True)

        # A stale or aliased name in place of each declared parameter.
        def stale(pair: list[Any]) -> None:
            args, name = pair
            if name not in args:
                return
            alias = stale_name(name)
            if alias in declared:
                return
            changed = {k: v for k, v in args.items() if k != name}
            changed[alias] = args[name]
            record = subject.call(changed)
            if name in req or parameter_role(name, properties(schema)[name]) in TARGET_ROLES:
                check_refused(record, f"`{alias}` in place of the declared `{name}`", [alias])
            elif record.answered and record.changed and selects_target(name, args):
                check_refused(record, f"`{alias}` in place of the optional `{name}`, which picks where the tool "
                              "writes", [alias])
            elif record.answered and not record.refused(declared + [alias]):
                advisories.append(f"accepted `{alias}` in place of the optional `{name}` and ignored it")

        def effect(args: dict[str, Any]) -> set[str]:
            return {comparable(line) for line in subject.call(args).changed}

        selectors: dict[str, bool] = {}

        def selects_target(name: str, args: dict[str, Any]) -> bool:
            """Evidence that an optional parameter picks where the tool writes: a value of it changes what
            the call creates or removes in the workspace (SaveNote's `area`: inbox/ or archive/). Judged
            once per parameter, around the first call that wrote with its stale name."""
            if name not in selectors:
                without = {k: v for k, v in args.items() if k != name}
                default = effect(without) if valid(schema, without) else None
                selectors[name] = default is not None and any(
                    effect({**without, name: value}) != default
                    for value in _values_of(properties(schema)[name], args[name])
                    if valid(schema, {**without, name: value}))
            return selectors[name]

        # Each optional parameter with a listed set of values (an enum, literals: a folder of inbox or archive)
        # once around the fullest simple call first, so that such a selector is met on any example budget.
        full = simplest_arguments(schema, full=True)
        listed = [name for name in declared
                  if name in full and name not in req and len(_values_of(properties(schema)[name], full[name])) > 1]
        run_property(full_call_arguments_with_a_name_for(schema), stale, share_draws=True,
                     examples=[[full, name] for name in listed])
        # Every declared parameter right plus an extra one: advisory when accepted (the seam's example accepts it).
        extra = {**simplest_arguments(schema, full=True), "unexpected_option": "x"}
        record = subject.call(extra)
        if record.answered and not record.refused(declared + ["unexpected_option"]):
            advisories.append(
                "accepted an unknown parameter beside correct ones (`unexpected_option`) "
                "without a word; consider refusing it"
            )
    # One advisory per answer, what differs per call (an id, a time) aside.
    firsts: dict[str, str] = {}
    for note in advisories:
        firsts.setdefault(comparable(note), note)
    for note in firsts.values():
        subject.advise(note)


def _values_of(prop: Any, drawn: Any) -> list[Any]:
    """The drawn value of a parameter and, where its schema lists them, its other values (an enum, literals, a
    boolean's two), so that a selector whose drawn value is its default is still seen to select."""
    values = [drawn]
    if isinstance(prop, dict):
        listed = list(prop.get("enum") or [])
        for branch in prop.get("anyOf") or prop.get("oneOf") or []:
            if isinstance(branch, dict) and "const" in branch:
                listed.append(branch["const"])
        if prop.get("type") == "boolean":
            listed += [True, False]
        values += [v for v in listed[:8] if v != drawn]
    return values


# A refusal of a parameter as unknown or unwanted: what a handler says when it reads another name.
_REJECTS_NAME = re.compile(
    r"\b(unknown|unexpected|unrecognized|unsupported|not (allowed|accepted|supported|expected|recognized))\b",
    re.IGNORECASE,
)


@for_each_tool(["NAME-5"])
def test_valid_calls_succeed(toolconformance_subject: ToolSubject) -> None:
    """NAME-5 (renaming): some valid call succeeds; a handler that refuses every valid call as naming
    one of its own declared parameters was renamed in its schema and not in its execute."""
    subject = toolconformance_subject
    tool = subject.tool
    schema = subject.require_callable()
    declared = list(properties(schema))
    if not declared:
        pytest.skip(f"not applicable: {tool.name} declares no parameters, so nothing can be half renamed")
    records: list[CallRecord] = []

    def call(args: dict[str, Any]) -> None:
        records.append(subject.call(args))

    with subject.reporting():
        call(simplest_arguments(schema))
        call(simplest_arguments(schema, full=True))
        run_property(call_arguments_for(schema), call, share_draws=True)
    answered = [r for r in records if r.answered]
    if not answered or any(not r.refused(declared) for r in answered):
        return
    rejected = [n for n in declared if all(r.names(n) and _REJECTS_NAME.search(r.text) for r in answered)]
    if rejected:
        first = answered[0]
        raise subject.finding(
            "some call with valid arguments to succeed (renaming a parameter changes the live schema and every "
            "caller together)",
            f"every one of {len(answered)} valid calls was refused, naming the declared "
            f"{', '.join(f'`{n}`' for n in rejected)} as one it does not take: {shorten(first.text)}",
            first,
            fix="finish the rename: read the parameter under the name the schema declares, in execute too",
        )
