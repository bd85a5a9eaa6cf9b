"""Calling a plugin's tools with generated arguments: results, refusals, transport faults, access.

Every call runs in a fresh temporary working directory with the network blocked. Valid calls go
through the reference host's pipeline; breaking arguments are also handed to the handler
directly (the SCHEMA-4 reading), since the host's own validation would otherwise refuse them first.

A refusal is recognised by what it is (a text that says no); naming the parameter is advised.
A handler that does not refuse breaking arguments fails SCHEMA-4 only on evidence (it changed the
workspace, echoed the bad value, used a value that was not there, or answered exactly as without
the offending parameter); without evidence it is an advisory. A throw for a bad argument is
reported under ERR-2 only, a success for one under SCHEMA-4 only, so that each finding has one rule.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from pytest_toolconformance.findings import CaseOutOfTime, shorten
from pytest_toolconformance.plugins.arguments import (
    FAULT_ORIGIN,
    breaking_call_arguments_for,
    call_arguments_for,
    can_break,
    classify,
    each_breaking_call,
    fault_origin_calls,
    properties,
    required,
    shaped_calls,
    simplest_arguments,
    simplest_value,
    unknown_only_for,
    valid,
)
from pytest_toolconformance.plugins.parametrize import for_each_tool, generate_tests
from pytest_toolconformance.plugins.readings import (
    CallRecord,
    answered_as,
    environment_cause,
    js_renderings,
    success_evidence,
)
from pytest_toolconformance.plugins.subject import Subject, ToolSubject
from pytest_toolconformance.plugins.under_test import ToolUnderTest
from pytest_toolconformance.profile import run_property
from pytest_toolconformance.suites.plugin._transport import foreign_import, host_without_tag, transport_fix
from reference_host import result_problems

pytest_generate_tests = generate_tests

OWNER_WORDS = re.compile(r"\b(owner|operator)\b", re.IGNORECASE)


@for_each_tool(["REG-3"])
def test_valid_call_result(toolconformance_subject: ToolSubject) -> None:
    """REG-3: what a call answers is {content: [PI-supported items], details: {...}}."""
    subject = toolconformance_subject
    schema = subject.require_callable()
    normal: list[CallRecord] = []
    unanswered: list[str] = []

    def check(args: dict, via: str = "host") -> None:
        record = subject.call(args, via=via)
        if not record.answered or record.flagged_error:
            unanswered.append(f"{shorten(args, 80)} -> {shorten(record.text or record.error, 120)}")
            return  # pi's error result (isError: true) is not a normal result
        normal.append(record)
        problems = result_problems(record.result)
        if problems:
            raise subject.finding(
                "a normal result {content: [{type: 'text', text} or {type: 'image', data, mimeType}], details: {...}}",
                f"it returned {shorten(record.result)}: {'; '.join(problems)}",
                record,
                fix="return {content: [{type: 'text', text: '...'}], details: {}} for answers and refusals alike",
            )

    with subject.reporting():
        # The simplest valid call first, as a case of the property: one that never ends leaves the others.
        # Then each optional URL parameter given a URL, so a fetch behind it runs on any example budget.
        run_property(call_arguments_for(schema), check, examples=[simplest_arguments(schema), *shaped_calls(schema)],
                     share_draws=True)
        if can_break(schema):
            run_property(breaking_call_arguments_for(schema), lambda args: check(args, via="handler"),
                         share_draws=True)
    # After the reporting block, which errors the check where a case ran out of time: a pass needs a normal
    # result to have been judged, and every call that answered threw or was flagged an error.
    if not normal:
        pytest.skip(f"not observed: no call of {subject.tool.name} returned a normal result, so its shape could "
                    f"not be judged (e.g. {unanswered[0] if unanswered else 'no call ran'})")


def _is_local_fault(record: CallRecord) -> bool:
    return record.thrown and not record.network and not record.transport_tagged


@for_each_tool(["ERR-2"])
def test_no_throw_for_bad_input(toolconformance_subject: ToolSubject) -> None:
    """ERR-2: a bad argument, a missing resource or a refusal is a text result, never a throw."""
    subject = toolconformance_subject
    tool = subject.tool
    schema = subject.require_callable()

    probes = [simplest_arguments(schema)]
    for other in (simplest_arguments(schema, full=True), _other_valid_call(schema)):
        if other is not None and other not in probes:
            probes.append(other)
    excused: list[str] = []

    def host_fault(record: CallRecord, bad_call: bool) -> str | None:
        """Reading (ERR-2 by who gets it): a throw that names the environment, or that a valid call with
        other arguments gets word for word, is a host or configuration fault, which the seed throws; one
        that only a bad call gets is ERR-2's, whatever its words."""
        cause = environment_cause(record, list(properties(schema)), bad_call=bad_call)
        if cause is not None:
            return cause
        echoed = [r for v in record.arguments.values() for r in js_renderings(v) if r in record.text] \
            if isinstance(record.arguments, dict) else []
        for args in probes:
            if args == record.arguments or echoed:
                continue
            try:
                probe = subject.call(args)
            except CaseOutOfTime:
                continue  # a probe that never answers tells nothing of this throw
            if probe.thrown and probe.comparable_text == record.comparable_text:
                return (f"a valid call ({shorten(args, 80)}) throws the very same, so the throw does not "
                        "depend on the arguments")
        return None

    def check(args: dict, via: str, what: str, bad_call: bool = True) -> None:
        record = subject.call(args, via=via)
        if _is_local_fault(record):
            cause = host_fault(record, bad_call)
            if cause is not None:
                excused.append(f"{shorten(record.text, 160)} ({cause})")
                return
            raise subject.finding(
                f"{what} to get a text result, not a throw (only transport and host faults are thrown)",
                f"it threw {shorten(record.text)} without reaching for the network",
                record,
                fix="return a text result that says what is wrong (a bad argument, a missing file, a refusal)",
            )

    with subject.reporting():
        run_property(
            call_arguments_for(schema),
            lambda a: check(a, "host", "a valid call (a missing resource is text)", bad_call=False),
            examples=[simplest_arguments(schema)],
            share_draws=True,
        )
        if can_break(schema):
            # One call per way to break the schema first (SCHEMA-4's, which leaves a throw to this rule),
            # so a handler that throws on one parameter is found on any example budget.
            run_property(
                breaking_call_arguments_for(schema),
                lambda a: check(a, "handler", "arguments that break the schema (a bad argument)"),
                examples=each_breaking_call(schema),
                share_draws=True,
            )
        # Unknown parameters are a bad argument too (NAME-6 refuses them), where the schema lets
        # them through: the calls NAME-6 makes through the host, judged here for a throw.
        run_property(
            unknown_only_for(schema),
            lambda a: check(a, "host", "an unknown-only call (a bad argument)"),
            share_draws=True,
        )
        if tool.external and can_break(schema):
            # The host forwards an external tool's arguments as sent (CAP-4): its handler is the validator.
            run_property(
                breaking_call_arguments_for(schema),
                lambda a: check(a, "host", "arguments that break the schema of an external tool"),
                share_draws=True,
            )
    if excused:
        subject.advise(
            f"threw a host or configuration fault, which the seed says to throw, so ERR-2 could not judge "
            f"these calls: {excused[0]}; give the tool what it needs (a program on PATH, a key) to have "
            "its bad-argument handling checked"
        )


