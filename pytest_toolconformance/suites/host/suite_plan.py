"""RO and PLAN: which tools are read-only (the ``mcp__*`` wildcard, exact names, foreign declarations),
what a read-only child receives, and what a Plan turn advertises and runs.

Generated checks: the scenario files pin the named cases, these properties look for the case nobody
named. Every example starts from a fresh host (``client.reset()``), and a failure reports the shrunk
example as its smallest scenario.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pytest
from hypothesis import strategies as st

from pytest_toolconformance import strategies as tcs
from pytest_toolconformance.findings import bound_rule
from pytest_toolconformance.host import scripted
from pytest_toolconformance.host.client import HostClient, Session, check
from pytest_toolconformance.profile import run_property
from pytest_toolconformance.suites.host.composing import (
    JSON,
    by_name,
    install,
)
from pytest_toolconformance.suites.host.preconditions import origin_checked, precondition

# -- RO and PLAN ------------------------------------------------------------------------------------

_RO_SESSIONS = st.tuples(tcs.catalogs(read_only=True, long_descriptions=False), tcs.session_specs())


def _child_catalog(client: HostClient, catalog: tcs.Catalog, spec: JSON) -> tuple[set[str], JSON]:
    client.reset()
    install(client, catalog.plugins)
    child = client.open(**spec).delegate(read_only=True)
    composed = child.compose()
    return {e["name"] for e in composed["catalog"]} | {e["name"] for e in composed["tools"]}, composed


def _classification(client: HostClient, catalog: tcs.Catalog, spec: JSON) -> dict[str, bool]:
    """The host's own read-only classification of the catalog's visible tools, from compose's catalog
    entries (what RO-1 and RO-3 are about); what a read-only child receives of it is RO-5's."""
    client.reset()
    install(client, catalog.plugins)
    entries = by_name(client.open(**spec).compose()["catalog"])
    visible = [t.name for t in catalog.visible_to(spec) if t.name in entries]
    if any("readOnly" not in entries[n] for n in visible):
        pytest.skip(
            f"the host does not report readOnly in compose's catalog entries, where {bound_rule()} reads the host's "
            "own classification (see docs/host-implementers.md, 'Tool metadata in the catalog')"
        )
    return {n: entries[n]["readOnly"] is True for n in visible}


def _classification_property(client: HostClient, judge: Callable[[tcs.Catalog, JSON, dict[str, bool], JSON], None],
                             sessions: st.SearchStrategy[tuple[tcs.Catalog, JSON]] = _RO_SESSIONS,
                             origin_checked_too: bool = True) -> None:
    """The frame of a read-only classification property: a generated catalog and session, the host's
    own classification of every visible tool, and the scenario a finding reproduces; ``judge`` says
    what the rule asks of them (its findings re-examined by the origin precondition, unless not)."""
    client.require("registration", "composition", "scoping", "deferral")

    def body(example: tuple[tcs.Catalog, JSON]) -> None:
        catalog, spec = example
        read_only = _classification(client, catalog, spec)
        judge(catalog, spec, read_only,
              {"plugins": list(catalog.plugins), "session": spec, "then": "compose: the catalog's readOnly"})

    run_property(sessions, origin_checked(client, body) if origin_checked_too else body)


@pytest.mark.toolconformance("RO-1")
def test_mcp_wildcard_classifies_own_external_tools_only(toolconformance_host: HostClient) -> None:
    def judge(catalog: tcs.Catalog, spec: JSON, read_only: dict[str, bool], scenario: JSON) -> None:
        # A tool another plugin declared read-only by exact name may be classified by that declaration
        # (RO-3 decides whether rightly): its classification says nothing about the wildcard.
        stolen = {name for _, name in catalog.foreign_declarations}
        for tool in catalog.visible_to(spec):
            if not tool.plugin_wildcard or tool.declared_read_only or tool.name in stolen:
                continue
            if tool.external:
                check(
                    read_only.get(tool.name) is True,
                    f"{tool.plugin}'s mcp__* classifies its external tool {tool.name} read-only",
                    read_only,
                    scenario,
                )
            else:
                check(
                    read_only.get(tool.name) is False,
                    f"{tool.plugin}'s mcp__* does not classify its internal tool {tool.name} (whatever its name)",
                    read_only,
                    scenario,
                )
        wildcards = {t.plugin for t in catalog.tools if t.plugin_wildcard}
        for tool in catalog.visible_to(spec):
            if not tool.read_only and tool.name not in stolen and wildcards - {tool.plugin}:
                check(
                    read_only.get(tool.name) is False,
                    f"another plugin's mcp__* does not classify {tool.name}",
                    read_only,
                    scenario,
                )

    _classification_property(toolconformance_host, judge)


@pytest.mark.toolconformance("RO-3")
def test_foreign_read_only_declarations_classify_nothing(toolconformance_host: HostClient) -> None:
    def judge(catalog: tcs.Catalog, spec: JSON, read_only: dict[str, bool], scenario: JSON) -> None:
        known = catalog.by_name()
        wildcards = {t.plugin for t in catalog.tools if t.plugin_wildcard}
        for plugin, stolen in catalog.foreign_declarations:
            tool = known[stolen]
            if tool.read_only or stolen not in read_only:
                continue
            if wildcards:
                # A plugin's mcp__* could classify it (RO-1 decides whether rightly): its classification
                # cannot say that the foreign declaration classified it.
                continue
            check(
                read_only[stolen] is False,
                f"{plugin} declared {stolen} (owned by {tool.plugin}) read-only; that classifies nothing",
                read_only,
                scenario,
            )

    _classification_property(toolconformance_host, judge,
                             sessions=_RO_SESSIONS.filter(lambda ex: bool(ex[0].foreign_declarations)),
                             origin_checked_too=False)


