"""MANIFEST: manifest metadata, what the scenario files (scenarios/manifest) say badly: generated
showOutput patterns (MANIFEST-1), sessions of any size under deferLoading (MANIFEST-2), and generated
provides.tools against registrations, some refused, for the audit findings (MANIFEST-3)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import strategies as st

from pytest_toolconformance.host.client import HostClient, check
from pytest_toolconformance.host.contract import JSON
from pytest_toolconformance.host.scripted import plugin, tool
from pytest_toolconformance.profile import name_strategy, run_property
from pytest_toolconformance.suites.host.composing import tool_entry as _tool_entry
from pytest_toolconformance.suites.host.generated import AUDIT_NAMES
from pytest_toolconformance.suites.host.generated import audit_plugin as _audit_plugin
from pytest_toolconformance.suites.host.preconditions import origin_holds, precondition


# -- MANIFEST-1 / MANIFEST-2: generated patterns and session sizes ------------------------------------
def _matches(pattern: bool | list[str], name: str) -> bool:
    """The manifest's tool-match semantics (manifest.schema.json): a trailing * matches by prefix."""
    if isinstance(pattern, bool):
        return pattern
    return any(name.startswith(p[:-1]) if p.endswith("*") else name == p for p in pattern)


FAMILY = ("fam__a", "fam__b", "famous", "other", "fam_x")
_pattern = st.one_of(
    st.booleans(), st.lists(st.sampled_from([*FAMILY, "fam__*", "fam*", "oth*", "ghost"]), unique=True)
)


@pytest.mark.toolconformance("MANIFEST-1")
def test_manifest1_shown_exactly_where_show_output_matches(toolconformance_host: HostClient) -> None:
    """For any showOutput, a successful result is shown exactly when it matches the tool; an
    is_error result is always shown."""
    toolconformance_host.require("registration", "calls")

    def body(pattern: bool | list[str]) -> None:
        toolconformance_host.reset()
        tools = [tool(n) for n in FAMILY] + [tool("fam__boom", handler=[{"op": "throw", "message": "x"}])]
        doc = plugin("family", tools, manifest={"showOutput": pattern})
        toolconformance_host.install_ok(doc)
        session = toolconformance_host.open()
        for name in (*FAMILY, "fam__boom"):
            answer = session.call(name)
            error = name == "fam__boom"
            want = True if error else _matches(pattern, name)
            check(
                answer.get("shown") is want,
                f"{name} {'fails (is_error is always shown)' if error else 'succeeds'}: shown={want} under "
                f"showOutput={pattern}",
                answer,
                {"plugins": [doc], "call": name},
            )

    run_property(name_strategy(_pattern, f"{__name__}._pattern"), body, cap=25, share_draws=True)


@pytest.mark.toolconformance("MANIFEST-2")
def test_manifest2_defers_whatever_the_session_size(toolconformance_host: HostClient) -> None:
    """deferLoading defers its tools in a session of any size (1 to 24 plugin tools); overridden
    names, and every name with deferral switched off, are advertised."""
    toolconformance_host.require("registration", "composition", "deferral")
    sizes = st.integers(1, 24).flatmap(lambda n: st.tuples(st.just(n), st.sets(st.integers(0, n - 1), max_size=n)))

    def body(value: tuple[int, set[int]]) -> None:
        count, overridden = value
        toolconformance_host.reset()
        names = [f"lazy_{i}" for i in range(count)]
        doc = plugin("lazy", [tool(n) for n in names], manifest={"deferLoading": True})
        toolconformance_host.install_ok(doc)
        overrides = sorted(names[i] for i in overridden)
        composed = toolconformance_host.open(deferral={"adminOverrides": overrides}).compose()
        scenario = {"plugins": [f"lazy with {count} tools, deferLoading: true"], "adminOverrides": overrides}
        for name in names:
            entry = _tool_entry(composed, name, "catalog") or {}
            advertised = _tool_entry(composed, name) is not None
            want_deferred = name not in overrides
            check(
                entry.get("deferred") is want_deferred and advertised is not want_deferred,
                f"{name} is {'deferred' if want_deferred else 'advertised (administrator override)'} in a session "
                f"with {count} plugin tools",
                {"catalog": entry, "inTools": advertised},
                scenario,
            )
        off = toolconformance_host.open(deferral={"enabled": False}).compose()
        undeferred = [n for n in names if _tool_entry(off, n) is not None]
        check(
            undeferred == names,
            "with deferral switched off every deferLoading tool is advertised",
            undeferred,
            {**scenario, "deferral": {"enabled": False}},
        )

    run_property(name_strategy(sizes, f"{__name__}.session sizes"), body, cap=15, share_draws=True)


