"""PLAN: plan mode: what a Plan turn advertises (the Build turn's list) and what it runs (the read-only
set only, never an external tool).

Generated checks: Hypothesis properties, run as the package says (:mod:`pytest_toolconformance.suites.host`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
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
from pytest_toolconformance.suites.host.preconditions import origin_checked, origin_holds, precondition
from pytest_toolconformance.suites.host.turns import open_turn as _open_turn

# -- PLAN ----------------------------------------------------------------------------------------------
#: Core tools outside the core read-only set and the host plan defaults (docs/readings.md, PLAN-2/PLAN-3):
#: a Plan turn refuses them, and keeps advertising them as it keeps every tool.
CORE_REFUSED_ON_PLAN = ("EditImage", "WorkflowStart", "ShareFile", "ShareImage")


def _refused_on_plan_turn(catalog: tcs.Catalog, spec: JSON, advertised: set[str]) -> list[str]:
    """The advertised tools a Plan turn of ``spec`` refuses: the undeferred catalog tools it may not run
    (undeclared, or external whatever declared them) and the core tools outside the read-only set."""
    plugin_tools = [t.name for t in catalog.visible_to(spec) if not t.deferred and not t.plan_runs]
    return [n for n in plugin_tools if n in advertised] + [n for n in CORE_REFUSED_ON_PLAN if n in advertised]


@pytest.mark.toolconformance("PLAN-1")
def test_plan_turns_advertise_the_build_tool_list(toolconformance_host: HostClient) -> None:
    """A Plan turn advertises the Build turn's list, on its first composition and on its later ones: after
    plan mode has refused calls (an undeclared tool, an external one, a core tool outside the read-only
    set), the refused tools are still advertised, since the list is the Build list for the same session."""
    client = toolconformance_host

    def body(catalog: tcs.Catalog, spec: JSON) -> None:
        install_fresh(client, catalog)
        build = client.open(**spec).compose()
        session = client.open(**{**spec, "mode": "plan"})
        plan = session.compose()
        scenario: JSON = {"plugins": list(catalog.plugins), "session": spec, "compare": "mode build vs mode plan"}
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
        _compare_with_build(plan, build, scenario, "")
        if "calls" not in client.capabilities:
            return
        refused = _refused_on_plan_turn(catalog, spec, {e["name"] for e in plan["tools"]})
        for name in refused:
            session.ask("call", name, {}, None, refusal="return")
        if refused:
            later = {**scenario, "calls on the Plan turn, then composed again": refused}
            _compare_with_build(session.compose(), build, later, " after plan mode refused calls")

    read_only_session_property(client, body, "plan-mode")


#: Deferred tools for the loader's query forms: declared read-only by exact name (internal) and by the
#: wildcard (external), undeclared (internal, and another plugin's external). Each description and
#: parameter name gives the keyword forms something to match. Each read-only one has an undeferred twin.
_LOADER_READ_ONLY = {"plan4_lookup": "RO-3", "mcp__atlas__find": "RO-1"}
_UNDEFERRED_TWIN = {"plan4_lookup": "plan4_peek", "mcp__atlas__find": "mcp__atlas__browse"}
_LOADER_OTHERS = ("plan1_deploy", "mcp__other__push")
_LOADER_PLUGINS = (
    scripted.plugin(
        "plan-loader",
        [
            scripted.tool(
                "plan4_lookup",
                description="Looks up a zebra ledger entry.",
                parameters=scripted.flat_schema(optional={"ledger_key": "string"}),
            ),
            scripted.tool(
                "plan1_deploy",
                description="Deploys the zebra ledger.",
                parameters=scripted.flat_schema(optional={"target": "string"}),
            ),
            scripted.tool("mcp__atlas__find", description="Finds an okapi atlas page.", external=True),
            scripted.tool("plan4_peek", description="Peeks at the ledger's head."),
            scripted.tool("mcp__atlas__browse", description="Browses the atlas index.", external=True),
        ],
        manifest={
            "provides": {
                "tools": ["plan4_lookup", "plan1_deploy", "plan4_peek", "mcp__*", "mcp__atlas__find"],
                "readOnlyTools": ["plan4_lookup", "plan4_peek", "mcp__*"],
            },
            "deferLoading": ["plan4_lookup", "plan1_deploy", "mcp__atlas__find"],
        },
    ),
    scripted.plugin(
        "plan-loader-other",
        [scripted.tool("mcp__other__push", description="Pushes an okapi atlas page.", external=True)],
        manifest={"deferLoading": True},
    ),
)
#: The loader's query forms: one name selected, several selected, and keywords (a tool's name, a word of
#: its description, a parameter name, two words).
_LOADER_QUERIES = (
    "select:plan4_lookup",
    "select:plan4_lookup,mcp__atlas__find,plan1_deploy,mcp__other__push",
    "plan4_lookup",
    "zebra",
    "ledger_key",
    "okapi atlas",
)


def _loaded_alike(client: HostClient) -> list[tuple[str, JSON, JSON, JSON]]:
    """For each query form, in a host and a managed Project conversation: a Build and a Plan turn each ask
    the loader the same query, then compose. Each is (the query, the Build composition, the Plan one, the
    scenario)."""
    client.require("registration", "composition", "calls", "plan-mode", "deferral")
    client.reset()
    install(client, list(_LOADER_PLUGINS))
    pairs = []
    for conversation in ("host", "managed"):
        for query in _LOADER_QUERIES:
            composed = {}
            for mode in ("build", "plan"):
                session = _open_turn(client, conversation, mode)
                session.ask("call", "ToolSearch", {"query": query}, None, refusal="return")
                composed[mode] = session.compose()
            scenario: JSON = {
                "plugins": list(_LOADER_PLUGINS),
                "open": {"conversation": conversation, "modes": ["build", "plan"]},
                "call": {"tool": "ToolSearch", "arguments": {"query": query}},
                "then": "compose",
            }
            pairs.append((query, composed["build"], composed["plan"], scenario))
    return pairs


def _loaded(composed: JSON, names: Iterable[str]) -> set[str]:
    return {e["name"] for e in composed.get("tools") or []} & set(names)


@pytest.mark.toolconformance("PLAN-1")
def test_plan_turns_load_what_build_turns_load(toolconformance_host: HostClient) -> None:
    """After the same loader query (selected by name, several names, keywords of a name, a description, a
    parameter), a Plan turn advertises what a Build turn advertises: the deferred tools plan mode will
    refuse (undeclared, external) are loaded into its tool list as on the Build turn. Plan mode keeps every
    tool advertised; the loader is how a deferred tool comes to be. Where only deferred read-only tools
    differ, the check is blocked by PLAN-4 (plan mode reaches them through the loader)."""
    for query, build, plan, scenario in _loaded_alike(toolconformance_host):
        read_only = set(_LOADER_READ_ONLY)
        differ = _loaded(build, _LOADER_OTHERS) ^ _loaded(plan, _LOADER_OTHERS)
        precondition(
            bool(differ) or _loaded(build, read_only) == _loaded(plan, read_only),
            "PLAN-4",
            f"a Plan turn to load the deferred read-only tools a Build turn loads for {query!r}",
            {"build": sorted(_loaded(build, read_only)), "plan": sorted(_loaded(plan, read_only))},
        )
        _compare_with_build(plan, build, scenario, f" after ToolSearch {query!r}")


@pytest.mark.toolconformance("PLAN-4")
def test_plan_turns_reach_deferred_read_only_tools_by_every_query(toolconformance_host: HostClient) -> None:
    """Plan mode reaches a deferred read-only tool (an exact name's, the wildcard's external one) through the
    loader like any other turn: for every query form, the read-only tools a Build turn's query loads are
    exactly those the same query loads on a Plan turn. A query form the host's loader does not serve on a
    Build turn asks nothing of the Plan turn."""
    client = toolconformance_host
    read_only = set(_LOADER_READ_ONLY)
    served = False
    for query, build, plan, scenario in _loaded_alike(client):
        on_build, on_plan = _loaded(build, read_only), _loaded(plan, read_only)
        served = served or bool(on_build)
        if on_build != on_plan:
            # A Plan turn that does not advertise the undeferred twin either hides such tools whether or not
            # they were ever deferred: what it advertises is PLAN-1's, not the loader's.
            twins = {_UNDEFERRED_TWIN[n] for n in on_build ^ on_plan}
            hidden = sorted(_loaded(build, twins) - _loaded(plan, twins))
            precondition(not hidden, "PLAN-1", "a Plan turn to advertise the undeferred read-only tools", hidden)
            entries = by_name(build.get("catalog") or [])
            for name, rule in _LOADER_READ_ONLY.items():
                said = (entries.get(name) or {}).get("readOnly")
                precondition(said in (None, True), rule, f"the host to classify {name} read-only", entries.get(name))
        check(
            on_build == on_plan,
            f"a Plan turn's ToolSearch {query!r} loads the deferred read-only tools a Build turn's loads "
            f"(Build {sorted(on_build)}, Plan {sorted(on_plan)})",
            {"build": sorted(on_build), "plan": sorted(on_plan)},
            scenario,
        )
    if not served:
        pytest.skip("the host's loader loaded no deferred read-only tool on a Build turn for any query form")


def _compare_with_build(plan: JSON, build: JSON, scenario: JSON, when: str) -> None:
    """The Plan turn's composition ``plan`` advertises what the Build turn's ``build`` does: its tool list,
    its catalog and its provider payload's tools (``when`` says which of its compositions it is)."""
    for key in ("tools", "catalog"):
        check(
            measures.same_js_text(plan[key], build[key]),
            f"the Plan turn's {key}{when} equal the Build turn's",
            {
                "onlyBuild": sorted({e["name"] for e in build[key]} - {e["name"] for e in plan[key]}),
                "onlyPlan": sorted({e["name"] for e in plan[key]} - {e["name"] for e in build[key]}),
            },
            scenario,
        )
    check(
        measures.same_js_text(plan["payload"].get("tools"), build["payload"].get("tools")),
        f"the Plan turn's payload tools{when} equal the Build turn's",
        None,
        scenario,
    )


