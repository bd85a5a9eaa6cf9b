"""PLAN: plan mode: what a Plan turn advertises (the Build turn's list) and what it runs (the read-only
set only, never an external tool).

Generated checks: Hypothesis properties, run as the package says (:mod:`pytest_toolconformance.suites.host`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pytest
from hypothesis import strategies as st

from pytest_toolconformance import measures
from pytest_toolconformance import strategies as tcs
from pytest_toolconformance.host import scripted
from pytest_toolconformance.host.client import HostClient, Session, check
from pytest_toolconformance.profile import name_strategy, run_property
from pytest_toolconformance.suites.host.composing import (
    JSON,
    by_name,
    install,
    install_fresh,
    read_only_session_property,
)
from pytest_toolconformance.suites.host.preconditions import origin_checked, precondition


# -- PLAN --------------------------------------------------------------------------------------------
@pytest.mark.toolconformance("PLAN-1")
def test_plan_turns_advertise_the_build_tool_list(toolconformance_host: HostClient) -> None:
    client = toolconformance_host

    def body(catalog: tcs.Catalog, spec: JSON) -> None:
        install_fresh(client, catalog)
        build = client.open(**spec).compose()
        plan = client.open(**{**spec, "mode": "plan"}).compose()
        scenario = {"plugins": list(catalog.plugins), "session": spec, "compare": "mode build vs mode plan"}
        # A deferred read-only tool the Plan turn advertises without the loader is PLAN-4's subject:
        # with it the two lists cannot be compared for what PLAN-1 is about (nothing hidden or changed).
        declared = catalog.by_name()
        preloaded = sorted(
            n
            for n in {e["name"] for e in plan["tools"]} - {e["name"] for e in build["tools"]}
            if n in declared and declared[n].deferred and declared[n].read_only
        )
        precondition(
            not preloaded,
            "PLAN-4",
            "a Plan turn to reach deferred read-only tools through the loader",
            {"advertisedOnlyOnPlan": preloaded},
        )
        for key in ("tools", "catalog"):
            check(
                measures.same_js_text(plan[key], build[key]),
                f"the Plan turn's {key} equal the Build turn's",
                {
                    "onlyBuild": sorted({e["name"] for e in build[key]} - {e["name"] for e in plan[key]}),
                    "onlyPlan": sorted({e["name"] for e in plan[key]} - {e["name"] for e in build[key]}),
                },
                scenario,
            )
        check(
            measures.same_js_text(plan["payload"].get("tools"), build["payload"].get("tools")),
            "the Plan turn's payload tools equal the Build turn's",
            None,
            scenario,
        )

    read_only_session_property(client, body, "plan-mode")


def _refused_in_plan(outcome: Mapping[str, Any]) -> bool:
    return (
        outcome.get("handlerRan") is False
        and (outcome.get("refusal") or {}).get("stage") == "plan"
        and outcome.get("isError") is False
    )


def _unscoped_twin_refused(client: HostClient, tool: tcs.CatalogTool, spec: JSON) -> None:
    """A scoped tool the Plan turn ran: if its unscoped twin (same origin, same read-only declaration)
    is refused, scoping made the difference, which is SCOPE-3's subject, not the plan policy's."""
    name = "mcp__twin__probe" if tool.external else "twin_probe"
    provides: JSON = {}
    if tool.declared_read_only:
        provides = {"tools": [name], "readOnlyTools": [name]}
    elif tool.plugin_wildcard:
        provides = {"tools": ["mcp__*"], "readOnlyTools": ["mcp__*"]}
    twin_tool = scripted.tool(
        name,
        label=name,
        description="Unscoped twin.",
        handler=[],
        parameters={"type": "object", "properties": {}},
        **({"external": True} if tool.external else {}),
    )
    doc = scripted.plugin("twin", [twin_tool], manifest={"provides": provides} if provides else None)
    install(client, [doc], rule="SCOPE-3")
    twin = client.open(**{**spec, "mode": "plan"}).call(name, {})
    precondition(
        not _refused_in_plan(twin),
        "SCOPE-3",
        f"scoping to change nothing of the plan policy: {tool.name} "
        f"(scoped) ran on a Plan turn where its unscoped twin {name} is refused",
        twin.get("refusal"),
    )


def _unclaimed_twin_refused(client: HostClient, tool: tcs.CatalogTool, spec: JSON) -> None:
    """An internal tool another plugin claims by exact name ran on a Plan turn: if its unclaimed twin
    (same origin, undeclared, unscoped) is refused, the foreign claim made the difference, which is the
    ownership rule's subject (RO-3: a plugin cannot classify a tool it does not own), not the plan policy's."""
    name = "unclaimed_probe"
    twin_tool = scripted.tool(
        name, label=name, description="Unclaimed twin.", handler=[], parameters={"type": "object", "properties": {}}
    )
    install(client, [scripted.plugin("unclaimed-twin", [twin_tool])], rule="RO-3")
    twin = client.open(**{**spec, "mode": "plan"}).call(name, {})
    precondition(
        not _refused_in_plan(twin),
        "RO-3",
        f"another plugin's exact read-only claim to admit nothing: {tool.name} (claimed by a plugin that does "
        f"not own it) ran on a Plan turn where its unclaimed twin {name} is refused",
        twin.get("refusal"),
    )


def _classification_holds(session: Session, tool: tcs.CatalogTool, catalog: tcs.Catalog) -> None:
    """An internal tool the Plan turn wrongly ran or refused: if the host's own catalog classifies it
    against its declaration, plan mode followed a wrong classification, which is the declaration
    rule's subject (RO-3 for exact names, RO-1 for the wildcard), not the plan policy's."""
    entry = by_name(session.compose()["catalog"]).get(tool.name) or {}
    if "readOnly" not in entry:
        return
    stolen = {name for _, name in catalog.foreign_declarations}
    owner_rule = "RO-3" if tool.declared_read_only or tool.name in stolen else "RO-1"
    precondition(
        entry["readOnly"] is tool.read_only,
        owner_rule,
        f"the host to classify {tool.name} as declared (readOnly {str(tool.read_only).lower()})",
        entry,
    )


def _plain_named_externals() -> tcs.Catalog:
    """External tools with plain names, one declared read-only by the wildcard and one by its exact name:
    a name never implies origin (EXT-2), so PLAN-3 holds for them as for ``mcp__`` names. The catalogs'
    strategy draws such tools too; this example puts them first, whatever the example budget."""
    plugin = "plg-00-ns"
    declared = {"p00_t00": False, "p00_t01": True}
    docs = [
        {
            "name": name,
            "label": name,
            "description": f"Tool number {i}: an external tool with a plain name.",
            "parameters": {"type": "object", "properties": {}},
            "handler": [{"op": "echo"}],
            "options": {"external": True},
        }
        for i, name in enumerate(declared)
    ]
    manifest = {
        "name": plugin,
        "provides": {
            "tools": [*declared, "mcp__*"],
            "readOnlyTools": [n for n, exact in declared.items() if exact] + ["mcp__*"],
        },
    }
    tools = tuple(
        tcs.CatalogTool(
            name=doc["name"],
            plugin=plugin,
            external=True,
            description=doc["description"],
            parameters=doc["parameters"],
            declared_read_only=declared[doc["name"]],
            plugin_wildcard=True,
        )
        for doc in docs
    )
    return tcs.Catalog(plugins=({"name": plugin, "manifest": manifest, "tools": docs},), tools=tools)


def _called(catalog: tcs.Catalog, spec: JSON, external: bool) -> list[tcs.CatalogTool]:
    """The tools a Plan turn of ``spec`` calls, in order: the undeferred ones it can see, external or not."""
    return [t for t in catalog.visible_to(spec) if not t.deferred and t.external is external]


def _takes_arguments(tool: tcs.CatalogTool) -> bool:
    # An internal tool whose schema lists its properties gets generated arguments; the others get none.
    parameters = tool.parameters
    return not tool.external and parameters.get("type") == "object" and isinstance(parameters.get("properties"), dict)


@st.composite
def _plan_call_cases(draw: st.DrawFn, external: bool) -> tuple[tcs.Catalog, JSON, list[JSON]]:
    """A catalog, a session spec, and the arguments of each tool a Plan turn of it calls (in order)."""
    catalog = draw(tcs.catalogs(read_only=True, long_descriptions=False, external=True if external else None))
    spec = draw(tcs.session_specs())
    arguments = [
        draw(tcs.arguments_for(t.parameters)) if _takes_arguments(t) else {} for t in _called(catalog, spec, external)
    ]
    return catalog, spec, arguments


# A case is drawn whole (the arguments with the catalog), so the property is a plain function of it and
# shares its draws (profile.run_property): generated once, kept for later runs.
_PLAN_CALL_CASES = {
    external: name_strategy(_plan_call_cases(external), f"{__name__}._plan_call_cases(external={external})")
    for external in (False, True)
}


def _plan_calls(external: bool) -> Callable[[HostClient], None]:
    def run(client: HostClient) -> None:
        def body(example: tuple[tcs.Catalog, JSON, list[JSON]]) -> None:
            catalog, spec, drawn = example
            install_fresh(client, catalog)
            session = client.open(**{**spec, "mode": "plan"})
            stolen = {name for _, name in catalog.foreign_declarations}
            for tool, arguments in zip(_called(catalog, spec, external), drawn, strict=True):
                outcome = session.call(tool.name, arguments)
                scenario = {
                    "plugins": list(catalog.plugins),
                    "session": {**spec, "mode": "plan"},
                    "call": {"tool": tool.name, "arguments": arguments},
                }
                summary = {k: outcome.get(k) for k in ("handlerRan", "refusal", "isError")}
                if not tool.external and outcome.get("handlerRan") is not tool.plan_runs:
                    _classification_holds(session, tool, catalog)
                if tool.plan_runs:
                    check(
                        outcome.get("handlerRan") is True,
                        f"{tool.name}, declared read-only by exact name, runs on a Plan turn",
                        summary,
                        scenario,
                    )
                else:
                    why = (
                        "an external tool never runs in plan mode"
                        if tool.external
                        else "it is not in the read-only set"
                    )
                    if tool.scoped and not _refused_in_plan(outcome):
                        _unscoped_twin_refused(client, tool, spec)
                    elif tool.name in stolen and not tool.external and not _refused_in_plan(outcome):
                        _unclaimed_twin_refused(client, tool, spec)
                    check(
                        _refused_in_plan(outcome),
                        f"{tool.name} is refused by the plan-mode policy with a text result ({why}), its handler "
                        "never runs",
                        summary,
                        scenario,
                    )

        examples = []
        if external:
            catalog, spec = _plain_named_externals(), {"identity": {"userId": "acct-amber"}}
            examples.append((catalog, spec, [{} for _ in _called(catalog, spec, external)]))
        run_property(_PLAN_CALL_CASES[external], origin_checked(client, body), examples=examples, share_draws=True)

    return run


@pytest.mark.toolconformance("PLAN-2")
def test_plan_turns_execute_only_the_read_only_set(toolconformance_host: HostClient) -> None:
    toolconformance_host.require("registration", "calls", "scoping", "plan-mode", "deferral")
    _plan_calls(external=False)(toolconformance_host)


@pytest.mark.toolconformance("PLAN-3")
def test_plan_turns_never_execute_external_tools(toolconformance_host: HostClient) -> None:
    toolconformance_host.require("registration", "calls", "scoping", "plan-mode", "deferral")
    _plan_calls(external=True)(toolconformance_host)
