"""docs/wire-protocol.md's worked transcript is what the kit and the reference host really say."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

from pytest_toolconformance.host.wire import protocol
from pytest_toolconformance.host.wire.client import WireHostAdapter
from tests.paths import REPO

DOC = REPO / "docs" / "wire-protocol.md"
DOC_ROOT = "/tmp/wirework/sbx"
CUT = "…"
#: Prose that the reference host's owners may reword without making the transcript wrong.
_WORDING = {"message", "reason"}


def _transcript() -> list[tuple[str, str]]:
    text = DOC.read_text("utf-8")
    block = re.search(r"## A worked transcript.*?```text\n(.*?)```", text, re.S)
    assert block, "docs/wire-protocol.md has no worked transcript"
    lines = []
    for line in block.group(1).splitlines():
        side, _, message = line.partition("> ")
        assert side in ("kit", "host"), line
        lines.append((side, message))
    return lines


def _same(doc: Any, real: Any, where: str = "$") -> None:
    if isinstance(doc, dict):
        assert isinstance(real, dict) and sorted(doc) == sorted(real), (where, doc, real)
        for key in doc:
            if key in _WORDING and isinstance(doc[key], str):
                assert isinstance(real[key], str), (where, key)
            else:
                _same(doc[key], real[key], f"{where}.{key}")
    elif isinstance(doc, list):
        assert isinstance(real, list) and len(doc) == len(real), (where, doc, real)
        for i, (d, r) in enumerate(zip(doc, real, strict=True)):
            _same(d, r, f"{where}[{i}]")
    else:
        assert doc == real, (where, doc, real)


def _replay(root: Path) -> list[tuple[str, bytes]]:
    """The transcript's conversation, held again through the kit's own client."""
    adapter = WireHostAdapter([sys.executable, "-m", "pytest_toolconformance.host.wire.reference_server"], timeout=5)
    adapter.transcript = []
    adapter.reset()
    adapter.install_plugin({
        "name": "demo", "manifest": {"name": "demo", "provides": {"tools": ["Echo"], "readOnlyTools": ["Echo"]}},
        "tools": [{"name": "Echo", "label": "Echo", "description": "Echoes.",
                   "parameters": {"type": "object", "properties": {"value": {"type": "string"}}, "required": ["value"]},
                   "handler": [{"op": "echo"}]}],
    })
    adapter.set_policy("ann", {"projectIds": ["p1"], "pluginGrants": ["demo"]})
    session = adapter.open_session({"identity": {"userId": "ann"}, "projectId": "p1", "sandboxRoot": str(root)})[
        "session"
    ]
    adapter.open_session({"identity": {"userId": "ann"}, "mode": "sideways"})
    adapter.compose(session)
    adapter.call(session, "Echo", {"value": "hi"}, "c1")
    adapter.current_access(session)
    child = adapter.delegate(session, {"readOnly": True, "requested": {}})["session"]
    adapter.sandbox(child, {"kind": "write", "path": "/workspace/notes.txt", "content": "x"})
    adapter.close()
    return adapter.transcript


def test_every_line_of_the_transcript_matches_its_schema() -> None:
    methods: dict[int, str] = {}
    for side, line in _transcript():
        if side == "kit":
            message = json.loads(line)
            methods[message["seq"]] = message["method"]
            assert protocol.first_problem(message["method"], "request", message) is None, line
        elif not line.endswith(CUT):
            message = json.loads(line)
            assert protocol.first_problem(methods[message["seq"]], "response", message) is None, line
    assert set(methods.values()) == set(protocol.REQUESTS) - {"queue_call", "run_queued", "current_identity"}


def test_the_transcript_is_what_kit_and_reference_host_say(tmp_path: Path) -> None:
    doc = _transcript()
    real = [
        (side, line.decode("utf-8").rstrip("\n").replace(str(tmp_path), DOC_ROOT)) for side, line in _replay(tmp_path)
    ]
    assert [side for side, _ in real] == [side for side, _ in doc]
    for (side, documented), (_, said) in zip(doc, real, strict=True):
        if side == "kit":
            assert said == documented, "the kit no longer writes this line; update docs/wire-protocol.md"
        elif documented.endswith(CUT):
            assert said.startswith(documented.removesuffix(CUT)), (documented[:200], said[:200])
        else:
            _same(json.loads(documented), json.loads(said))


def test_the_method_table_says_which_capabilities_cover_each_method() -> None:
    text = DOC.read_text("utf-8")
    rows = re.findall(r"^\| `(\w+)` \|.*\| ([^|]+) \|$", text.split("### The requests", 1)[1].split("##", 1)[0], re.M)
    assert {method for method, _ in rows} == set(protocol.REQUESTS)
    everything_but_registration = protocol.METHOD_CAPABILITIES["open_session"]
    for method, column in rows:
        named = frozenset(re.findall(r"`([\w-]+)`", column))
        if column.startswith("(always"):
            assert method not in protocol.METHOD_CAPABILITIES, method
        elif column.startswith("any capability but"):
            assert protocol.METHOD_CAPABILITIES[method] == everything_but_registration, method
        else:
            assert protocol.METHOD_CAPABILITIES[method] == named, (method, sorted(named))