def _refused_in_plan(outcome: Mapping[str, Any]) -> bool:
    return (
        outcome.get("handlerRan") is False
        and (outcome.get("refusal") or {}).get("stage") == "plan"
        and outcome.get("isError") is False
    )


def _twin_call(client: HostClient, tool: tcs.CatalogTool, spec: JSON, name: str) -> JSON:
    """Call the twin ``name`` on a Plan turn of ``spec``, loaded through ToolSearch first where ``tool``
    was deferred (its twin is deferred too: deferral is not the difference the twin asks about)."""
    session = client.open(**{**spec, "mode": "plan"})
    if tool.deferred:
        session.ask("call", "ToolSearch", {"query": f"select:{name}"}, None, refusal="return")
    return session.call(name, {})


def _twin_manifest(tool: tcs.CatalogTool, provides: JSON, name: str) -> JSON | None:
    manifest: JSON = {"provides": provides} if provides else {}
    if tool.deferred:
        manifest["deferLoading"] = [name]
    return manifest or None


def _unscoped_twin_refused(client: HostClient, tool: tcs.CatalogTool, spec: JSON) -> None:
    """A scoped tool the Plan turn ran: if its unscoped twin (same origin, same read-only declaration,
    deferred and loaded where it was) is refused, scoping made the difference, which is SCOPE-3's subject,
    not the plan policy's."""
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
    doc = scripted.plugin("twin", [twin_tool], manifest=_twin_manifest(tool, provides, name))
    install(client, [doc], rule="SCOPE-3")
    twin = _twin_call(client, tool, spec, name)
    precondition(
        not _refused_in_plan(twin),
        "SCOPE-3",
        f"scoping to change nothing of the plan policy: {tool.name} "
        f"(scoped) ran on a Plan turn where its unscoped twin {name} is refused",
        twin.get("refusal"),
    )