@for_each_tool(["SCHEMA-4"])
def test_handler_validates_again(toolconformance_subject: ToolSubject) -> None:
    """SCHEMA-4: handed arguments that break its schema, the handler refuses them with text."""
    subject = toolconformance_subject
    tool = subject.tool
    schema = subject.require_callable()
    declared = list(properties(schema))
    if not declared:
        pytest.skip(
            f"not applicable: {tool.name} declares no parameters, so only unknown ones could break its "
            "schema, and with no declared target there is no default to use silently (see NAME-6)"
        )
    if not can_break(schema):
        pytest.skip(
            f"not applicable: every argument object satisfies the schema of {tool.name} (nothing required, "
            "no parameter of a definite type, extras allowed); unknown parameters are NAME-6's"
        )
    unclear: list[str] = []
    unnamed: list[str] = []

    def reference(args: dict, via: str) -> CallRecord | None:
        return subject.call(args, via=via) if valid(schema, args) else None

    def check(args: dict, via: str = "handler") -> None:
        case = classify(schema, args)
        if case is None:
            return
        record = subject.call(args, via=via)
        if not record.answered:
            return  # a throw is ERR-2's finding
        # The same call without the parameters at fault, unknown or of the wrong type: a handler that
        # answers the bad call as it answers this one dropped the bad value unchecked.
        without = {k: v for k, v in args.items() if k not in (*case.unknown, *case.wrong)}
        bad = [args[k] for k in (*case.unknown, *case.wrong) if k in args]
        # What the handler answers where no refusal is its business: the same call without the offending
        # parameters, its simplest valid call, and {} (each only where it is no refusal itself).
        references = [
            reference(without, via) if without != args else None,
            reference(simplest_arguments(schema), via),
            subject.call({}, via=via) if args else None,
        ]
        # Evidence first: an answer a valid call also gets is no refusal, whatever words it holds.
        same = answered_as(record, [r for r in references if r is not None and valid(schema, r.arguments)], declared)
        if same is None and record.refused(declared + list(case.offending)):
            if not record.names_any(declared + list(case.offending)):
                unnamed.append(shorten(record.text, 100))
            return
        evidence = success_evidence(record, bad, references, declared)
        if evidence is None:
            unclear.append(f"{shorten(args, 100)} -> {shorten(record.text, 100)}")
            return
        raise subject.finding(
            f"a text refusal for arguments that break the schema ({case.kind}: "
            f"{', '.join(f'`{n}`' for n in case.offending)})",
            f"it answered {shorten(record.text)} as a success: {evidence}",
            record,
            fix="validate params inside execute and refuse with text naming the parameter, like the seam's "
            "`value must be a string`; refuse unknown parameters too",
        )

    with subject.reporting():
        run_property(breaking_call_arguments_for(schema), check, examples=each_breaking_call(schema), share_draws=True)
        if tool.external:
            # Through the host too: it forwards an external tool's arguments unvalidated (CAP-4).
            run_property(breaking_call_arguments_for(schema), lambda args: check(args, "host"), share_draws=True)
    if unnamed:
        subject.advise(
            f"refuses breaking arguments without naming the parameter ({unnamed[0]}); naming it "
            "tells the model what to fix"
        )
    if unclear:
        subject.advise(
            f"answered arguments that break its schema without a recognizable refusal, e.g. {unclear[0]}; "
            "refuse them with a text naming the parameter"
        )


