"""REASON: the optional ``reason`` field every internal tool gains (Bash and ToolSearch aside),
that an external schema is never rebuilt to carry it, and that it is consumed before the handler.

The seed names no session and no output: a tool's schema is advertised to the model and sent in the
provider payload, and both must carry the field alike, in every session that is offered tools.
REASON-1..3 judge both outputs of each generated catalog's sessions and, for about one example in
four, of one other session of the same conversation (a Build turn with its deferred tools loaded, a
Plan turn, a read-only child, a Plan turn's child); REASON-3 also judges a fixed catalog of external
definitions over the CAP-2 cap. REASON-4 calls an internal tool of every form (instance-wide, scoped,
``mcp__``-named, deferred and loaded) from each kind of session, with every kind of ``reason``
(none, a sentence, an empty string, another JSON type); its edge cells run first, whatever the
example budget. The fixed cells of each session kind are scenarios (scenarios/reason/).

Generated checks: Hypothesis properties, run as the package says (:mod:`pytest_toolconformance.suites.host`).
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import strategies as st

from pytest_toolconformance import measures
from pytest_toolconformance import strategies as tcs
from pytest_toolconformance.host.client import HostClient, Session, check
from pytest_toolconformance.profile import name_strategy, run_property
from pytest_toolconformance.suites.host.composing import (
    EXCLUDED_FROM_REASON,
    JSON,
    CompositionCase,
    composition_property,
    handler_received,
    install,
    loaded_origin_holds,
    reason_problem,
)
from pytest_toolconformance.suites.host.generated import JSON_VALUES
from pytest_toolconformance.suites.host.preconditions import origin_checked

# -- REASON-1..3: every session that is offered tools -------------------------------------------------

#: ``judge(composition, catalog, scenario)``: what a rule asks of one session's composition.
Judge = Callable[[JSON, tcs.Catalog, JSON], None]


def _conversation(spec: JSON) -> str:
    """The conversation kind a generated spec's other turns are opened in: a Project's (managed for
    the first Project, local for the other) or, without a Project, the host's."""
    project = spec.get("projectId")
    if project is None:
        return "host"
    return "managed" if project == tcs.PROJECTS[0] else "local"


#: The other sessions of a conversation. The first session of about one example in four is judged with
#: one of them beside it, picked by a digest of the example's text: every kind meets a few catalogs a
#: run, a case stays reproducible, and a run opens about a dozen sessions more, not hundreds (a
#: child's workspace is a real directory on some hosts: 0.3 ms a child on the reference host). The
#: scenarios hold each kind's fixed cells.
_OTHER_SESSIONS = ("build turn, deferred tools loaded", "plan turn", "read-only child", "child of a plan turn")


def _elsewhere(
    client: HostClient, spec: JSON, catalog: tcs.Catalog, which: str, opened: Session
) -> tuple[JSON, JSON] | None:
    """Another session of ``spec``'s conversation (``which`` of :data:`_OTHER_SESSIONS`; ``opened`` is
    ``spec``'s own host Build turn) and its composition; None where the host offers no such session."""
    capabilities = client.capabilities
    plan = which in ("plan turn", "child of a plan turn")
    if (plan and "plan-mode" not in capabilities) or ("child" in which and "delegation" not in capabilities):
        return None
    turn = {**spec, "conversation": _conversation(spec), "mode": "plan" if plan else "build"}
    session = opened if turn["conversation"] == "host" and not plan else client.open(**turn)
    if which == "read-only child":
        return {"delegatedFrom": turn, "readOnly": True}, session.delegate(read_only=True).compose()
    if which == "child of a plan turn":
        return {"delegatedFrom": turn, "readOnly": False}, session.delegate(read_only=False).compose()
    loaded = []
    if not plan and {"deferral", "calls"} <= capabilities:
        for tool in catalog.visible_to(spec):
            if tool.deferred:
                session.ask("call", "ToolSearch", {"query": f"select:{tool.name}"}, None, refusal="return")
                loaded.append(tool.name)
    return {**turn, "loaded": loaded} if loaded else turn, session.compose()


def _every_session_property(
    client: HostClient, judge: Judge, *, origin_checked_too: bool = False, examples: tuple[CompositionCase, ...] = ()
) -> None:
    """:func:`composing.composition_property` with ``judge`` asked of each generated session's
    composition, and for about one example in four of one other session of the first one's conversation
    (:func:`_elsewhere`, :data:`_OTHER_SESSIONS`; a fixed case names its own)."""

    def other_session(
        spec: JSON, session: Session, catalog: tcs.Catalog, chosen: str | None
    ) -> tuple[JSON, JSON] | None:
        which = chosen
        if which is None:
            turn = zlib.crc32(json.dumps([spec, catalog.plugins], sort_keys=True).encode()) % 16
            which = _OTHER_SESSIONS[turn] if turn < len(_OTHER_SESSIONS) else None
        return _elsewhere(client, spec, catalog, which, session) if which else None

    composition_property(
        client,
        lambda _spec, composed, catalog, scenario: judge(composed, catalog, scenario),
        origin_checked_too=origin_checked_too,
        examples=examples,
        elsewhere=other_session,
    )


