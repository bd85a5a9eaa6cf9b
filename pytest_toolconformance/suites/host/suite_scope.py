"""SCOPE: scoped tools reach exactly the sessions of their scope, and out of scope are absent, not refused.

Generated checks: Hypothesis properties, run as the package says (:mod:`pytest_toolconformance.suites.host`).
"""

from __future__ import annotations

import pytest

from pytest_toolconformance import strategies as tcs
from pytest_toolconformance.host.client import HostClient, check
from pytest_toolconformance.profile import run_property
from pytest_toolconformance.suites.host.composing import (
    CATALOG_SESSIONS,
    JSON,
    composition_property,
    install_fresh,
    scope_name,
    strings_in,
)
from pytest_toolconformance.suites.host.preconditions import precondition

# -- SCOPE ------------------------------------------------------------------------------------------


@pytest.mark.toolconformance("SCOPE-1")
def test_scoped_tools_reach_the_sessions_of_their_scope(toolconformance_host: HostClient) -> None:
    def judge(spec: JSON, composed: JSON, catalog: tcs.Catalog, scenario: JSON) -> None:
        listed = {e["name"]: e for e in composed["catalog"]}
        tools = {e["name"] for e in composed["tools"]}
        for tool in catalog.visible_to(spec):
            check(
                tool.name in listed,
                f"{tool.name} (scope {scope_name(tool)}) is in the catalog of a session in its scope",
                sorted(listed),
                scenario,
            )
            if not tool.deferred:
                check(
                    tool.name in tools,
                    f"{tool.name} (scope {scope_name(tool)}) is in the tool list",
                    sorted(tools),
                    scenario,
                )

    composition_property(toolconformance_host, judge)


@pytest.mark.toolconformance("SCOPE-2")
def test_out_of_scope_tools_are_absent_not_refused(toolconformance_host: HostClient) -> None:
    client = toolconformance_host
    client.require("registration", "composition", "calls", "scoping", "deferral")

    def body(example: tuple[tcs.Catalog, list[JSON]]) -> None:
        catalog, specs = example
        install_fresh(client, catalog)
        for spec in specs:
            session = client.open(**spec)
            composed = session.compose()
            scenario = {"plugins": list(catalog.plugins), "session": spec}
            visible = {t.name for t in catalog.visible_to(spec)}
            hidden = [t for t in catalog.tools if t.name not in visible]
            names = (
                {e["name"] for e in composed["catalog"]}
                | {e["name"] for e in composed["tools"]}
                | {e.get("name") for e in composed["payload"].get("tools") or []}
            )
            diagnostics = set(strings_in(composed.get("diagnostics")))
            for tool in hidden:
                outcome = session.call(tool.name, {})
                precondition(
                    outcome.get("handlerRan") is False,
                    "SCOPE-1",
                    f"{tool.name} (scope {scope_name(tool)}) to be refused outside its scope",
                    {k: outcome.get(k) for k in ("handlerRan", "refusal")},
                )
                check(
                    tool.name not in names,
                    f"{tool.name} (scope {scope_name(tool)}) is absent from the "
                    "catalog, tool list and payload of a session outside its scope",
                    sorted(names),
                    scenario,
                )
                check(
                    tool.name not in diagnostics,
                    f"{tool.name} is absent from that session's diagnostics",
                    composed.get("diagnostics"),
                    scenario,
                )
                check(
                    outcome.get("handlerRan") is False and (outcome.get("refusal") or {}).get("stage") == "lookup",
                    f"calling {tool.name} from outside its scope is an unknown tool (refused at lookup, "
                    "handler never runs)",
                    {k: outcome.get(k) for k in ("handlerRan", "refusal")},
                    scenario,
                )

    run_property(CATALOG_SESSIONS, body, share_draws=True)