def _other_valid_call(schema: dict) -> dict[str, Any] | None:
    """The simplest full call with its strings changed: a valid call with other arguments, to tell a throw
    every valid call gets from one that depends on what the call carried; None where no such call is valid."""
    args = simplest_arguments(schema, full=True)
    other = {k: f"{v}-2" if isinstance(v, str) else v for k, v in args.items()}
    return other if other != args and valid(schema, other) else None


def _offers_choice(tool: ToolUnderTest) -> bool:
    return tool.accepted and not required(tool.schema) and len(properties(tool.schema)) >= 2


@for_each_tool(
    ["SCHEMA-3"],
    select=_offers_choice,
    applies_to="no tool offers alternatives: SCHEMA-3 applies to two or more parameters, all optional",
)
def test_choice_in_handler(toolconformance_subject: ToolSubject) -> None:
    """SCHEMA-3: a choice between alternative parameters lives in the handler; an unknown-only
    call reaches it and is refused with a text that names the alternatives.

    Reading: a tool offers a choice when it refuses the call naming none of its parameters for its
    arguments and answers a call naming one or two of them otherwise (ShareImage: file_path alone, or
    latest alone); the parameters of those calls are the alternatives its refusal names, two at least.
    A tool whose refusal speaks only of the session's state ("No active goal. Use create_goal first.",
    "No active runs. Nothing to wait for.") offers no choice, whatever its optional parameters, and
    neither does one that answers every call naming one or two of them as it answers the call naming none.
    """
    subject = toolconformance_subject
    tool = subject.tool
    schema = subject.require_callable()
    with subject.reporting():
        empty = subject.call({}, via="handler")
        if empty.thrown:
            pytest.skip(f"a call of {tool.name} naming none of its parameters threw; ERR-2 reports that")
        # Its words, a parameter it merely mentions aside: independent filters' unfiltered answer ("status
        # any, owner any: ...") names them without refusing anything.
        if not (empty.says_no or empty.asks_for(list(properties(schema)))) or empty.refuses_for_state:
            pytest.skip(
                f"not applicable: {tool.name} answers a call naming none of its parameters "
                f"({shorten(empty.text, 120)}) without refusing its arguments, so it offers no choice between them"
            )
        alternatives = _alternatives(subject, schema, empty)
        if not alternatives:
            pytest.skip(
                f"not applicable: {tool.name} answers every call naming one or two of its parameters as it "
                f"answers the call naming none ({shorten(empty.text, 120)}): a refusal of every call, "
                "not a choice between alternatives"
            )
        needed = min(2, len(alternatives))

        def check(args: dict) -> None:
            record = subject.call(args, via="handler")
            if not record.answered:
                return
            named = [a for a in alternatives if record.names(a)]
            if len(named) < needed:
                raise subject.finding(
                    f"an unknown-only call to be refused with a text naming the alternatives "
                    f"({', '.join(alternatives)})",
                    f"it answered {shorten(record.text)}" + (f", naming only `{named[0]}`" if named else ""),
                    record,
                    fix="name every alternative in the refusal, as ShareImage does for file_path and latest",
                )

        run_property(unknown_only_for(schema), check, share_draws=True)