def _unclaimed_twin_refused(client: HostClient, tool: tcs.CatalogTool, spec: JSON) -> None:
    """An internal tool another plugin claims by exact name ran on a Plan turn: if its unclaimed twin
    (same origin, undeclared, unscoped; deferred and loaded where it was) is refused, the foreign claim made
    the difference, which is the ownership rule's subject (RO-3: a plugin cannot classify a tool it does not
    own), not the plan policy's."""
    name = "unclaimed_probe"
    twin_tool = scripted.tool(
        name, label=name, description="Unclaimed twin.", handler=[], parameters={"type": "object", "properties": {}}
    )
    doc = scripted.plugin("unclaimed-twin", [twin_tool], manifest=_twin_manifest(tool, {}, name))
    install(client, [doc], rule="RO-3")
    twin = _twin_call(client, tool, spec, name)
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
    """The tools a Plan turn of ``spec`` calls, in order: the ones it can see, external or not; a deferred
    one once the Plan turn has loaded it through the loader (a loaded tool meets the plan policy as any)."""
    return [t for t in catalog.visible_to(spec) if t.external is external]


def _load_deferred(session: Session, tools: list[tcs.CatalogTool]) -> tuple[set[str], set[str]]:
    """Load the deferred ``tools`` through ToolSearch on ``session`` (a Plan turn): the deferred names its
    catalog held before, and those its tool list holds after."""
    deferred = [t.name for t in tools if t.deferred]
    if not deferred:
        return set(), set()
    listed = {e["name"] for e in session.compose()["catalog"]} & set(deferred)
    for name in deferred:
        session.ask("call", "ToolSearch", {"query": f"select:{name}"}, None, refusal="return")
    return listed, {e["name"] for e in session.compose()["tools"]} & set(deferred)


