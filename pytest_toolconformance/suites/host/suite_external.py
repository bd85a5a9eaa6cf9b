"""EXT: origin and metadata, what the scenario files (scenarios/ext) say badly: origin from the option
alone over generated catalogs, whoever registers the tool (EXT-2), and every winner/loser pairing of a
name collision, the tool keeping its accepted owner's metadata alone (EXT-3)."""

from __future__ import annotations

import itertools

import pytest

from pytest_toolconformance import strategies as tcs
from pytest_toolconformance.host.client import HostClient, Session, check
from pytest_toolconformance.host.contract import JSON
from pytest_toolconformance.host.scripted import flat_schema, plugin, tool
from pytest_toolconformance.profile import run_property
from pytest_toolconformance.strategies.catalogs import catalog_of
from pytest_toolconformance.suites.host.composing import READ_ONLY_SESSIONS, by_name, install_fresh
from pytest_toolconformance.suites.host.composing import tool_entry as _tool_entry
from pytest_toolconformance.suites.host.preconditions import (
    origin_checked,
    origin_holds,
    origin_precondition,
    precondition,
)

# -- EXT-2: origin from the option alone --------------------------------------------------------------
_Q = flat_schema({"q": "string"})


def _origin_example() -> tuple[tcs.Catalog, JSON]:
    """Whoever registers a tool, its option alone gives its origin: a plugin named as the bundled MCP
    bridge is (``plugins/mcp``), one whose manifest lists the ``mcp__*`` family in ``provides.tools``
    alone, and one that also declares it read-only, each registering plain and ``mcp__`` names with
    the option omitted, ``false`` and ``true``, scoped, deferred and declared by exact name; and a
    session that sees every scope. The catalogs draw such plugins too (``mcp-NN-ns``, the family
    listed); this example puts them first, whatever the example budget."""
    bridge = plugin(
        "mcp",
        [
            tool("mcp__mcp__local", parameters=_Q, external=False),
            tool("mcp__mcp__plain", parameters=_Q),
            tool("McpStatus", parameters=_Q),
            tool("McpCache", parameters=_Q, external=False, ownerUserId="acct-amber"),
            tool("mcp__mcp__later", parameters=_Q, external=False, projectId="proj-cedar"),
            tool("mcp__mcp__ping", parameters=_Q, external=True),
        ],
        manifest={"deferLoading": ["mcp__mcp__later"]},
    )
    gateway_tools = [
        tool("mcp__gateway__cache", parameters=_Q, external=False),
        tool("mcp__gateway__page", parameters=_Q, platform="web"),
        tool("GatewayHelper", parameters=_Q, external=False),
        tool("mcp__remote__fetch", parameters=_Q, external=True),
    ]
    gateway = plugin(
        "gateway",
        gateway_tools,
        manifest={"provides": {"tools": ["mcp__*", *(t["name"] for t in gateway_tools)]}},
    )
    family_tools = [
        tool("mcp__family__local", parameters=_Q, external=False, projectId="proj-cedar"),
        tool("mcp__family__exact", parameters=_Q, external=False),
        tool("FamilyRemote", parameters=_Q, external=True, platform="web"),
        tool("mcp__family__remote", parameters=_Q, external=True, ownerUserId="acct-amber"),
    ]
    family = plugin(
        "family",
        family_tools,
        manifest={
            "provides": {
                "tools": ["mcp__*", *(t["name"] for t in family_tools)],
                "readOnlyTools": ["mcp__*", "mcp__family__exact"],
            },
            "deferLoading": ["FamilyRemote"],
        },
    )
    spec = {"identity": {"userId": "acct-amber"}, "projectId": "proj-cedar", "platform": "web"}
    return catalog_of([bridge, gateway, family]), spec


