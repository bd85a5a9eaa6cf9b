"""RO: read-only declarations: which tools are read-only (the ``mcp__*`` wildcard, exact names, foreign
declarations) and what a read-only child receives.

Generated checks: Hypothesis properties, run as the package says (:mod:`pytest_toolconformance.suites.host`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest
from hypothesis import strategies as st

from pytest_toolconformance import strategies as tcs
from pytest_toolconformance.findings import bound_rule
from pytest_toolconformance.host import scripted
from pytest_toolconformance.host.client import HostClient, check
from pytest_toolconformance.profile import name_strategy, run_property
from pytest_toolconformance.strategies.catalogs import catalog_of
from pytest_toolconformance.suites.host.composing import (
    JSON,
    by_name,
    install,
    install_fresh,
    read_only_session_property,
)
from pytest_toolconformance.suites.host.composing import READ_ONLY_SESSIONS as _RO_SESSIONS
from pytest_toolconformance.suites.host.preconditions import (
    origin_checked,
    origin_holds,
    precondition,
    registrations_hold,
)
from pytest_toolconformance.suites.host.turns import open_turn as _open_turn


# -- RO ----------------------------------------------------------------------------------------------
def _scoped_wildcard_example() -> tuple[tcs.Catalog, JSON]:
    """The wildcard over scoped contributions: a plugin declaring ``readOnlyTools: ['mcp__*']`` registers
    external tools scoped by each option (``ownerUserId``, ``projectId``, ``platform``, two at once, one
    plainly named, one deferred) beside an unscoped one, and scoped internal tools (an ``mcp__`` name with
    ``false``, a plain one with the option omitted); another plugin, which lists the ``mcp__*`` family
    in ``provides.tools`` without declaring it read-only, registers scoped external tools too. The
    session sees every scope. The catalogs draw scoped tools under the wildcard too; this example puts
    each scope first, whatever the example budget."""
    q = scripted.flat_schema({"q": "string"})
    bridge_tools = [
        scripted.tool("mcp__brg__all", parameters=q, external=True),
        scripted.tool("mcp__brg__mine", parameters=q, external=True, ownerUserId="acct-amber"),
        scripted.tool("mcp__brg__proj", parameters=q, external=True, projectId="proj-cedar"),
        scripted.tool("mcp__brg__page", parameters=q, external=True, platform="web"),
        scripted.tool("BridgeVisitor", parameters=q, external=True, ownerUserId="acct-amber", platform="web"),
        scripted.tool("mcp__brg__later", parameters=q, external=True, projectId="proj-cedar"),
        scripted.tool("mcp__brg__local", parameters=q, external=False, projectId="proj-cedar"),
        scripted.tool("BridgeStatus", parameters=q, platform="web"),
    ]
    bridge = scripted.plugin(
        "bridge",
        bridge_tools,
        manifest={
            "provides": {"tools": ["mcp__*", *(t["name"] for t in bridge_tools)], "readOnlyTools": ["mcp__*"]},
            "deferLoading": ["mcp__brg__later"],
        },
    )
    other_tools = [
        scripted.tool("mcp__oth__page", parameters=q, external=True, platform="web"),
        scripted.tool("mcp__oth__mine", parameters=q, external=True, ownerUserId="acct-amber"),
    ]
    other = scripted.plugin(
        "other", other_tools, manifest={"provides": {"tools": ["mcp__*", *(t["name"] for t in other_tools)]}}
    )
    spec = {"identity": {"userId": "acct-amber"}, "projectId": "proj-cedar", "platform": "web"}
    return catalog_of([bridge, other]), spec


def _child_catalog(client: HostClient, catalog: tcs.Catalog, spec: JSON) -> tuple[set[str], JSON]:
    install_fresh(client, catalog)
    child = client.open(**spec).delegate(read_only=True)
    composed = child.compose()
    return {e["name"] for e in composed["catalog"]} | {e["name"] for e in composed["tools"]}, composed


def _classification(client: HostClient, catalog: tcs.Catalog, spec: JSON) -> dict[str, bool]:
    """The host's own read-only classification of the catalog's visible tools, from compose's catalog
    entries (what RO-1 and RO-3 are about); what a read-only child receives of it is RO-5's."""
    install_fresh(client, catalog)
    entries = by_name(client.open(**spec).compose()["catalog"])
    visible = [t.name for t in catalog.visible_to(spec) if t.name in entries]
    if any("readOnly" not in entries[n] for n in visible):
        pytest.skip(
            f"the host does not report readOnly in compose's catalog entries, where {bound_rule()} reads the host's "
            "own classification (see docs/host-implementers.md, 'Tool metadata in the catalog')"
        )
    return {n: entries[n]["readOnly"] is True for n in visible}


