"""Snapshots of what the reference host composes for a few canonical sessions.

The provider payload and the cache-diagnostics projection, taken through the adapter, pinned with
syrupy (JSON files under ``tests/__snapshots__/test_snapshots/``). A change to composition that
shows up here is either a fix (update with ``pytest tests/reference_host/test_snapshots.py --snapshot-update`` and
review the diff) or a regression.
"""

from __future__ import annotations

from typing import Any

import pytest
from syrupy.assertion import SnapshotAssertion
from syrupy.extensions.json import JSONSnapshotExtension

from pytest_toolconformance.host.client import HostClient
from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from pytest_toolconformance.host.scripted import plugin, tool

VALUE = {"type": "object", "required": ["value"], "properties": {"value": {"type": "string", "description": "Text."}}}

NOTES = plugin("notes", [
    tool("notes_add", parameters=VALUE, description="Add a note."),
    tool("notes_list", description="List the notes."),
    tool("notes_web_card", description="Show a note as a card on the visitor's page.", platform="web"),
], manifest={"provides": {"tools": ["notes_add", "notes_list", "notes_web_card"], "readOnlyTools": ["notes_list"]}})

BRIDGE = plugin("bridge", [
    tool("mcp__docs__search", external=True, parameters=VALUE,
         description="Search the docs. " + "Ünïcödé détails, 漢字 and 😀 to cut across. " * 30),
    tool("mcp__docs__bulk", external=True, description="Bulk import.", parameters={
        "type": "object", "required": ["rows"],
        "properties": {"rows": {"type": "array", "items": {"type": "string"}, "description": "r" * 8200}}}),
    tool("mcp__local__helper", external=False, description="An mcp__-named internal helper."),
], manifest={"provides": {"tools": ["mcp__*", "mcp__local__helper"], "readOnlyTools": ["mcp__*"]}})

LAZY = plugin("lazy", [
    tool("mcp__lazy__fetch", external=True, parameters=VALUE, description="Fetch a remote page."),
    tool("lazy_summarize", parameters=VALUE, description="Summarize a text."),
    tool("lazy_now", description="Loaded from the start."),
], manifest={"deferLoading": ["mcp__lazy__fetch", "lazy_summarize"]})


@pytest.fixture
def client() -> Any:
    adapter = ReferenceHostAdapter()
    yield HostClient(adapter)
    adapter.close()


@pytest.fixture
def json_snapshot(snapshot: SnapshotAssertion) -> SnapshotAssertion:
    return snapshot.with_defaults(extension_class=JSONSnapshotExtension)


def projection(composed: dict[str, Any]) -> dict[str, Any]:
    return {"payload": composed["payload"], "diagnostics": composed["diagnostics"]}


def test_build_turn_with_internal_external_and_scoped_tools(
    client: HostClient, json_snapshot: SnapshotAssertion
) -> None:
    client.install_ok(NOTES)
    client.install_ok(BRIDGE)
    composed = client.open(identity={"userId": "u1"}, platform="web").compose()
    assert projection(composed) == json_snapshot


def test_plan_turn(client: HostClient, json_snapshot: SnapshotAssertion) -> None:
    client.install_ok(NOTES)
    client.install_ok(BRIDGE)
    composed = client.open(identity={"userId": "u1"}, conversation="managed", projectId="p1", mode="plan").compose()
    assert projection(composed) == json_snapshot


def test_deferred_tools_before_tool_search(client: HostClient, json_snapshot: SnapshotAssertion) -> None:
    client.install_ok(LAZY)
    composed = client.open(identity={"userId": "u1"}).compose()
    assert {**projection(composed), "catalog": composed["catalog"]} == json_snapshot


def test_deferred_tools_after_tool_search(client: HostClient, json_snapshot: SnapshotAssertion) -> None:
    client.install_ok(LAZY)
    session = client.open(identity={"userId": "u1"})
    loaded = session.call("ToolSearch", {"query": "select:mcp__lazy__fetch,lazy_summarize"})
    assert loaded["handlerRan"] and not loaded["isError"], loaded
    composed = session.compose()
    assert {**projection(composed), "catalog": composed["catalog"]} == json_snapshot