@pytest.mark.toolconformance("EXT-2")
def test_origin_comes_from_the_option_alone(toolconformance_host: HostClient) -> None:
    """Every tool's origin in compose's catalog is the one its ``external`` option gives (omitted or
    false: internal), whatever names it: the tool's name, its plugin's name (one named like the MCP
    bridge), its plugin's manifest (the ``mcp__*`` family in ``provides.tools``, the wildcard, exact
    read-only names, ``deferLoading``), its scope or its deferral. Its effects (reason, caps,
    validation, the wildcard's classification) are checked by their own rules."""
    client = toolconformance_host
    client.require("registration", "composition", "scoping", "deferral")

    def body(example: tuple[tcs.Catalog, JSON]) -> None:
        catalog, spec = example
        install_fresh(client, catalog)
        entries = by_name(client.open(**spec).compose()["catalog"])
        visible = [t for t in catalog.visible_to(spec) if t.name in entries]
        if any("origin" not in entries[t.name] for t in visible):
            pytest.skip(
                "the host does not report origin in compose's catalog entries, where EXT-2 reads the host's "
                "own metadata (see docs/host-implementers.md, 'Tool metadata in the catalog')"
            )
        wrong = {
            f"{t.plugin}: {t.name} (external option {'true' if t.external else 'false or omitted'})": entries[t.name][
                "origin"
            ]
            for t in visible
            if entries[t.name]["origin"] != ("external" if t.external else "internal")
        }
        check(
            not wrong,
            "every tool's origin is the one its external option gives, whatever its name, its plugin's name or "
            "manifest, its scope or deferral",
            wrong,
            {"plugins": list(catalog.plugins), "session": spec, "then": "compose: the catalog's origin"},
        )

    run_property(READ_ONLY_SESSIONS, origin_checked(client, body), examples=[_origin_example()], share_draws=True)


# -- EXT-3: every winner/loser pairing ----------------------------------------------------------------
SHARED = "mcp__x__shared"


def _kinds(name: str) -> dict[str, tuple[bool, JSON]]:
    """How a registration of ``name`` is made: (external option, manifest provides)."""
    return {
        "internal": (False, {}),
        "internal-ro": (False, {"tools": [name], "readOnlyTools": [name]}),
        "external": (True, {}),
        "external-ro": (True, {"tools": [name], "readOnlyTools": [name]}),
        "external-wildcard": (True, {"tools": ["mcp__*"], "readOnlyTools": ["mcp__*"]}),
    }


#: How a registration of SHARED is made.
KINDS: dict[str, tuple[bool, JSON]] = _kinds(SHARED)
SHARED_PARAMS = flat_schema({"q": "string"})


#: Bystanders: another plugin's external tools no collision touches. No plugin declares WILD, so a
#: wildcard that classifies it reads mcp__* wrongly (RO-1); a loser with exact read-only names also
#: names EXACT, so a foreign exact name that classifies it reads exact names wrongly (RO-3).
WILD, EXACT = "mcp__b__wild", "mcp__b__exact"
BYSTANDER = plugin("bystander", [tool(WILD, external=True), tool(EXACT, external=True)])


def _owner(
    plugin_name: str, kind: str, foreign: tuple[str, ...] = (), *, name: str = SHARED, deferred: bool = False
) -> JSON:
    """A plugin registering ``name`` as ``kind``; ``deferred``: its manifest's ``deferLoading`` names it."""
    external, provides = _kinds(name)[kind]
    if foreign and "readOnlyTools" in provides and name in provides["readOnlyTools"]:
        provides = {"tools": [*provides["tools"], *foreign], "readOnlyTools": [*provides["readOnlyTools"], *foreign]}
    manifest: JSON = {"provides": provides} if provides else {}
    if deferred:
        manifest["deferLoading"] = [name]
    return plugin(
        plugin_name,
        [
            tool(
                name,
                parameters=SHARED_PARAMS,
                external=external,
                handler=[{"op": "text", "text": f"{plugin_name} ran"}],
            )
        ],
        manifest=manifest or None,
    )


def _observe(session: Session, name: str = SHARED, catalog: JSON | None = None) -> JSON:
    """The host's own metadata of ``name``, from compose's catalog: what EXT-3 is about. Its effects
    (reason, a read-only child, plan admission) are checked by their own rules. Also the bystanders'
    read-only classification, the preconditions RO-1 and RO-3."""
    catalog = catalog if catalog is not None else session.compose()
    entry = _tool_entry(catalog, name, "catalog")
    probes = {name: (_tool_entry(catalog, name, "catalog") or {}).get("readOnly") for name in (WILD, EXACT)}
    if entry is None:
        return {"inCatalog": False, "bystanders": probes}
    missing = sorted({"origin", "readOnly", "owner"} - set(entry))
    if missing:
        pytest.skip(
            f"the host does not report {', '.join(missing)} in compose's catalog entries, where EXT-3 reads "
            "the host's own metadata (see docs/host-implementers.md, 'Tool metadata in the catalog')"
        )
    return {
        "external": entry["origin"] == "external",
        "readOnly": entry["readOnly"],
        "owner": entry["owner"],
        "bystanders": probes,
    }


def _bystanders_unclassified(probes: JSON) -> None:
    """SHARED's metadata speaks for EXT-3 only while no wildcard and no foreign exact name classifies
    another plugin's tool: otherwise a leak is that rule's, whichever collision it meets."""
    precondition(
        probes.get(WILD) is not True, "RO-1", f"mcp__* to classify only its own plugin's tools, not {WILD}", probes
    )
    precondition(
        probes.get(EXACT) is not True, "RO-3", f"a foreign exact read-only name to classify nothing ({EXACT})", probes
    )


