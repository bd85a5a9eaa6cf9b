"""CAP: what the host cuts of an external tool (its description at 1,000 bytes, its definition at
8,000), what it never cuts (an internal tool), and that an external call's arguments reach their owner as sent.

Generated checks: Hypothesis properties, run as the package says (:mod:`pytest_toolconformance.suites.host`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import jsonschema
import pytest
from hypothesis import strategies as st

from pytest_toolconformance import measures
from pytest_toolconformance import strategies as tcs
from pytest_toolconformance.host.client import HostClient, Session, check
from pytest_toolconformance.profile import name_strategy, run_property
from pytest_toolconformance.suites.host.composing import (
    JSON,
    by_name,
    handler_received,
    install,
    keeps_schema,
    loaded_origin_holds,
    one_tool_plugin,
    tool_entry,
    valid_utf8,
    without_reason,
)
from pytest_toolconformance.suites.host.preconditions import origin_checked, precondition

# -- CAP ---------------------------------------------------------------------------------------------


def _advertised(session: Session, name: str, scenario: Any, composed: JSON | None = None) -> tuple[JSON, JSON]:
    """``name``'s entries in the tool list and the provider payload of ``session``'s composition
    (``composed`` where it is already at hand)."""
    composed = session.compose() if composed is None else composed
    tool = by_name(composed["tools"]).get(name)
    payload = by_name(composed["payload"].get("tools") or []).get(name)
    check(
        tool is not None and payload is not None,
        f"{name} is in the tool list and the provider payload",
        {"tools": [t["name"] for t in composed["tools"]]},
        scenario,
    )
    return dict(tool), dict(payload)  # type: ignore[arg-type]


#: Where the one tool of a CAP property is advertised: the seed caps "during session composition", so
#: in every session offered tools and however a tool reaches it. (How it is registered, which session
#: composes it); a placement the host offers no means for is judged as the first instead.
#: An external tool's name in each form the seed's "tool names never imply origin" covers.
_EXTERNAL_NAMES = ("mcp__srv__probe", "probe_remote")
#: An internal tool's, likewise.
_INTERNAL_NAMES = ("local_probe", "mcp__local__probe")
PLACEMENTS: tuple[tuple[str, str], ...] = (
    ("instance-wide", "host Build turn"),
    ("deferred, then loaded by ToolSearch", "host Build turn"),
    ("scoped to the user", "host Build turn"),
    ("instance-wide", "Project Build turn"),
    ("instance-wide", "host Plan turn"),
    ("declared read-only", "read-only child"),
    ("declared read-only", "child of a Plan turn"),
)
_NEEDS = {
    "deferred, then loaded by ToolSearch": {"deferral", "calls"},
    "scoped to the user": {"scoping"},
    "host Plan turn": {"plan-mode"},
    "read-only child": {"delegation"},
    "child of a Plan turn": {"delegation", "plan-mode"},
}
#: The rule a placement's tool needs to be advertised at all: its absence there is that rule's fault.
_ADVERTISED_BY = {
    "deferred, then loaded by ToolSearch": "MANIFEST-2",
    "scoped to the user": "SCOPE-1",
    "host Plan turn": "PLAN-1",
    "read-only child": "RO-5",
    "child of a Plan turn": "RO-5",
    "Project Build turn": "SCOPE-1",
}


def _placed(client: HostClient, tool: JSON, placement: tuple[str, str], scenario: JSON) -> tuple[JSON, JSON]:
    """Install ``tool`` (a scripted tool entry) in a plugin of its own as ``placement`` says, and its
    entries in the tool list and the provider payload of the session it names (``scenario`` gains both)."""
    registered, where = placement
    if not (_NEEDS.get(registered, set()) | _NEEDS.get(where, set())) <= client.capabilities:
        registered, where = PLACEMENTS[0]
    name, entry = tool["name"], dict(tool)
    plugin: JSON = {"name": "bridge", "tools": [entry]}
    if registered == "scoped to the user":
        entry["options"] = {**(entry.get("options") or {}), "ownerUserId": "u1"}
    elif registered == "deferred, then loaded by ToolSearch":
        plugin["manifest"] = {"name": "bridge", "deferLoading": True}
    elif registered == "declared read-only":
        plugin["manifest"] = {"name": "bridge", "provides": {"tools": [name], "readOnlyTools": [name]}}
    scenario.update(plugin=plugin, placement={"registered": registered, "session": where})
    client.reset()
    install(client, [plugin])
    spec: JSON = {"identity": {"userId": "u1"}}
    if where == "Project Build turn":
        spec.update(conversation="managed", projectId=tcs.PROJECTS[0])
    elif where in ("host Plan turn", "child of a Plan turn"):
        spec.update(conversation="host", mode="plan")
    session = client.open(**spec)
    if registered == "deferred, then loaded by ToolSearch":
        session.ask("call", "ToolSearch", {"query": f"select:{name}"}, None, refusal="return")
    if where in ("read-only child", "child of a Plan turn"):
        # Only a tool its plugin's declaration classifies read-only reaches a read-only child (RO-5), and an
        # exact name classifies its own plugin's tool, external ones included (RO-3).
        classified = (tool_entry(session.compose(), name, "catalog") or {}).get("readOnly")
        precondition(classified in (None, True), "RO-3", f"{name} classified read-only by its exact name", classified)
        session = session.delegate(read_only=where == "read-only child")
    composed = session.compose()
    external = (tool.get("options") or {}).get("external") is True
    loaded_origin_holds(client, composed, name, deferred=registered.startswith("deferred"), external=external)
    if (registered, where) != PLACEMENTS[0]:
        tools, payload = (
            by_name(composed.get("tools") or []),
            by_name((composed.get("payload") or {}).get("tools") or []),
        )
        missing = [
            output for output, entries in (("tool list", tools), ("provider payload", payload)) if name not in entries
        ]
        rule = _ADVERTISED_BY.get(registered) or _ADVERTISED_BY[where]
        precondition(not missing, rule, f"{name} advertised ({registered}, {where})", {"missingFrom": missing})
    return _advertised(session, name, scenario, composed)


def _in_every_placement(value: Any, names: tuple[str, ...]) -> list[tuple[Any, str, tuple[str, str]]]:
    """Explicit examples: ``value`` under each name in each placement, whatever the example budget."""
    return [(value, name, placement) for name in names for placement in PLACEMENTS]


@pytest.mark.toolconformance("CAP-1")
def test_external_descriptions_are_cut_at_1000_bytes_on_a_character_boundary(toolconformance_host: HostClient) -> None:
    """CAP-1 at the boundary: 999 to 1,001 bytes with a multi-byte character across the cut."""
    client = toolconformance_host
    client.require("registration", "composition")

    def body(example: tuple[str, str, tuple[str, str]]) -> None:
        description, name, placement = example
        tool = one_tool_plugin("bridge", name, description, {"type": "object", "properties": {}}, external=True)
        scenario: JSON = {"originalBytes": measures.utf8_len(description)}
        advertised = _placed(client, tool["tools"][0], placement, scenario)
        for where, entry in zip(("tool list", "provider payload"), advertised, strict=True):
            shown = entry.get("description")
            expected = measures.utf8_prefix(description, measures.DESCRIPTION_CAP)
            check(valid_utf8(shown), f"the {where} description is valid UTF-8 text", shown, scenario)
            size = measures.utf8_len(shown)
            check(
                size <= measures.DESCRIPTION_CAP,
                f"the {where} description is at most 1,000 UTF-8 bytes",
                {"bytes": size},
                scenario,
            )
            check(
                description.encode("utf-8").startswith(shown.encode("utf-8")),
                f"the {where} description is a prefix of the original (a cut, not a rewrite)",
                {"advertised": shown[-40:], "bytes": size},
                scenario,
            )
            if measures.utf8_len(description) <= measures.DESCRIPTION_CAP:
                check(
                    shown == description,
                    f"a description of at most 1,000 bytes is advertised unchanged in the {where}",
                    {"advertisedBytes": size},
                    scenario,
                )
            else:
                check(
                    shown == expected,
                    f"the cut drops no whole character that fits: {measures.utf8_len(expected)} bytes in the {where}",
                    {"advertisedBytes": size, "droppedFrom": description[len(shown) : len(shown) + 3]},
                    scenario,
                )

    descriptions = st.one_of(
        tcs.descriptions_near(measures.DESCRIPTION_CAP), st.text(alphabet="ab€😀é", min_size=300, max_size=700)
    )
    examples = st.tuples(descriptions, st.sampled_from(_EXTERNAL_NAMES), st.sampled_from(PLACEMENTS))
    run_property(
        name_strategy(examples, f"{__name__}.descriptions near the cap, placed"),
        body,
        examples=_in_every_placement("é" * 499 + "😀", _EXTERNAL_NAMES),
        share_draws=True,
    )


def _is_permissive(parameters: Any) -> tuple[bool, str]:
    if not isinstance(parameters, Mapping) or parameters.get("type") != "object":
        return False, "the root is not {type: object}"
    try:
        validator = jsonschema.Draft202012Validator(parameters)
        accepts = all(validator.is_valid(probe) for probe in ({}, {"anything": 1, "else": ["x"]}, {"query": "q"}))
    except jsonschema.SchemaError as exc:
        return False, f"not a valid JSON Schema: {exc.message}"
    return (True, "") if accepts else (False, "it rejects some objects (not permissive)")


@pytest.mark.toolconformance("CAP-2")
def test_external_definitions_over_8000_bytes_get_a_permissive_schema(toolconformance_host: HostClient) -> None:
    """CAP-2 at the boundary: definitions of 7,999 to 8,001 JSON.stringify bytes (after CAP-1)."""
    client = toolconformance_host
    client.require("registration", "composition")

    def body(example: tuple[JSON, tuple[str, str]]) -> None:
        definition, placement = example
        name, description, parameters = definition["name"], definition["description"], definition["parameters"]
        tool = one_tool_plugin("bridge", name, description, parameters, external=True)["tools"][0]
        size = measures.definition_bytes(name, description, parameters)
        scenario: JSON = {
            "definitionBytes": size,
            "measure": "JSON.stringify({name, description after CAP-1, parameters}) in UTF-8 bytes",
        }
        entries = _placed(client, tool, placement, scenario)
        for where, entry in zip(("tool list", "provider payload"), entries, strict=True):
            advertised = entry.get("parameters")
            if size > measures.DEFINITION_CAP:
                ok, why = _is_permissive(advertised)
                check(
                    ok,
                    f"a {size}-byte definition is advertised in the {where} with a permissive object schema ({why})",
                    advertised,
                    scenario,
                )
                kept = set((advertised or {}).get("properties") or {}) & set(parameters["properties"])
                check(
                    not kept,
                    f"the permissive schema in the {where} drops the original properties",
                    sorted(kept),
                    scenario,
                )
                notice = (isinstance(advertised.get("description"), str) and advertised["description"].strip()) or (
                    entry.get("description") != measures.utf8_prefix(description, measures.DESCRIPTION_CAP)
                )
                check(
                    bool(notice),
                    f"an omission notice in the {where} (a parameters description, or an amended tool description)",
                    {"description": entry.get("description"), "parameters": advertised},
                    scenario,
                )
            elif not measures.same_js_text(advertised, parameters):
                # Not replaced, yet not byte for byte as registered: kept with something added or rebuilt
                # is REASON-3's subject ("never reconstructed"), not the cap's.
                own = (advertised or {}).get("properties") if isinstance(advertised, Mapping) else None
                precondition(
                    not keeps_schema(advertised, parameters),
                    "REASON-3",
                    "an external schema under the cap advertised byte for byte as registered (not rebuilt)",
                    {"advertisedBytes": measures.json_bytes(advertised)},
                )
                check(
                    False,
                    f"a {size}-byte definition is advertised in the {where} with its schema as "
                    "registered, not replaced",
                    {"advertisedBytes": measures.json_bytes(advertised), "properties": sorted(own or {})},
                    scenario,
                )

    definitions = st.tuples(tcs.external_definitions_near(measures.DEFINITION_CAP), st.sampled_from(PLACEMENTS))
    wide = {"type": "object", "properties": {"notes": {"type": "string", "description": "n" * 8100}}}
    run_property(
        name_strategy(definitions, f"{__name__}.definitions near the cap, placed"),
        body,
        examples=[
            ({"name": name, "description": "Search a remote source.", "parameters": wide}, placement)
            for _, name, placement in _in_every_placement(None, _EXTERNAL_NAMES)
        ],
        share_draws=True,
    )


@st.composite
def _big_internal_tools(draw: st.DrawFn) -> tuple[str, JSON]:
    description = draw(st.one_of(tcs.descriptions_near(measures.DESCRIPTION_CAP), tcs.descriptions_near(1500)))
    schema = draw(tcs.flat_schemas(max_properties=3))
    padding = draw(st.sampled_from([0, 7000, 9000]))
    if padding:
        schema = {
            **schema,
            "properties": {**schema["properties"], "zz_notes": {"type": "string", "description": "n" * padding}},
        }
    return description, schema


@pytest.mark.toolconformance("CAP-3")
def test_internal_tools_are_never_capped(toolconformance_host: HostClient) -> None:
    """CAP-3: the same descriptions and sizes that cap an external tool leave an internal one alone."""
    client = toolconformance_host
    client.require("registration", "composition")

    def body(example: tuple[tuple[str, JSON], str, tuple[str, str]]) -> None:
        (description, schema), name, placement = example
        tool = one_tool_plugin("local", name, description, schema)["tools"][0]
        scenario: JSON = {
            "descriptionBytes": measures.utf8_len(description),
            "definitionBytes": measures.definition_bytes(name, description, schema, cap_description=False),
        }
        for where, entry in zip(
            ("tool list", "provider payload"), _placed(client, tool, placement, scenario), strict=True
        ):
            check(
                entry.get("description") == description,
                f"the internal tool's description is advertised unchanged in the {where}",
                {"advertisedBytes": measures.utf8_len(entry.get("description") or "")},
                scenario,
            )
            advertised = without_reason(entry.get("parameters"))
            own = advertised.get("properties") or {}
            check(
                keeps_schema(advertised, schema),
                f"the internal tool keeps its own properties and required names in the {where} (no permissive "
                "replacement; what the host adds of its own is no cap)",
                {"properties": sorted(own), "required": advertised.get("required")},
                scenario,
            )

    tools = st.tuples(_big_internal_tools(), st.sampled_from(_INTERNAL_NAMES), st.sampled_from(PLACEMENTS))
    padded = {"type": "object", "properties": {"notes": {"type": "string", "description": "n" * 9000}}}
    run_property(
        name_strategy(tools, f"{__name__}._big_internal_tools, placed"),
        origin_checked(client, body),
        examples=_in_every_placement(("é" * 750, padded), _INTERNAL_NAMES),
        share_draws=True,
    )


@st.composite
def _external_calls(draw: st.DrawFn) -> tuple[JSON, JSON]:
    schema = draw(tcs.flat_schemas(max_properties=4))
    arguments = draw(st.one_of(tcs.arguments_for(schema), tcs.breaking_arguments_for(schema)))
    if draw(st.booleans()):
        arguments = {**arguments, "reason": "the owner decides what this means"}
    return schema, arguments


@pytest.mark.toolconformance("CAP-4")
def test_external_arguments_reach_the_owner_as_sent(toolconformance_host: HostClient) -> None:
    """CAP-4: valid or schema-breaking arguments to an external tool are forwarded unchanged."""
    client = toolconformance_host
    client.require("registration", "calls")

    def body(example: tuple[JSON, JSON]) -> None:
        schema, arguments = example
        client.reset()
        doc = one_tool_plugin(
            "bridge", "mcp__srv__owner", "Remote.", schema, label="owner", handler=[{"op": "echo"}], external=True
        )
        install(client, [doc])
        outcome = client.open(identity={"userId": "u1"}).call("mcp__srv__owner", arguments)
        scenario = {"plugin": doc, "call": {"tool": "mcp__srv__owner", "arguments": arguments}}
        check(
            outcome.get("handlerRan") is True,
            "the external owner's handler runs (the host does not validate an external call)",
            {"refusal": outcome.get("refusal")},
            scenario,
        )
        check(
            handler_received(outcome) == arguments,
            "the handler receives the arguments exactly as sent",
            {"received": handler_received(outcome)},
            scenario,
        )

    run_property(name_strategy(_external_calls(), f"{__name__}._external_calls"), body, share_draws=True)