def _classification_property(
    client: HostClient,
    judge: Callable[[tcs.Catalog, JSON, dict[str, bool], JSON], None],
    sessions: st.SearchStrategy[tuple[tcs.Catalog, JSON]] = _RO_SESSIONS,
    origin_checked_too: bool = True,
    examples: tuple[tuple[tcs.Catalog, JSON], ...] = (),
) -> None:
    """The frame of a read-only classification property: a generated catalog and session (``examples``
    first), the host's own classification of every visible tool, and the scenario a finding reproduces;
    ``judge`` says what the rule asks of them (its findings re-examined by the origin precondition,
    unless not)."""
    client.require("registration", "composition", "scoping", "deferral")

    def body(example: tuple[tcs.Catalog, JSON]) -> None:
        catalog, spec = example
        read_only = _classification(client, catalog, spec)
        judge(
            catalog,
            spec,
            read_only,
            {"plugins": list(catalog.plugins), "session": spec, "then": "compose: the catalog's readOnly"},
        )

    run_property(
        sessions, origin_checked(client, body) if origin_checked_too else body, examples=examples, share_draws=True
    )


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

    _classification_property(toolconformance_host, judge, examples=(_scoped_wildcard_example(),))


def _foreign_claims_classify_nothing(catalog: tcs.Catalog, read_only: dict[str, bool], scenario: JSON) -> None:
    known = catalog.by_name()
    wildcards = {t.plugin for t in catalog.tools if t.plugin_wildcard}
    claims_first = scenario.get("order") is not None
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
            f"{plugin} declared {stolen} (owned by {tool.plugin}) read-only; that classifies nothing"
            + (f", also when {plugin} was installed before {tool.plugin} registered it" if claims_first else ""),
            read_only,
            scenario,
        )


@pytest.mark.toolconformance("RO-3")
def test_foreign_read_only_declarations_classify_nothing(toolconformance_host: HostClient) -> None:
    """A plugin's exact read-only name for another plugin's tool classifies nothing, whichever comes
    first: the catalog installed as drawn (each claim after the owner registered the tool) and in the
    reverse order (each claim installed before the plugin that registers the tool it names)."""

    def judge(catalog: tcs.Catalog, spec: JSON, read_only: dict[str, bool], scenario: JSON) -> None:
        _foreign_claims_classify_nothing(catalog, read_only, scenario)
        claims_first = replace(catalog, plugins=tuple(reversed(catalog.plugins)))
        _foreign_claims_classify_nothing(
            claims_first,
            _classification(toolconformance_host, claims_first, spec),
            {
                **scenario,
                "plugins": list(claims_first.plugins),
                "order": "each claim installed before the plugin that registers the tool it names",
            },
        )

    _classification_property(
        toolconformance_host,
        judge,
        sessions=name_strategy(
            _RO_SESSIONS.filter(lambda ex: bool(ex[0].foreign_declarations)),
            f"{__name__}.READ_ONLY_SESSIONS with foreign declarations",
        ),
        origin_checked_too=False,
    )


def _children_keep_the_scope(client: HostClient, spec: JSON, in_scope: set[str]) -> None:
    """A read-only child that lacks tools of its session's scope: blocked by SCOPE-1 where a child the
    same conversation delegates with writes (from a Build turn) lacks them too. A child works in its
    parent's conversation, of that account, Project and platform; one that lost the scope cannot receive
    a scoped tool, whatever the read-only declaration decides (docs/readings.md, RO-1 scoped contributions)."""
    build = {key: value for key, value in spec.items() if key != "mode"}
    writer = client.open(**build).delegate(read_only=False).compose()
    held = {e["name"] for e in writer.get("catalog") or []} | {e["name"] for e in writer.get("tools") or []}
    precondition(
        in_scope <= held,
        "SCOPE-1",
        "a child delegated with writes to hold every tool of its conversation's scope",
        {"missing": sorted(in_scope - held)},
    )


