"""File and directory parameter names (NAME-1..5, from the definition) and unknown parameters (NAME-6, by calls).

NAME-6 is checked through the host: its own validation refusing a call counts (the REG-6
reading). A call that keeps every declared parameter right and adds an unknown one is advisory
when accepted, since the seam's own example accepts it; a stale name *in place of* a declared one
is refused, unless what it replaced is an optional parameter that selects no target.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from pytest_toolconformance.findings import shorten
from pytest_toolconformance.plugins.arguments import (
    full_arguments_for,
    properties,
    required,
    simplest_arguments,
    stale_name,
    unknown_only_for,
)
from pytest_toolconformance.plugins.runtime import (
    CallRecord,
    Subject,
    for_each_tool,
    generate_tests,
)
from pytest_toolconformance.plugins.static import name_findings, parameter_role
from pytest_toolconformance.profile import run_property

pytest_generate_tests = generate_tests

NAME_RULES = ["NAME-1", "NAME-2", "NAME-3", "NAME-4", "NAME-5"]
TARGET_ROLES = ("file", "output", "scope", "cwd", "path")


@for_each_tool(NAME_RULES)
def test_file_target_name(toolconformance_subject: Subject) -> None:
    """NAME-1..5: file_path for the primary single-file target, path for a scope, role names for a
    second file, cwd for a working directory, and no aliases."""
    subject = toolconformance_subject
    tut = subject.tool
    assert tut is not None
    findings = [f for f in name_findings(tut.name, tut.schema) if f.rule == subject.rule]
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
def test_unknown_parameters_refused(toolconformance_subject: Subject) -> None:
    """NAME-6: an unknown-only call, or a stale name in place of a declared one, is refused and
    changes nothing; an accepted extra beside correct parameters is advisory."""
    subject = toolconformance_subject
    tut = subject.tool
    assert tut is not None
    subject.require_callable()
    schema = tut.schema
    declared = list(properties(schema))
    req = set(required(schema))

    def check_refused(record: CallRecord, what: str) -> None:
        if record.thrown:
            return  # a throw for a bad argument is ERR-2's finding
        if record.changed:
            raise subject.finding(
                f"a refused call ({what}) to change nothing",
                f"it changed the working directory: {', '.join(record.changed)}; answered {shorten(record.text)}",
                record, fix="check the arguments before touching anything",
            )
        if not record.refused(declared + [k for k in record.arguments if k not in declared]):
            raise subject.finding(
                f"a text refusal for {what} (the host's validation or the handler's own, naming the parameter)",
                f"it answered {shorten(record.text)} as if the call were fine",
                record,
                fix="refuse unknown parameters in execute (name them and the expected ones), or declare the "
                    "schema with additionalProperties: false",
            )

    with subject.reporting():
        # Unknown-only calls.
        run_property(unknown_only_for(schema), lambda args: check_refused(subject.call(args), "an unknown-only call"))
        if not declared:
            return
        # A stale or aliased name in place of each declared parameter.
        advisories: list[str] = []

        def stale(pair: tuple[dict[str, Any], str]) -> None:
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
                check_refused(record, f"`{alias}` in place of the declared `{name}`")
            elif record.answered and not record.refused(declared + [alias]):
                advisories.append(f"accepted `{alias}` in place of the optional `{name}` and ignored it")

        run_property(st.tuples(full_arguments_for(schema), st.sampled_from(declared)), stale)
        # Every declared parameter right plus an extra one: advisory when accepted (the seam's example accepts it).
        extra = {**simplest_arguments(schema, full=True), "unexpected_option": "x"}
        record = subject.call(extra)
        if record.answered and not record.refused(declared + ["unexpected_option"]):
            advisories.append("accepted an unknown parameter beside correct ones (`unexpected_option`) "
                              "without a word; consider refusing it")
        for note in dict.fromkeys(advisories):
            subject.advise(note)
