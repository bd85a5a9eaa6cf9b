"""Witnesses of the origin cells of EXT-2 and RO-1 that broken hosts written from the rules' sentences
showed the checks missing: who registers a tool (a plugin named as the MCP bridge is, a plugin whose
manifest declares the ``mcp__*`` family) never decides its origin, and the ``mcp__*`` wildcard reaches the
declaring plugin's scoped external tools as its instance-wide ones. Each shows, through the adapter
contract alone, that the reference host does what the sentence says in that cell and the broken host
does not.
"""

from __future__ import annotations

from typing import Any

import pytest

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from pytest_toolconformance.host.scripted import flat_schema, plugin, tool
from tests.kit.suites.witnesses import Pair
from tests.kit.suites.witnesses import session_of as _session

USER = {"identity": {"userId": "u-1"}}
Q = flat_schema({"q": "string"})


def _install(host: ReferenceHostAdapter, name: str, *tools: dict[str, Any], manifest: Any = None) -> list[str]:
    report = host.install_plugin(plugin(name, list(tools), manifest=manifest))
    assert "error" not in report, report
    return sorted(report["accepted"])


def _catalog(host: ReferenceHostAdapter, session: str) -> dict[str, dict[str, Any]]:
    return {entry["name"]: entry for entry in host.compose(session)["catalog"] if entry["owner"] != "core"}


def _origins(host: ReferenceHostAdapter, session: str) -> dict[str, str]:
    return {name: entry["origin"] for name, entry in _catalog(host, session).items()}


# -- EXT-2: a plugin named as the MCP bridge is does not make its tools external ---------------------------


@pytest.mark.parametrize("bridge", ["mcp", "mcp-gateway"], ids=["the-bundled-name", "a-bridge-like-name"])
def test_ext_2_a_bridge_named_plugin_keeps_each_option(hosts: Pair, bridge: str) -> None:
    """EXT-2: origin comes from the ``external`` option alone: a plugin named as the bundled bridge
    (``plugins/mcp``) or like one registers an ``mcp__`` tool with ``false`` and a plain one with the option
    omitted as internal tools; only its ``true`` is external. Another plugin's ``false`` is internal on both."""

    def origins(host: ReferenceHostAdapter) -> dict[str, str]:
        accepted = _install(
            host,
            bridge,
            tool("mcp__local__status", parameters=Q, external=False),
            tool("BridgeHealth", parameters=Q),
            tool("mcp__srv__ping", parameters=Q, external=True),
        )
        assert len(accepted) == 3
        assert _install(host, "notes", tool("mcp__notes__list", parameters=Q, external=False)) == ["mcp__notes__list"]
        return _origins(host, _session(host, USER))

    reference, mutant = hosts("ext_2_bridge_plugin_name_implies_external")
    assert origins(reference) == {
        "mcp__local__status": "internal",
        "BridgeHealth": "internal",
        "mcp__srv__ping": "external",
        "mcp__notes__list": "internal",
    }
    assert origins(mutant) == {
        "mcp__local__status": "external",
        "BridgeHealth": "external",
        "mcp__srv__ping": "external",
        "mcp__notes__list": "internal",
    }


# -- EXT-2: a manifest declaring the mcp__* family does not make its mcp__ tools external ------------------


@pytest.mark.parametrize("read_only", [False, True], ids=["provides-tools-alone", "with-the-wildcard"])
def test_ext_2_a_declared_mcp_family_keeps_each_option(hosts: Pair, read_only: bool) -> None:
    """EXT-2: an ``mcp__`` tool registered ``external: false`` by a plugin whose ``provides.tools`` lists
    ``mcp__*`` (alone, or with ``readOnlyTools: ['mcp__*']``) is internal, so the wildcard does not classify
    it; the same tool of a plugin without the entry is internal on both hosts."""
    provides: dict[str, Any] = {"tools": ["mcp__*", "Helper"]}
    if read_only:
        provides["readOnlyTools"] = ["mcp__*"]

    def metadata(host: ReferenceHostAdapter) -> dict[str, tuple[str, bool]]:
        accepted = _install(
            host,
            "gateway",
            tool("mcp__gateway__cache", parameters=Q, external=False),
            tool("mcp__remote__fetch", parameters=Q, external=True),
            tool("Helper", parameters=Q, external=False),
            manifest={"provides": provides},
        )
        assert len(accepted) == 3
        assert _install(host, "notes", tool("mcp__notes__list", parameters=Q, external=False)) == ["mcp__notes__list"]
        catalog = _catalog(host, _session(host, USER))
        return {name: (entry["origin"], entry["readOnly"]) for name, entry in catalog.items()}

    reference, mutant = hosts("ext_2_declared_mcp_family_implies_external")
    assert metadata(reference) == {
        "mcp__gateway__cache": ("internal", False),
        "mcp__remote__fetch": ("external", read_only),
        "Helper": ("internal", False),
        "mcp__notes__list": ("internal", False),
    }
    assert metadata(mutant) == {
        "mcp__gateway__cache": ("external", read_only),
        "mcp__remote__fetch": ("external", read_only),
        "Helper": ("internal", False),
        "mcp__notes__list": ("internal", False),
    }


# -- RO-1: the wildcard reaches the declaring plugin's scoped external tools -------------------------------


@pytest.mark.parametrize(
    "scope",
    [{"ownerUserId": "u-1"}, {"projectId": "p1"}, {"platform": "web"}],
    ids=["ownerUserId", "projectId", "platform"],
)
def test_ro_1_the_wildcard_reaches_scoped_external_tools(hosts: Pair, scope: dict[str, str]) -> None:
    """RO-1: ``readOnlyTools: ['mcp__*']`` expands to the plugin's own registered external tools, a scoped
    one as an instance-wide one: in a session of its scope it is classified read-only, and a read-only child
    there receives it."""

    def classified(host: ReferenceHostAdapter) -> tuple[dict[str, bool], set[str]]:
        accepted = _install(
            host,
            "bridge",
            tool("mcp__srv__read", parameters=Q, external=True),
            tool("mcp__page__read", parameters=Q, external=True, **scope),
            manifest={"provides": {"tools": ["mcp__*"], "readOnlyTools": ["mcp__*"]}},
        )
        assert len(accepted) == 2
        session = _session(host, {**USER, "projectId": "p1", "platform": "web"})
        read_only = {name: entry["readOnly"] for name, entry in _catalog(host, session).items()}
        child = host.delegate(session, {"readOnly": True, "requested": {}})["session"]
        return read_only, set(_catalog(host, child))

    reference, mutant = hosts("ro_1_wildcard_skips_scoped_external")
    assert classified(reference) == (
        {"mcp__srv__read": True, "mcp__page__read": True},
        {"mcp__srv__read", "mcp__page__read"},
    )
    assert classified(mutant) == ({"mcp__srv__read": True, "mcp__page__read": False}, {"mcp__srv__read"})