def _advertised(composed: JSON) -> Iterator[tuple[str, JSON]]:
    """Each tool entry a composition advertises: to the model, and in the provider payload."""
    for entry in composed.get("tools") or []:
        yield "the model's tool list", entry
    for entry in (composed.get("payload") or {}).get("tools") or []:
        yield "the provider payload", entry


@pytest.mark.toolconformance("REASON-1")
def test_every_internal_tool_gains_an_optional_reason(toolconformance_host: HostClient) -> None:
    def judge(composed: JSON, catalog: tcs.Catalog, scenario: JSON) -> None:
        known = catalog.by_name()
        listed = {entry.get("name") for entry in composed.get("tools") or []}
        for where, entry in _advertised(composed):
            name = entry.get("name")
            tool = known.get(name)
            # A payload name the model's list lacks (redacted, say) is another rule's matter.
            if (tool is not None and tool.external) or name in EXCLUDED_FROM_REASON or name not in listed:
                continue
            problem = reason_problem(entry.get("parameters"))
            if problem is not None and tool is not None:
                loaded_origin_holds(
                    toolconformance_host, composed, tool.name, deferred=tool.deferred, external=tool.external
                )
            check(
                problem is None,
                f"internal tool {entry.get('name')} is advertised in {where} with an optional string reason "
                f"({problem})",
                entry.get("parameters"),
                scenario,
            )

    _every_session_property(toolconformance_host, judge, origin_checked_too=True)


@pytest.mark.toolconformance("REASON-2")
def test_bash_and_toolsearch_never_gain_reason(toolconformance_host: HostClient) -> None:
    def judge(composed: JSON, _catalog: tcs.Catalog, scenario: JSON) -> None:
        for where, entry in _advertised(composed):
            if entry.get("name") in EXCLUDED_FROM_REASON:
                props = (entry.get("parameters") or {}).get("properties") or {}
                check(
                    "reason" not in props,
                    f"{entry['name']} is advertised in {where} without reason",
                    entry.get("parameters"),
                    scenario,
                )

    _every_session_property(toolconformance_host, judge)


def _oversized_externals() -> tcs.Catalog:
    """A catalog the generated ones never are: external definitions over the CAP-2 cap, an ``mcp__`` one
    and a plain-named deferred one, beside an internal tool (REASON-3 holds for what CAP-2 replaced too)."""
    # About 8,600 bytes in three long properties: over the cap, and cheap to measure.
    big = {"type": "object", "properties": {f"f{i}": {"type": "string", "description": "x" * 2800} for i in range(3)}}
    small = {"type": "object", "properties": {"q": {"type": "string"}}}
    plugin, tools, docs = "plg-90-ns", [], []
    for name, external, parameters, deferred in (
        ("mcp__p90__t00", True, big, False),
        ("p90_t01", True, big, True),
        ("p90_t02", False, small, False),
    ):
        description = f"Tool {name}."
        options = {"external": external}
        docs.append({"name": name, "label": name, "description": description, "parameters": parameters})
        docs[-1].update(handler=[{"op": "echo"}], options=options)
        tools.append(tcs.CatalogTool(name, plugin, external, description, parameters, deferred=deferred))
    manifest = {"name": plugin, "deferLoading": [t.name for t in tools if t.deferred]}
    return tcs.Catalog(plugins=({"name": plugin, "manifest": manifest, "tools": docs},), tools=tuple(tools))


