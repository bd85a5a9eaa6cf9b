"""REASON: the optional ``reason`` field every internal tool gains (Bash and ToolSearch aside),
that an external schema is never rebuilt to carry it, and that it is consumed before the handler.

Generated checks: Hypothesis properties, run as the package says (:mod:`pytest_toolconformance.suites.host`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest
from hypothesis import strategies as st

from pytest_toolconformance import measures
from pytest_toolconformance import strategies as tcs
from pytest_toolconformance.host.client import HostClient, check
from pytest_toolconformance.profile import name_strategy, run_property
from pytest_toolconformance.suites.host.composing import (
    EXCLUDED_FROM_REASON,
    JSON,
    composition_property,
    handler_received,
    install,
    one_tool_plugin,
)
from pytest_toolconformance.suites.host.preconditions import origin_checked

# -- REASON -----------------------------------------------------------------------------------------


def _reason_problem(parameters: Any) -> str | None:
    if not isinstance(parameters, Mapping):
        return "parameters is not an object"
    reason = (parameters.get("properties") or {}).get("reason")
    if not isinstance(reason, Mapping) or reason.get("type") != "string":
        return f"properties.reason is {reason!r}, not a string property"
    if "reason" in (parameters.get("required") or []):
        return "reason is required"
    return None


@pytest.mark.toolconformance("REASON-1")
def test_every_internal_tool_gains_an_optional_reason(toolconformance_host: HostClient) -> None:
    def judge(_spec: JSON, composed: JSON, catalog: tcs.Catalog, scenario: JSON) -> None:
        known = catalog.by_name()
        for entry in composed["tools"]:
            tool = known.get(entry["name"])
            if (tool is not None and tool.external) or entry["name"] in EXCLUDED_FROM_REASON:
                continue
            problem = _reason_problem(entry.get("parameters"))
            check(
                problem is None,
                f"internal tool {entry['name']} is advertised with an optional string reason ({problem})",
                entry.get("parameters"),
                scenario,
            )

    composition_property(toolconformance_host, judge, origin_checked_too=True)


@pytest.mark.toolconformance("REASON-2")
def test_bash_and_toolsearch_never_gain_reason(toolconformance_host: HostClient) -> None:
    def judge(_spec: JSON, composed: JSON, _catalog: tcs.Catalog, scenario: JSON) -> None:
        for entry in composed["tools"] + list(composed["payload"].get("tools") or []):
            if entry.get("name") in EXCLUDED_FROM_REASON:
                props = (entry.get("parameters") or {}).get("properties") or {}
                check(
                    "reason" not in props,
                    f"{entry['name']} is advertised without reason",
                    entry.get("parameters"),
                    scenario,
                )

    composition_property(toolconformance_host, judge)


@pytest.mark.toolconformance("REASON-3")
def test_external_schemas_are_never_reconstructed(toolconformance_host: HostClient) -> None:
    def judge(_spec: JSON, composed: JSON, catalog: tcs.Catalog, scenario: JSON) -> None:
        known = catalog.by_name()
        for entry in composed["tools"] + list(composed["payload"].get("tools") or []):
            tool = known.get(entry.get("name"))
            if tool is None or not tool.external:
                continue
            if measures.definition_bytes(tool.name, tool.description, tool.parameters) > measures.DEFINITION_CAP:
                continue  # CAP-2 replaces it; that is checked there
            check(
                measures.same_js_text(entry.get("parameters"), tool.parameters),
                f"external tool {tool.name} is advertised with its schema byte-identical to the registered one "
                "(no reason, nothing rebuilt)",
                {"advertised": entry.get("parameters"), "registered": tool.parameters},
                scenario,
            )

    composition_property(toolconformance_host, judge)


@st.composite
def _reason_calls(draw: st.DrawFn) -> tuple[JSON, JSON, str]:
    schema = draw(tcs.flat_schemas(max_properties=4))
    return schema, draw(tcs.arguments_for(schema)), draw(st.text(min_size=1, max_size=40))


@pytest.mark.toolconformance("REASON-4")
def test_reason_is_consumed_before_the_handler(toolconformance_host: HostClient) -> None:
    client = toolconformance_host
    client.require("registration", "calls")

    def body(example: tuple[JSON, JSON, str]) -> None:
        schema, arguments, reason = example
        client.reset()
        doc = one_tool_plugin("local", "local_probe", "Probe.", schema, label="probe", handler=[{"op": "echo"}])
        install(client, [doc])
        sent = {**arguments, "reason": reason}
        session = client.open(identity={"userId": "u1"})
        for nth in ("first", "second"):  # a host may consume reason on a tool's first call only
            outcome = session.call("local_probe", sent)
            scenario = {"plugin": doc, "calls": [{"tool": "local_probe", "arguments": sent}] * (1 + (nth == "second"))}
            check(
                outcome.get("handlerRan") is True,
                f"a valid call plus reason runs, the {nth} time too (reason is never an unknown parameter)",
                {"refusal": outcome.get("refusal"), "content": outcome.get("content")},
                scenario,
            )
            check(
                handler_received(outcome) == arguments,
                f"on the {nth} call the handler receives the call's arguments without reason",
                {"received": handler_received(outcome)},
                scenario,
            )

    run_property(
        name_strategy(_reason_calls(), f"{__name__}._reason_calls"), origin_checked(client, body), share_draws=True
    )