# -- MANIFEST-3: generated provides.tools against registrations ---------------------------------------
#: MANIFEST-3's cases: a REG-5 case, plus the names among them whose registration the host refuses (a
#: root combinator, SCHEMA-1): attempted, never registered, so listed ones are listed but not registered;
#: then whether provides.tools also lists the ``mcp__*`` family, and whether the plugin registers an
#: external ``mcp__`` tool (the family's member whichever way the wildcard is read: by name or by origin).
_audit_case = st.tuples(
    *(st.lists(st.sampled_from(AUDIT_NAMES), unique=True) for _ in range(3)),
    st.lists(st.sampled_from(AUDIT_NAMES), unique=True, max_size=2),
    st.booleans(),
    st.booleans(),
)
_FAMILY, _MEMBER = "mcp__*", "mcp__audit__member"
#: The family listed beside plain names, some registered and unlisted, some listed and not registered:
#: what the wildcard covers never reaches a plain-named internal tool.
_AUDIT_EXAMPLES = [
    (["Alpha", "Beta"], ["Alpha", "Gamma"], [], [], True, True),
    (["Alpha"], [], [], [], True, True),
    (["Alpha", "Beta"], ["Beta"], [], [], True, False),
    (["Alpha"], ["Alpha"], [], [], False, True),
]
_REFUSED_SCHEMA: JSON = {"type": "object", "properties": {}, "anyOf": [{"required": ["a"]}]}


def _audit_flags(report: JSON) -> set[Any]:
    return {f.get("tool") for f in report.get("findings") or [] if f.get("rule") == "MANIFEST-3"}


def _host_audits(client: HostClient) -> bool:
    """Whether the host reports audit findings at all: a plugin listing a tool it never registers and
    registering one it does not list, both mismatches of its own manifest. Decided once per host."""
    client.reset()
    report = client.install_ok(
        plugin("audit-probe", [tool("Alpha"), tool("Beta")], manifest={"provides": {"tools": ["Alpha", "Ghost"]}})
    )
    return bool(_audit_flags(report))


@pytest.mark.toolconformance("MANIFEST-3")
def test_manifest3_findings_are_listed_xor_registered(toolconformance_host: HostClient) -> None:
    """Any provides.tools against any registrations, some of them refused: registration is the live
    source (the install report accepts exactly the registered tools, never a refused one), and a host
    that reports audit findings names every tool listed but not registered, or registered but not
    listed, under MANIFEST-3, and no other, in every install report.

    Reading: the seed makes provides.tools "an audit declaration" and the registration "the source of
    the live contribution report"; it does not require a host to report the audit, so a host that reads
    no manifest and reports no MANIFEST-3 finding at all meets the rule. That exemption is the host's,
    decided once (a probe plugin with a mismatch of each kind): an auditing host's install report that
    says nothing of a mismatch is a missed finding, not a host that does not audit.
    """
    toolconformance_host.require("registration")
    audits = _host_audits(toolconformance_host)

    def body(value: tuple[list[str], list[str], list[str], list[str], bool, bool]) -> None:
        attempted, listed, others, refused, family, member = value
        if not listed and not family:
            return  # without provides.tools there is no audit declaration to compare
        toolconformance_host.reset()
        doc = _audit_plugin(attempted, listed or [_FAMILY], others)
        if family and listed:
            doc["manifest"]["provides"]["tools"] = [_FAMILY, *listed]
        refusals = {n for n in refused if n not in attempted}
        doc["tools"] += [tool(n, parameters=_REFUSED_SCHEMA) for n in sorted(refusals)]
        registered = set(attempted)
        if member:
            doc["tools"].append(tool(_MEMBER, external=True))
            registered.add(_MEMBER)
        report = toolconformance_host.install_ok(doc)
        accepted = report.get("accepted")
        if set(accepted or ()) & refusals:
            # Accepted as external (its schema the owner's) where the option left it internal: EXT-1/EXT-2's.
            origin_holds(toolconformance_host, "MANIFEST-3")
        precondition(
            not set(accepted or ()) & refusals,
            "SCHEMA-1",
            f"the host to refuse {sorted(refusals)}, local schemas with a root anyOf",
            accepted,
        )
        check(
            accepted is None or set(accepted) == registered,
            f"the install report accepts exactly the registered tools {sorted(registered)} (provides.tools registers "
            "nothing; a refused registration registers nothing)",
            accepted,
            {"plugins": [doc]},
        )
        flagged = _audit_flags(report)
        covered = {_MEMBER} if family else set()  # the family's member is listed by the wildcard
        mismatched = (registered - covered) ^ set(listed)
        if family and not member:
            # Whether a family no tool of the plugin belongs to is itself listed but not registered, the
            # seed does not say: a finding naming the wildcard is neither required nor refused.
            flagged.discard(_FAMILY)
        if not flagged and not audits:
            return  # a host that reports no audit findings at all (it may read no manifest)
        check(
            flagged == mismatched,
            f"MANIFEST-3 findings name exactly {sorted(mismatched)} (listed xor registered"
            + (", a refused registration counting as not registered" if refusals else "")
            + (f"; {_FAMILY} in provides.tools lists no plain-named internal tool" if family else "")
            + (f" but lists {_MEMBER}, an external mcp__ tool" if family and member else "")
            + ")"
            + ("; this host reports audit findings, so every install report carries its own" if audits else ""),
            report.get("findings"),
            {"plugins": [doc]},
        )

    run_property(
        name_strategy(_audit_case, f"{__name__}._audit_case"),
        body,
        cap=25,
        share_draws=True,
        examples=_AUDIT_EXAMPLES,
    )