def _alternatives(subject: Subject, schema: dict, empty: CallRecord) -> list[str]:
    """The parameters of the calls naming one or two of them that get another answer than the call naming
    none: what the handler chooses between (ShareImage: file_path, latest), in the schema's order."""
    props = properties(schema)
    names = list(props)
    probes: list[dict[str, Any]] = [{n: v} for n in names for v in _probe_values(props[n], n)]
    if len(names) <= 8:
        probes += [
            {a: _probe_values(props[a], a)[0], b: _probe_values(props[b], b)[0]}
            for i, a in enumerate(names)
            for b in names[i + 1 :]
        ]
    found: set[str] = set()
    for args in probes:
        if set(args) <= found:
            continue
        record = subject.call(args, via="handler")
        if record.answered and record.comparable_text != empty.comparable_text and not _refuses_its_value(record, args):
            # A pair counts only where neither of its members alone was answered otherwise.
            found.update(args if len(args) == 1 or not (set(args) & found) else ())
    return [n for n in names if n in found]


def _refuses_its_value(record: CallRecord, args: dict[str, Any]) -> bool:
    """The answer refuses the probed parameter itself ("auth requires a profile", "proxy must be a URL",
    "answerModel requires mode answer"): the handler did not choose it, it turned its value down."""
    return any(
        re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])\W{{0,3}}\s*(requires|must|cannot|needs|is required)\b",
                  record.text, re.IGNORECASE)
        for name in args
    )


def _probe_values(prop: Any, name: str) -> list[Any]:
    if isinstance(prop, dict) and prop.get("type") == "boolean":
        return [True, False]
    if isinstance(prop, dict) and prop.get("type") == "array" and isinstance(prop.get("items"), dict):
        # A list of one, so that a mode chosen by a non-empty list (subagent's tasks) is reached.
        return [[simplest_value(prop["items"], name)]]
    return [simplest_value(prop, name)]


def _call_with_valid_arguments(subject: Subject, schema: dict, check: Callable[[dict], None]) -> None:
    """The ERR-3/ERR-4 drive: the simplest valid call, each optional URL parameter given a URL, each URL
    parameter pointed at the kit's fault origin (a 5xx answer, a reset), then generated valid ones, a hung
    tool reported once."""
    examples = [simplest_arguments(schema), *shaped_calls(schema), *fault_origin_calls(schema)]
    with subject.reporting():
        run_property(call_arguments_for(schema), check, examples=examples, share_draws=True)


def _what_the_request_met(record: CallRecord) -> str:
    """What the call's request met, for a finding: "it reached for fetch, the request failed", or "it
    reached for fetch, the kit's fault origin (origin.toolconformance.invalid) answered 503"."""
    faults = [entry.removeprefix(FAULT_ORIGIN).strip() for entry in record.network if entry.startswith(FAULT_ORIGIN)]
    kinds = [entry for entry in record.network if not entry.startswith(FAULT_ORIGIN)]
    met = f"the kit's fault origin ({FAULT_ORIGIN}) {' and '.join(faults)}" if faults else "the request failed"
    return f"it reached for {', '.join(kinds[:3]) or 'the network'}, {met}"


@for_each_tool(["ERR-3"])
def test_transport_fault_thrown(toolconformance_subject: ToolSubject) -> None:
    """ERR-3: a call whose network request fails throws; it never answers the fault as text."""
    subject = toolconformance_subject
    tool = subject.tool
    schema = subject.require_callable()
    reached: list[CallRecord] = []

    def check(args: dict) -> None:
        record = subject.call(args)
        if not record.network:
            return
        reached.append(record)
        if not record.thrown:
            raise subject.finding(
                "a failed network request to be thrown (a transport fault is not an answer the model can fix)",
                f"{_what_the_request_met(record)}, and it answered {shorten(record.text)}",
                record,
                fix=transport_fix(subject.plugin.loaded),
            )

    _call_with_valid_arguments(subject, schema, check)
    if not reached:
        pytest.skip(f"no call of {tool.name} reached for the network, so no transport fault could be observed")