@pytest.mark.toolconformance("RO-5")
def test_read_only_children_receive_exactly_the_read_only_set(toolconformance_host: HostClient) -> None:
    client = toolconformance_host

    def body(catalog: tcs.Catalog, spec: JSON) -> None:
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
        if expected - got:
            _children_keep_the_scope(client, spec, in_scope)
        if got != expected and all("readOnly" in entries[t.name] for t in visible):
            # The child follows the host's own classification, and that classification is wrong: the
            # declaration's reading (RO-1 for the wildcard, RO-3 for exact names) is broken, not RO-5.
            classified = {t.name for t in visible if entries[t.name]["readOnly"] is True}
            wrong = [t for t in visible if (t.name in classified) != (t.name in expected)]
            if any(
                entries[t.name].get("origin") not in (None, "external" if t.external else "internal") for t in wrong
            ):
                # The host classified by a wrong origin (the wildcard reads it): blocked by the origin rule.
                origin_holds(client, bound_rule())
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

    # The scoped wildcard example first: a read-only child of each scope receives its scoped tools the
    # wildcard classified, whatever the example budget.
    read_only_session_property(client, body, "delegation", examples=[_scoped_wildcard_example()])


#: The read-only sub-agents, every way one comes to be read-only: (what it is, the turn's mode, the
#: delegations from the turn down to it as (readOnly, requested access)).
_ASKS_READ_ONLY: JSON = {"readOnly": True}
_SUB_AGENTS: tuple[tuple[str, str, tuple[tuple[bool, JSON], ...]], ...] = (
    ("a read-only child of a Build turn", "build", ((True, {}),)),
    ("a child of a Build turn delegated writable, requested read-only", "build", ((False, _ASKS_READ_ONLY),)),
    ("a read-only child of a writable child", "build", ((False, {}), (True, {}))),
    ("a child of a writable child, its requested access read-only", "build", ((False, {}), (False, _ASKS_READ_ONLY))),
    ("a child delegated writable below a read-only child", "build", ((True, {}), (False, {}))),
    ("a child asking to clear readOnly below a read-only child", "build", ((True, {}), (False, {"readOnly": False}))),
    ("a child delegated writable below a requested read-only child", "build", ((False, _ASKS_READ_ONLY), (False, {}))),
    ("a read-only child of a Plan turn", "plan", ((True, {}),)),
    ("a child of a Plan turn delegated writable", "plan", ((False, {}),)),
    ("a grandchild of a Plan turn, both delegated writable", "plan", ((False, {}), (False, {}))),
)
#: Core tools neither classified read-only nor Bash: a read-only sub-agent is not offered them
#: (docs/readings.md, RO-5: the read-only set plus Bash under the non-destructive boundary).
_CORE_WRITERS = ("Write", "Edit", "EditImage", "WorkflowStart", "ShareFile", "ShareImage")
_WAYS_DECLARED = {"ro5_reader": "RO-3", "mcp__ro5ways__remote": "RO-1"}
_WAYS_UNDECLARED = ("ro5_writer", "mcp__ro5ways__local", "mcp__ro5other__push")
_WAYS_PLUGINS = (
    scripted.plugin(
        "ro5-ways",
        [
            scripted.tool("ro5_reader"),
            scripted.tool("ro5_writer"),
            scripted.tool("mcp__ro5ways__local", external=False),
            scripted.tool("mcp__ro5ways__remote", external=True),
        ],
        manifest={
            "provides": {
                "tools": ["ro5_reader", "ro5_writer", "mcp__*", "mcp__ro5ways__local", "mcp__ro5ways__remote"],
                "readOnlyTools": ["ro5_reader", "mcp__*"],
            }
        },
    ),
    scripted.plugin("ro5-other", [scripted.tool("mcp__ro5other__push", external=True)]),
)