def _later_replaces(client: HostClient, later: JSON, name: str, scenario: JSON) -> bool:
    """Install ``later``, whose ``name`` collides with an installed tool: whether it replaced the owner
    (last-wins), once its install report is found to accept it or refuse it as the host's declared
    policy says."""
    report = client.install_ok(later)
    replaced = name in (report.get("accepted") or [])
    refused = any(r.get("tool") == name for r in report.get("refused") or [])
    declared = client.collisions
    check(
        replaced != refused and declared in (None, "last-wins" if replaced else "first-wins"),
        f"the install report accepts the colliding {name} (last-wins) or refuses it (first-wins)"
        + (f", as the host's declared {declared} policy says" if declared else ""),
        {"accepted": report.get("accepted"), "refused": report.get("refused")},
        scenario,
    )
    return replaced


@pytest.mark.toolconformance("EXT-3")
@pytest.mark.parametrize("first,second", list(itertools.product(KINDS, KINDS)), ids=lambda k: str(k))
def test_ext3_metadata_follows_accepted_owner(toolconformance_host: HostClient, first: str, second: str) -> None:
    """A registration of each kind, then a colliding one of each kind: the tool has exactly the
    accepted owner's origin, read-only classification and owner, before the collision, after it and
    after a later unrelated merge; the other registration contributes nothing.

    Reading: the seed says a collision's rejected registration contributes nothing, not which one is
    rejected. The accepted owner is the one the install report says: the later registration is refused
    (first-wins) or accepted in the earlier one's place (last-wins). A host that declares its policy
    (``info().collisions``) is held to it; the report's refusal need not name a rule.
    """
    toolconformance_host.require("registration", "composition", "calls", "plan-mode", "delegation")
    earlier, later = _owner("winner", first), _owner("loser", second, foreign=(EXACT,))
    third = plugin(
        "later",
        [tool("mcp__y__other", external=True)],
        manifest={"provides": {"tools": ["mcp__*"], "readOnlyTools": ["mcp__*"]}},
    )
    scenario = {"plugins": [BYSTANDER, earlier, later, third], "collisions": toolconformance_host.collisions}

    toolconformance_host.install_ok(BYSTANDER)
    toolconformance_host.install_ok(earlier)
    session = toolconformance_host.open()
    before = _observe(session)
    replaced = _later_replaces(toolconformance_host, later, SHARED, scenario)
    toolconformance_host.install_ok(third)
    session = toolconformance_host.open()
    after = _observe(session)

    with origin_precondition(toolconformance_host):
        expected = {"winner": _metadata(first, "winner")}
        expected["after"] = _metadata(second, "loser") if replaced else expected["winner"]
        for observed, want in ((before, expected["winner"]), (after, expected["after"])):
            probes = observed.pop("bystanders")
            if observed != want:
                _bystanders_unclassified(probes)
        check(before == expected["winner"], f"the accepted {first} registration has its own metadata", before, scenario)
        kept, dropped = ("the later", "the earlier") if replaced else ("the earlier", "the later")
        check(
            after == expected["after"],
            f"after a {second} registration collides with a {first} one and a later merge, {SHARED} has {kept} "
            f"owner's metadata alone ({dropped} registration contributes neither origin nor read-only "
            "classification)",
            after,
            scenario,
        )


def _metadata(kind: str, owner: str, name: str = SHARED) -> JSON:
    """What compose's catalog should say of ``name`` when ``owner``'s registration of ``kind`` is in force."""
    external, provides = _kinds(name)[kind]
    declared = provides.get("readOnlyTools", [])
    read_only = name in declared or (external and "mcp__*" in declared)
    return {"external": external, "readOnly": read_only, "owner": owner}


# -- EXT-3: the accepted owner's tool deferred ----------------------------------------------------------
#: The colliding name: an ``mcp__`` one and a plain one (names never imply origin, EXT-2).
DEFERRED_NAMES = (SHARED, "x_shared_lookup")


def _load(session: Session, name: str) -> JSON:
    """Load the deferred ``name`` through the loader (ToolSearch ``select:``), then compose."""
    session.ask("call", "ToolSearch", {"query": f"select:{name}"}, None, refusal="return")
    return session.compose()