@pytest.mark.toolconformance("REASON-3")
def test_external_schemas_are_never_reconstructed(toolconformance_host: HostClient) -> None:
    measured: JSON = {"catalog": None}

    def judge(composed: JSON, catalog: tcs.Catalog, scenario: JSON) -> None:
        if measured["catalog"] is not catalog:  # each catalog's external definitions measured once
            over = measures.DEFINITION_CAP
            measured.update(
                catalog=catalog,
                over={
                    t.name
                    for t in catalog.tools
                    if t.external and measures.definition_bytes(t.name, t.description, t.parameters) > over
                },
            )
        known = catalog.by_name()
        for where, entry in _advertised(composed):
            tool = known.get(entry.get("name"))
            if tool is None or not tool.external:
                continue
            advertised = entry.get("parameters")
            if tool.name in measured["over"]:
                # Whether it is replaced is CAP-2's; replaced or not, it is external and gains no reason.
                properties = advertised.get("properties") if isinstance(advertised, dict) else None
                required = advertised.get("required") if isinstance(advertised, dict) else None
                kept = measures.same_js_text(advertised, tool.parameters) or (
                    "reason" not in (properties or {}) and "reason" not in (required or [])
                )
                if not kept:
                    loaded_origin_holds(
                        toolconformance_host, composed, tool.name, deferred=tool.deferred, external=tool.external
                    )
                check(
                    kept,
                    f"external tool {tool.name}, over the definition cap, is advertised in {where} without reason",
                    advertised,
                    scenario,
                )
                continue
            same = measures.same_js_text(advertised, tool.parameters)
            if not same:
                loaded_origin_holds(
                    toolconformance_host, composed, tool.name, deferred=tool.deferred, external=tool.external
                )
            check(
                same,
                f"external tool {tool.name} is advertised in {where} with its schema byte-identical to the "
                "registered one (no reason, nothing rebuilt)",
                {"advertised": advertised, "registered": tool.parameters},
                scenario,
            )

    # The fixed case is judged in a managed Project's Build turn too, its deferred tool loaded there.
    spec = {"identity": {"userId": "acct-amber"}, "projectId": tcs.PROJECTS[0]}
    fixed = (_oversized_externals(), [spec], _OTHER_SESSIONS[0])
    _every_session_property(toolconformance_host, judge, examples=(fixed,))


# -- REASON-4: every form of internal tool, every session, every value ----------------------------------

_USER = "u-reason"
_PROJECT = "proj-reason"
_PLATFORM = "web"
#: Where the tool is called: a turn (conversation and mode), or a child delegated from one.
_WHERE: dict[str, JSON] = {
    "host build turn": {"conversation": "host", "mode": "build"},
    "managed build turn": {"conversation": "managed", "mode": "build"},
    "local plan turn": {"conversation": "local", "mode": "plan"},
    "read-only child": {"conversation": "host", "mode": "build", "child": {"readOnly": True}},
    "child of a plan turn": {"conversation": "managed", "mode": "plan", "child": {"readOnly": False}},
}
_FORMS = ("instance-wide", "scoped", "mcp__-named", "deferred")
_SCOPES = ({"ownerUserId": _USER}, {"projectId": _PROJECT}, {"platform": _PLATFORM})
#: A reason: ("absent", None), ("string", text) (the empty string included) or ("other", a JSON value).
_REASONS = st.one_of(
    st.text(min_size=1, max_size=40).map(lambda t: ("string", t)),
    st.just(("string", "")),
    st.just(("absent", None)),
    JSON_VALUES.filter(lambda v: not isinstance(v, str)).map(lambda v: ("other", v)),
)
_VALUE = {"type": "object", "required": ["value"], "properties": {"value": {"type": "string"}}}
#: The edge cells, first whatever the budget: each reason kind, form and place at least once.
_EDGES: list[tuple[JSON, JSON, tuple[str, Any], str, str, int]] = [
    (_VALUE, {"value": "x"}, ("string", "adding what the user named"), "instance-wide", "host build turn", 0),
    (_VALUE, {"value": "x"}, ("string", ""), "scoped", "managed build turn", 2),
    (_VALUE, {"value": "x"}, ("string", "looking"), "deferred", "read-only child", 0),
    (_VALUE, {"value": "x"}, ("string", "planning"), "mcp__-named", "local plan turn", 0),
    (_VALUE, {"value": "x"}, ("absent", None), "instance-wide", "child of a plan turn", 0),
    (_VALUE, {"value": "x"}, ("other", {"why": 7}), "instance-wide", "host build turn", 0),
]


@st.composite
def _reason_calls(draw: st.DrawFn) -> tuple[JSON, JSON, tuple[str, Any], str, str, int]:
    schema = draw(tcs.flat_schemas(max_properties=4))
    return (
        schema,
        draw(tcs.arguments_for(schema)),
        draw(_REASONS),
        draw(st.sampled_from(_FORMS)),
        draw(st.sampled_from(list(_WHERE))),
        draw(st.integers(0, len(_SCOPES) - 1)),
    )