def _ways_classified(client: HostClient, build: JSON) -> None:
    """Before a finding about a sub-agent: the host's own catalog (of the Build turn) classifies the plugins'
    tools as declared, else the sub-agent followed a wrong classification (RO-3 for the exact name, RO-1 for
    the wildcard); and the tools registered with their origin and schema (EXT-1/EXT-2, SCHEMA-1, RO-2)."""
    registrations_hold(client, "RO-5")
    entries = by_name(build.get("catalog") or [])
    for name in (*_WAYS_DECLARED, *_WAYS_UNDECLARED):
        said = (entries.get(name) or {}).get("readOnly")
        rule = _WAYS_DECLARED.get(name, "RO-1" if name.startswith("mcp__") else "RO-3")
        precondition(
            said in (None, name in _WAYS_DECLARED),
            rule,
            f"the host to classify {name} as its plugin declared it (readOnly {str(name in _WAYS_DECLARED).lower()})",
            entries.get(name),
        )


@pytest.mark.toolconformance("RO-5")
def test_every_read_only_sub_agent_receives_the_read_only_set(toolconformance_host: HostClient) -> None:
    """Whichever way a sub-agent is read-only (delegated read-only by the host, made read-only by the access
    plugin code requested for it, below a writable child, below a read-only child it cannot leave, a Plan
    turn's child), it is offered exactly the plugin tools the declaration classifies read-only (an exact
    name, the ``mcp__*`` wildcard's external tool), none of the core tools outside the read-only set but
    Bash, and calling an undeclared tool (plain, ``mcp__``-named internal, another plugin's external) runs
    nothing. A sub-agent the host's own currentAccess() does not show read-only is blocked by DELEG-1 (a
    read-only origin below writable parents) or DELEG-3 (a restriction its parent had)."""
    client = toolconformance_host
    client.require("registration", "composition", "calls", "delegation", "plan-mode")
    client.reset()
    for doc in _WAYS_PLUGINS:
        install(client, [doc])
    build = _open_turn(client, "host", "build").compose()
    offered_on_build = {e["name"] for e in build.get("tools") or []}
    for where, mode, chain in _SUB_AGENTS:
        turn = _open_turn(client, "host", mode)
        session = turn
        for read_only, requested in chain:
            session = session.delegate(read_only=read_only, requested=dict(requested))
        scenario: JSON = {
            "plugins": list(_WAYS_PLUGINS),
            "open": turn.spec,
            "delegate": [{"readOnly": r, "requested": q} for r, q in chain],
        }
        access = session.access()
        origin = mode == "build" and all(not r and not q.get("readOnly") for r, q in chain[:-1])
        precondition(
            access.get("readOnly") is True,
            "DELEG-1" if origin else "DELEG-3",
            f"{where} to be read-only in the host's own currentAccess()",
            {k: access.get(k) for k in ("readOnly", "planMode")},
        )
        composed = session.compose()
        offered = {e["name"] for e in composed.get("tools") or []} | {e["name"] for e in composed.get("catalog") or []}
        plugin_tools = offered & {*_WAYS_DECLARED, *_WAYS_UNDECLARED}
        writers = sorted(offered & (set(_CORE_WRITERS) & offered_on_build))
        if plugin_tools != set(_WAYS_DECLARED) or writers:
            _ways_classified(client, build)
        check(
            plugin_tools == set(_WAYS_DECLARED) and not writers,
            f"{where} is offered exactly the plugin tools classified read-only and no core tool outside the "
            f"read-only set but Bash (missing {sorted(set(_WAYS_DECLARED) - plugin_tools)}, extra "
            f"{sorted(plugin_tools - set(_WAYS_DECLARED)) + writers})",
            sorted(offered),
            {**scenario, "then": "compose"},
        )
        for name in _WAYS_UNDECLARED:
            outcome = session.call(name, {})
            if outcome.get("handlerRan") is not False:
                _ways_classified(client, build)
            check(
                outcome.get("handlerRan") is False,
                f"{name}, not classified read-only, does not run in {where}",
                {k: outcome.get(k) for k in ("handlerRan", "refusal")},
                {**scenario, "call": {"tool": name, "arguments": {}}},
            )