@for_each_tool(["ERR-4"])
def test_transport_fault_tagged(toolconformance_subject: ToolSubject) -> None:
    """ERR-4: a transport failure the tool caught is rethrown as it is, or tagged with markTransportFailure."""
    subject = toolconformance_subject
    tool = subject.tool
    schema = subject.require_callable()
    loaded = subject.plugin.loaded
    thrown: list[CallRecord] = []
    # Reading: where the host offers no tag (pi, OpenClaw, no import of the module), a throw, tagged or not, meets it.
    tagless = host_without_tag(loaded)
    foreign = foreign_import(loaded)
    if foreign is not None:
        subject.advise(foreign)

    def check(args: dict) -> None:
        record = subject.call(args)
        if not record.network or not record.thrown:
            return
        thrown.append(record)
        if tagless is None and not (record.transport_tagged or record.raw_network_fault):
            raise subject.finding(
                "a caught transport failure to be rethrown as it is, or tagged with markTransportFailure(error)",
                f"{_what_the_request_met(record)}, and it threw a new, untagged error {shorten(record.text)}",
                record,
                fix=transport_fix(loaded),
            )

    _call_with_valid_arguments(subject, schema, check)
    if not thrown:
        pytest.skip(f"no call of {tool.name} threw after reaching for the network (ERR-3 covers one that answers text)")
    if tagless is not None:
        subject.request.node.user_properties.append(
            ("note", f"met: every transport failure left the tool as a throw; the tag part (markTransportFailure) "
                     f"is not applicable: {tagless}"))


@for_each_tool(["SCOPE-4"])
def test_access_read_at_execution(toolconformance_subject: ToolSubject) -> None:
    """SCOPE-4: identity and access are read at execution time and never kept across turns.

    Observable only where the tool echoes identity or access: two sessions with different live
    policies, and a revocation between two calls of one session.
    """
    subject = toolconformance_subject
    tool = subject.tool
    assert subject.plugin.host is not None
    subject.require_callable()
    args = simplest_arguments(tool.schema)
    fix = "call ctx.currentIdentity()/currentAccess() inside execute on every call and cache nothing across calls"
    with subject.reporting():
        first = subject.open_session()
        record = subject.call(args, session=first)
        if not record.answered:
            pytest.skip(f"{tool.name} did not answer {shorten(args)}; nothing to observe")
        stale = subject.foreign_markers(record.blob, first)
        if stale:
            raise subject.finding(
                "identity and access read fresh in each call",
                f"in a session of {first.user} (Project {first.project}) it answered with {', '.join(stale)}, "
                "which belong to an earlier session",
                record,
                fix=fix,
            )
        if not any(marker in record.blob for marker in first.markers):
            pytest.skip(
                f"{tool.name} does not echo identity or access, so the kit cannot see whether it reads them fresh"
            )
        second = subject.open_session()
        again = subject.call(args, session=second)
        stale = subject.foreign_markers(again.blob, second) if again.answered else []
        if stale:
            raise subject.finding(
                "identity and access read fresh in each call, never kept across turns",
                f"in a second session ({second.user}, Project {second.project}) it answered with "
                f"{', '.join(stale)} from the first",
                again,
                fix=fix,
            )
        if first.project in record.blob:
            subject.plugin.host.set_policy(first.account, {"projectIds": []})
            revoked = subject.call(args, session=first)
            if revoked.answered and first.project in revoked.blob:
                raise subject.finding(
                    "a Project revoked between two calls to be gone from the second call's access",
                    f"after {first.project} was revoked it still answered with it: {shorten(revoked.blob)}",
                    revoked,
                    fix=fix,
                )


@for_each_tool(["GRANT-2"])
def test_no_owner_entitlement(toolconformance_subject: ToolSubject) -> None:
    """GRANT-2 (advisory): entitlement is the account's plugin grant, not an identity.owner check."""
    subject = toolconformance_subject
    tool = subject.tool
    subject.require_callable()
    args = simplest_arguments(tool.schema)
    with subject.reporting():
        plain = subject.call(args, session=subject.open_session(owner=False))
        owner = subject.call(args, session=subject.open_session(owner=True))
    if (
        plain.answered
        and owner.answered
        and OWNER_WORDS.search(plain.text)
        and not OWNER_WORDS.search(owner.text)
        and plain.text != owner.text
    ):
        subject.advise(
            f"refuses callers that are not the instance owner ({shorten(plain.text, 160)}); who may call a tool is "
            "decided by the account's plugin grant and deny-list, so keep identity.owner for operator-only "
            "plugin state"
        )