def _probe(schema: JSON, form: str, where: str, scope: int) -> JSON:
    """The one internal tool of the probe plugin, in ``form``; declared read-only where a Plan turn or a
    read-only child is to run it, deferred by the manifest when ``form`` is deferred."""
    name = "mcp__local__probe" if form == "mcp__-named" else "local_probe"
    tool: JSON = {"name": name, "label": "probe", "description": "Probe.", "parameters": schema}
    tool["handler"] = [{"op": "echo"}]
    if form == "mcp__-named":
        tool["options"] = {"external": False}
    elif form == "scoped":
        tool["options"] = dict(_SCOPES[scope])
    manifest: JSON = {"name": "local"}
    if _WHERE[where]["mode"] == "plan" or "child" in _WHERE[where]:
        manifest["provides"] = {"tools": [name], "readOnlyTools": [name]}
    if form == "deferred":
        manifest["deferLoading"] = [name]
    return {"name": "local", "manifest": manifest, "tools": [tool]}


def _session_for(client: HostClient, where: str) -> tuple[Session, JSON]:
    place = _WHERE[where]
    spec: JSON = {"identity": {"userId": _USER}, "projectId": _PROJECT, "platform": _PLATFORM}
    spec.update(conversation=place["conversation"], mode=place["mode"])
    session = client.open(**spec)
    if "child" in place:
        return session.delegate(read_only=place["child"]["readOnly"]), {"delegatedFrom": spec, **place["child"]}
    return session, spec


@pytest.mark.toolconformance("REASON-4")
def test_reason_is_consumed_before_the_handler(toolconformance_host: HostClient) -> None:
    client = toolconformance_host
    client.require("registration", "calls")
    needs = {"scoped": "scoping", "deferred": "deferral"}

    def body(example: tuple[JSON, JSON, tuple[str, Any], str, str, int]) -> None:
        schema, arguments, (kind, reason), form, where, scope = example
        place = _WHERE[where]
        if (
            (form in needs and needs[form] not in client.capabilities)
            or (place["mode"] == "plan" and "plan-mode" not in client.capabilities)
            or ("child" in place and "delegation" not in client.capabilities)
        ):
            return  # a cell this host does not offer says nothing about REASON-4
        client.reset()
        doc = _probe(schema, form, where, scope)
        name = doc["tools"][0]["name"]
        install(client, [doc])
        session, spec = _session_for(client, where)
        if form == "deferred":
            session.ask("call", "ToolSearch", {"query": f"select:{name}"}, None, refusal="return")
        sent = dict(arguments) if kind == "absent" else {**arguments, "reason": reason}
        calls: list[JSON] = []
        for nth in ("first", "second"):  # a host may consume reason on a tool's first call only
            outcome = session.ask("call", name, sent, None, refusal="return")
            calls.append({"tool": name, "arguments": sent})
            scenario = {"plugin": doc, "session": spec, "form": form, "calls": list(calls)}
            ran, received = outcome.get("handlerRan") is True, handler_received(outcome)
            if kind == "string" and not ran:
                # A valid call: reason (advertised, optional) is never why it is refused.
                control = session.ask("call", name, dict(arguments), None, refusal="return")
                check(
                    control.get("handlerRan") is not True,
                    f"a valid call plus reason runs as it does without reason, the {nth} time too (reason is "
                    "never an unknown parameter)",
                    {"refusal": outcome.get("refusal"), "content": outcome.get("content")},
                    scenario,
                )
            if not ran:
                # Refused without reason too (another rule's cell: scope, plan, the loader), or a reason that
                # breaks its advertised string refused (REG-6): the handler never saw it.
                return
            if kind == "other" and isinstance(received, dict) and "reason" in received:
                # The handler ran a call that breaks the advertised schema: REG-6's validation failed first,
                # and REG-6's checks say so. Judged here it would be blocked by REG-6, and a block met among
                # the explicit cases is what Hypothesis reports over the other cases' plain failures.
                return
            if received != arguments and form == "deferred":
                probe = tcs.CatalogTool(name, "local", False, "Probe.", schema, deferred=True)
                loaded_origin_holds(
                    client, session.compose(), probe.name, deferred=probe.deferred, external=probe.external
                )
            check(
                received == arguments,
                f"on the {nth} call of {form} tool {name} in a {where}, the handler receives the call's arguments "
                f"without reason ({kind} reason {reason!r})",
                {"received": received},
                scenario,
            )

    origin_examined = origin_checked(client, body)

    def judged(example: tuple[JSON, JSON, tuple[str, Any], str, str, int]) -> None:
        # Only an mcp__-named internal tool's path depends on the host getting origin right (EXT-1, EXT-2):
        # what reaches a plain tool's handler is REASON-4's whatever the host makes of the external option.
        (origin_examined if example[3] == "mcp__-named" else body)(example)

    run_property(name_strategy(_reason_calls(), f"{__name__}._reason_calls"), judged, examples=_EDGES, share_draws=True)
