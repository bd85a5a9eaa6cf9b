"""Every real MCP tool in ../shared/data/mcp-tools, registered as external through the adapter.

858 tools from 69 public MCP servers (see ../shared/data/README.md): real descriptions (73 over
1,000 bytes, some with multi-byte characters) and real schemas (some with no ``type`` or no
``properties``). The reference host must advertise each as CAP-1, CAP-2 and REASON-3 say, and keep
every one of them out of the cache diagnostics (DIAG-1). Skipped where the shared data is absent.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from pytest_toolconformance import measures
from pytest_toolconformance.host.client import HostClient
from pytest_toolconformance.host.inprocess import ReferenceHostAdapter


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in [k, *_strings(v)]]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


@pytest.fixture(scope="module")
def servers(shared_dir: Path) -> list[dict[str, Any]]:
    files = sorted((shared_dir / "data" / "mcp-tools").glob("*.json"))
    if not files:
        pytest.skip(f"no MCP tool lists in {shared_dir / 'data' / 'mcp-tools'}")
    return [json.loads(path.read_text("utf-8")) for path in files]


@pytest.fixture(scope="module")
def composed(servers: list[dict[str, Any]]) -> tuple[dict[str, Any], dict[str, dict[str, Any]], list[str]]:
    """Install every server as one plugin of external tools; compose one session."""
    adapter = ReferenceHostAdapter()
    client = HostClient(adapter)
    registered: dict[str, dict[str, Any]] = {}
    plugin_names = []
    for server in servers:
        slug = re.sub(r"[^A-Za-z0-9_]", "_", server["server"])
        plugin_name = f"mcpsrv-{server['server']}"
        plugin_names.append(plugin_name)
        tools = []
        for tool in server["tools"]:
            name = f"mcp__{slug}__{tool['name']}"
            registered[name] = {"name": name, "description": tool.get("description") or tool["name"],
                                "parameters": tool["inputSchema"]}
            tools.append({**registered[name], "label": tool.get("title") or tool["name"], "handler": [],
                          "options": {"external": True}})
        report = client.install_ok({"name": plugin_name, "tools": tools})
        assert len(report["accepted"]) == len(tools), report["refused"]
    answer = client.open(identity={"userId": "u1"}).compose()
    adapter.close()
    return answer, registered, plugin_names


def test_every_real_tool_is_registered(servers: list[dict[str, Any]],
                                       composed: tuple[dict[str, Any], dict[str, Any], list[str]]) -> None:
    answer, registered, _ = composed
    assert len(registered) == sum(len(server["tools"]) for server in servers)  # 858 in the README's count
    advertised = {t["name"] for t in answer["tools"]}
    assert set(registered) <= advertised


def test_cap1_descriptions(composed: tuple[dict[str, Any], dict[str, Any], list[str]]) -> None:
    answer, registered, _ = composed
    over = sum(measures.utf8_len(t["description"]) > 1000 for t in registered.values())
    assert over > 0, "the data holds descriptions over the cap (73 in the README's count)"
    cut = 0
    for entry in answer["tools"] + answer["payload"]["tools"]:
        original = registered.get(entry["name"])
        if original is None:
            continue
        description = original["description"]
        assert entry["description"] == measures.utf8_prefix(description, 1000), entry["name"]
        assert measures.utf8_len(entry["description"]) <= 1000
        cut += entry["description"] != description
    assert cut == 2 * over, "each description over 1,000 bytes is cut, in the tool list and in the payload"


def test_cap2_and_reason3_schemas(composed: tuple[dict[str, Any], dict[str, Any], list[str]]) -> None:
    answer, registered, _ = composed
    replaced = []
    expected = sorted(name for name, t in registered.items()
                      if measures.definition_bytes(name, t["description"], t["parameters"]) > measures.DEFINITION_CAP)
    for entry in answer["tools"] + answer["payload"]["tools"]:
        original = registered.get(entry["name"])
        if original is None:
            continue
        size = measures.definition_bytes(entry["name"], original["description"], original["parameters"])
        if size > measures.DEFINITION_CAP:
            replaced.append(entry["name"])
            assert entry["parameters"].get("type") == "object" and not entry["parameters"].get("required")
        else:
            # REASON-3: byte-identical, key order included; no reason added.
            advertised, registered_schema = entry["parameters"], original["parameters"]
            assert measures.js_stringify(advertised) == measures.js_stringify(registered_schema), entry["name"]
            assert "reason" not in (entry["parameters"].get("properties") or {}) or "reason" in (
                original["parameters"].get("properties") or {})
    # The README counts no inputSchema over 8,000 bytes on its own; with the description cut, none is over here.
    assert sorted(set(replaced)) == expected


def test_diag1_every_real_tool_is_redacted(composed: tuple[dict[str, Any], dict[str, Any], list[str]]) -> None:
    answer, registered, plugin_names = composed
    strings = _strings(answer["diagnostics"])
    joined = "\n".join(strings)
    leaked = [name for name in registered if name in joined]
    assert not leaked, leaked[:10]
    leaked_namespaces = [name for name in plugin_names if name in joined]
    assert not leaked_namespaces, leaked_namespaces[:10]
    payload_names = {t["name"] for t in answer["payload"]["tools"]}
    assert set(registered) <= payload_names, "the provider payload keeps the real names"