@pytest.mark.toolconformance("RO-5")
def test_read_only_children_receive_exactly_the_read_only_set(toolconformance_host: HostClient) -> None:
    client = toolconformance_host
    client.require("registration", "composition", "scoping", "delegation", "deferral")

    def body(example: tuple[tcs.Catalog, JSON]) -> None:
        catalog, spec = example
        names, _ = _child_catalog(client, catalog, spec)
        scenario = {"plugins": list(catalog.plugins), "session": spec, "then": "delegate a read-only child"}
        visible = catalog.visible_to(spec)
        entries = by_name(client.open(**spec).compose()["catalog"])
        parent = set(entries) & {t.name for t in catalog.tools}
        # A tool of the session's scope that it lacks breaks SCOPE-1 (a scope reaches its sessions); one
        # from outside its scope that it holds breaks SCOPE-2 (omitted from other sessions' lists).
        in_scope = {t.name for t in visible}
        precondition(
            in_scope <= parent,
            "SCOPE-1",
            "the parent session to hold every tool of its scope",
            sorted(in_scope - parent),
        )
        precondition(
            parent <= in_scope,
            "SCOPE-2",
            "the parent session to hold no tool from outside its scope",
            sorted(parent - in_scope),
        )
        expected = {t.name for t in visible if t.read_only}
        got = names & {t.name for t in catalog.tools}
        if got != expected and all("readOnly" in entries[t.name] for t in visible):
            # The child follows the host's own classification, and that classification is wrong: the
            # declaration's reading (RO-1 for the wildcard, RO-3 for exact names) is broken, not RO-5.
            classified = {t.name for t in visible if entries[t.name]["readOnly"] is True}
            wrong = [t for t in visible if (t.name in classified) != (t.name in expected)]
            stolen = {name for _, name in catalog.foreign_declarations}
            owner_rule = "RO-3" if any(t.declared_read_only or t.name in stolen for t in wrong) else "RO-1"
            precondition(
                got != classified,
                owner_rule,
                "the host to classify read-only exactly the declared tools",
                {"misclassified": sorted(t.name for t in wrong)},
            )
        check(
            got == expected,
            "the read-only child receives exactly the plugin tools classified read-only "
            f"(missing {sorted(expected - got)}, extra {sorted(got - expected)})",
            sorted(got),
            scenario,
        )

    run_property(_RO_SESSIONS, body)


@pytest.mark.toolconformance("PLAN-1")
def test_plan_turns_advertise_the_build_tool_list(toolconformance_host: HostClient) -> None:
    client = toolconformance_host
    client.require("registration", "composition", "scoping", "plan-mode", "deferral")

    def body(example: tuple[tcs.Catalog, JSON]) -> None:
        catalog, spec = example
        client.reset()
        install(client, catalog.plugins)
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
                tcs.js_stringify(plan[key]) == tcs.js_stringify(build[key]),
                f"the Plan turn's {key} equal the Build turn's",
                {
                    "onlyBuild": sorted({e["name"] for e in build[key]} - {e["name"] for e in plan[key]}),
                    "onlyPlan": sorted({e["name"] for e in plan[key]} - {e["name"] for e in build[key]}),
                },
                scenario,
            )
        check(
            tcs.js_stringify(plan["payload"].get("tools")) == tcs.js_stringify(build["payload"].get("tools")),
            "the Plan turn's payload tools equal the Build turn's",
            None,
            scenario,
        )

    run_property(_RO_SESSIONS, body)


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


def _plan_calls(external: bool) -> Callable[[HostClient], None]:
    def run(client: HostClient) -> None:
        def body(example: tuple[tcs.Catalog, JSON, st.DataObject]) -> None:
            catalog, spec, data = example
            client.reset()
            install(client, catalog.plugins)
            session = client.open(**{**spec, "mode": "plan"})
            for tool in catalog.visible_to(spec):
                if tool.deferred or tool.external is not external:
                    continue
                flat = tool.parameters.get("type") == "object" and isinstance(tool.parameters.get("properties"), dict)
                arguments = data.draw(tcs.arguments_for(tool.parameters)) if flat and not external else {}
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
                    check(
                        _refused_in_plan(outcome),
                        f"{tool.name} is refused by the plan-mode policy with a text result ({why}), its handler "
                        "never runs",
                        summary,
                        scenario,
                    )

        run_property(
            st.tuples(
                tcs.catalogs(read_only=True, long_descriptions=False, external=True if external else None),
                tcs.session_specs(),
                st.data(),
            ),
            origin_checked(client, body),
        )

    return run


@pytest.mark.toolconformance("PLAN-2")
def test_plan_turns_execute_only_the_read_only_set(toolconformance_host: HostClient) -> None:
    toolconformance_host.require("registration", "calls", "scoping", "plan-mode", "deferral")
    _plan_calls(external=False)(toolconformance_host)


@pytest.mark.toolconformance("PLAN-3")
def test_plan_turns_never_execute_external_tools(toolconformance_host: HostClient) -> None:
    toolconformance_host.require("registration", "calls", "scoping", "plan-mode", "deferral")
    _plan_calls(external=True)(toolconformance_host)
