"""MANIFEST-3 broken: a ``provides.tools`` list that holds a wildcard family (``mcp__*``) is taken to
cover every tool the plugin registers, so a plain-named tool registered but not listed gets no finding.

The cell: an auditing host (it reports both kinds of mismatch for other plugins), a plugin whose
``provides.tools`` holds ``mcp__*`` and registers a tool whose name is neither listed nor in the
family. Listed-but-unregistered findings, and every finding of a plugin without a wildcard, are
reported as in the reference host.

The sentence broken (RULES.md MANIFEST-3 and its host reading; seed): "A tool name in provides.tools is
an audit declaration. The actual registration remains the source of the live contribution report";
"a host that reports audit findings reports exactly the tools listed but not registered or registered
but not listed".
"""

from __future__ import annotations

from typing import Any

from tests.subjects.mutants.base import AnswerMutant

RULE = "MANIFEST-3"


class Adapter(AnswerMutant):
    def install_plugin(self, plugin: dict[str, Any]) -> dict[str, Any]:
        answer = super().install_plugin(plugin)
        if "findings" not in answer:
            return answer
        manifest = plugin.get("manifest") if isinstance(plugin, dict) else None
        listed = ((manifest or {}).get("provides") or {}).get("tools") or []
        if any(isinstance(name, str) and name.endswith("*") for name in listed):
            answer["findings"] = [
                f
                for f in answer["findings"]
                if not (f["rule"] == "MANIFEST-3" and "not listed in provides.tools" in f["message"])
            ]
        return answer


def factory() -> Adapter:
    return Adapter()