def _as_expected(tool: tcs.CatalogTool, outcome: Mapping[str, Any]) -> bool:
    """Whether a Plan turn's call of ``tool`` ended as plan mode says: run, or refused by the plan policy."""
    return outcome.get("handlerRan") is True if tool.plan_runs else _refused_in_plan(outcome)


def _loaded_tool_holds(session: Session, tool: tcs.CatalogTool, summary: JSON) -> None:
    """A deferred tool the Plan turn loaded, then ran or refused against plan mode: refused as still
    deferred, the loader's load did not hold (MANIFEST-2: once loaded it runs); reported by the host's catalog
    with the other origin once loaded, origin did not survive deferral (EXT-4): neither is the plan policy."""
    precondition(
        (summary.get("refusal") or {}).get("stage") != "deferral",
        "MANIFEST-2",
        f"{tool.name}, loaded through ToolSearch (it is in the tool list), to be called as a loaded tool",
        summary,
    )
    entry = by_name(session.compose()["catalog"]).get(tool.name) or {}
    origin = "external" if tool.external else "internal"
    if entry.get("origin", origin) != origin:
        origin_holds(session.client, "EXT-4")  # origin wrong with no deferral at all: EXT-1's or EXT-2's
    precondition(
        entry.get("origin", origin) == origin,
        "EXT-4",
        f"{tool.name} (deferred, registered {origin}) to keep its origin once loaded",
        entry,
    )


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
            called = _called(catalog, spec, external)
            listed, loaded = _load_deferred(session, called)
            for tool, arguments in zip(called, drawn, strict=True):
                outcome = session.call(tool.name, arguments)
                scenario = {
                    "plugins": list(catalog.plugins),
                    "session": {**spec, "mode": "plan"},
                    "call": {"tool": tool.name, "arguments": arguments},
                }
                summary = {k: outcome.get(k) for k in ("handlerRan", "refusal", "isError")}
                if tool.deferred:
                    scenario["loadedFirst"] = {"tool": "ToolSearch", "arguments": {"query": f"select:{tool.name}"}}
                    if tool.name not in loaded:
                        # Not loaded on the Plan turn: one its catalog lacked is PLAN-1's (the Build turn's
                        # catalog has it); one the loader left deferred is PLAN-4's to reach when it is
                        # read-only; any other is refused before the plan policy, which leaves PLAN-2/3
                        # nothing to judge but that its handler never ran.
                        precondition(
                            tool.name in listed or not tool.plan_runs,
                            "PLAN-1",
                            f"the Plan turn's catalog to list {tool.name} (deferred), as the Build turn's does",
                            summary,
                        )
                        precondition(
                            not tool.plan_runs,
                            "PLAN-4",
                            f"the Plan turn to load {tool.name} (deferred, declared read-only) through ToolSearch",
                            summary,
                        )
                        check(
                            outcome.get("handlerRan") is False,
                            f"{tool.name}, deferred and not loaded, does not run on a Plan turn",
                            summary,
                            scenario,
                        )
                        continue
                    if not _as_expected(tool, outcome):
                        _loaded_tool_holds(session, tool, summary)
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
