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
    one_tool_plugin,
    valid_utf8,
    without_reason,
)
from pytest_toolconformance.suites.host.preconditions import origin_checked, precondition

# -- CAP ---------------------------------------------------------------------------------------------


def _advertised(session: Session, name: str, scenario: Any) -> tuple[JSON, JSON]:
    composed = session.compose()
    tool = by_name(composed["tools"]).get(name)
    payload = by_name(composed["payload"].get("tools") or []).get(name)
    check(
        tool is not None and payload is not None,
        f"{name} is in the tool list and the provider payload",
        {"tools": [t["name"] for t in composed["tools"]]},
        scenario,
    )
    return dict(tool), dict(payload)  # type: ignore[arg-type]


@pytest.mark.toolconformance("CAP-1")
def test_external_descriptions_are_cut_at_1000_bytes_on_a_character_boundary(toolconformance_host: HostClient) -> None:
    """CAP-1 at the boundary: 999 to 1,001 bytes with a multi-byte character across the cut."""
    client = toolconformance_host
    client.require("registration", "composition")

    def body(description: str) -> None:
        client.reset()
        doc = one_tool_plugin(
            "bridge", "mcp__srv__probe", description, {"type": "object", "properties": {}}, label="probe", external=True
        )
        install(client, [doc])
        session = client.open(identity={"userId": "u1"})
        scenario = {"plugin": doc, "originalBytes": measures.utf8_len(description)}
        for where, entry in zip(
            ("tool list", "provider payload"), _advertised(session, "mcp__srv__probe", scenario), strict=True
        ):
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
    run_property(name_strategy(descriptions, f"{__name__}.descriptions near the cap"), body, share_draws=True)


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

    def body(definition: JSON) -> None:
        client.reset()
        name, description, parameters = definition["name"], definition["description"], definition["parameters"]
        doc = one_tool_plugin("bridge", name, description, parameters, external=True)
        install(client, [doc])
        size = measures.definition_bytes(name, description, parameters)
        scenario = {
            "plugin": doc,
            "definitionBytes": size,
            "measure": "JSON.stringify({name, description after CAP-1, parameters}) in UTF-8 bytes",
        }
        session = client.open(identity={"userId": "u1"})
        for where, entry in zip(("tool list", "provider payload"), _advertised(session, name, scenario), strict=True):
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

    definitions = tcs.external_definitions_near(measures.DEFINITION_CAP)
    run_property(name_strategy(definitions, f"{__name__}.definitions near the cap"), body, share_draws=True)


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

    def body(example: tuple[str, JSON]) -> None:
        description, schema = example
        client.reset()
        doc = one_tool_plugin("local", "local_probe", description, schema, label="probe")
        install(client, [doc])
        scenario = {
            "plugin": doc,
            "descriptionBytes": measures.utf8_len(description),
            "definitionBytes": measures.definition_bytes("local_probe", description, schema, cap_description=False),
        }
        session = client.open(identity={"userId": "u1"})
        for where, entry in zip(
            ("tool list", "provider payload"), _advertised(session, "local_probe", scenario), strict=True
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

    tools = name_strategy(_big_internal_tools(), f"{__name__}._big_internal_tools")
    run_property(tools, origin_checked(client, body), share_draws=True)


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