def _twin_holds(session: Session, twin: str, want: JSON, stage: str, catalog: JSON) -> None:
    """The twin (the accepted kind, deferred, in a plugin no collision touches) keeps its own metadata
    at ``stage``: otherwise what the collided tool shows there is deferral's doing (EXT-4's for origin,
    the declaration's for read-only classification), not the collision's."""
    got = _observe(session, twin, catalog)
    got.pop("bystanders")
    if got.get("inCatalog") is False:
        return
    if got.get("external") != want["external"]:
        precondition(False, "EXT-4", f"the deferred twin {twin} to keep its own origin {stage}", got)
    declared_by = "RO-1" if want["readOnly"] and want["external"] and "wildcard" in stage else "RO-3"
    precondition(
        got.get("readOnly") == want["readOnly"],
        declared_by,
        f"the deferred twin {twin} to keep its own read-only classification {stage}",
        got,
    )


@pytest.mark.toolconformance("EXT-3")
@pytest.mark.parametrize("name", DEFERRED_NAMES)
@pytest.mark.parametrize("first,second", list(itertools.product(KINDS, KINDS)), ids=lambda k: str(k))
def test_ext3_deferred_accepted_owner_keeps_its_metadata(
    toolconformance_host: HostClient, first: str, second: str, name: str
) -> None:
    """The accepted owner's tool is deferred (its manifest's ``deferLoading`` names it; the colliding
    plugin's does too, so the accepted one is deferred whichever registration the host accepts): the
    tool has exactly the accepted owner's origin, read-only classification and owner before it is
    loaded and after the loader (ToolSearch) loads it, after the collision and a later unrelated merge;
    the rejected registration contributes nothing, an ``mcp__`` name and a plain one alike.

    A twin of the accepted kind, deferred in a plugin no collision touches, is the precondition: where
    the twin's own metadata changes with deferral or loading, that is EXT-4's fault (origin) or its
    declaration's (read-only), not the collision's."""
    toolconformance_host.require("registration", "composition", "deferral")
    twin = f"{name}_twin"
    earlier = _owner("winner", first, name=name, deferred=True)
    later = _owner("loser", second, foreign=(EXACT,), name=name, deferred=True)
    third = plugin(
        "later",
        [tool("mcp__y__other", external=True)],
        manifest={"provides": {"tools": ["mcp__*"], "readOnlyTools": ["mcp__*"]}},
    )
    scenario: JSON = {
        "plugins": [BYSTANDER, earlier, later, third],
        "collisions": toolconformance_host.collisions,
        "then": f"compose; call ToolSearch select:{name}; compose",
    }

    toolconformance_host.install_ok(BYSTANDER)
    toolconformance_host.install_ok(earlier)
    replaced = _later_replaces(toolconformance_host, later, name, scenario)
    accepted_kind, owner = (second, "loser") if replaced else (first, "winner")
    twin_plugin = _owner("twin", accepted_kind, name=twin, deferred=True)
    toolconformance_host.install_ok(twin_plugin)
    toolconformance_host.install_ok(third)
    scenario["plugins"] = [BYSTANDER, earlier, later, twin_plugin, third]
    want = _metadata(accepted_kind, owner, name)
    twin_want = _metadata(accepted_kind, "twin", twin)
    stage_of = f"({accepted_kind})"

    with origin_precondition(toolconformance_host):
        session = toolconformance_host.open()
        catalog = session.compose()
        deferred = (_tool_entry(catalog, name, "catalog") or {}).get("deferred") is True
        observed = {"before loading": (catalog, _observe(session, name, catalog))}
        if deferred:
            loaded = _load(session, name)
            if (_tool_entry(loaded, twin, "catalog") or {}).get("deferred") is True:
                loaded = _load(session, twin)
            precondition(
                (_tool_entry(loaded, name, "catalog") or {}).get("deferred") is False,
                "MANIFEST-2",
                f"ToolSearch select:{name} to load the deferred {name}",
                _tool_entry(loaded, name, "catalog"),
            )
            observed["once loaded"] = (loaded, _observe(session, name, loaded))
        for stage, (composed, got) in observed.items():
            probes = got.pop("bystanders")
            if got != want:
                # A host that reads the option wrong gets every registration's origin wrong (EXT-1, EXT-2).
                origin_holds(toolconformance_host, "EXT-3")
                _bystanders_unclassified(probes)
                _twin_holds(session, twin, twin_want, f"{stage} {stage_of}", composed)
            check(
                got == want,
                f"{stage}, the deferred {name} has the accepted {accepted_kind} registration's metadata alone (the "
                f"{'earlier' if replaced else 'later'} {second if not replaced else first} registration, rejected "
                "by the collision, contributes neither origin nor read-only classification)",
                got,
                {**scenario, "deferredInCatalog": deferred},
            )
