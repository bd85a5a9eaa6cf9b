"""The report as Markdown: for ``$GITHUB_STEP_SUMMARY`` and for ``<report>.md``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_toolconformance.catalog import anchor

ICON = {"passed": "✅", "failed": "❌", "errored": "💥", "deviation": "⚠️", "skipped": "⏭️", "not-run": "▫️"}
_ORDER = ("failed", "errored", "deviation", "skipped", "not-run", "passed")


def _cell(text: str, limit: int = 300) -> str:
    one_line = " ".join(text.split())
    if len(one_line) > limit:
        one_line = one_line[: limit - 1] + "…"
    return one_line.replace("|", "\\|")


def render_markdown(report: Mapping[str, Any], catalog_href: str = "docs/rules.md") -> str:
    host = report["host"]
    summary = report["summary"]
    verdict = "✅ conforms" if report["ok"] else "❌ does not conform"
    counts = ", ".join(f"{ICON[s]} {summary[s]} {s}" for s in _ORDER if summary.get(s))
    lines = [
        f"## Tool conformance: {host.get('name') or host['spec']} {host.get('version') or ''}".rstrip(),
        "",
        f"**{verdict}** — {summary['rules']} rules, {summary['tests']} tests: {counts or 'nothing ran'}",
        "",
        f"Kit {report['kit']['name']} {report['kit']['version']}; host `{host['spec']}`"
        + (f"; plugins: {', '.join(f'`{p}`' for p in report['plugins'])}" if report["plugins"] else ""),
    ]
    if host.get("error"):
        lines += ["", f"> host did not describe itself: {_cell(host['error'])}"]
    sandbox = report["run"].get("sandbox")
    if sandbox:
        lines += ["", f"Plugin sandbox: network: {sandbox['network']}; filesystem: {sandbox['filesystem']}"]
    stale = report["deviations"]["stale"]
    if stale:
        lines += ["", "### Stale deviations (fail the run)", ""] + [f"- {_cell(s['message'], 500)}" for s in stale]
    attention = [r for r in report["rules"] if r["status"] in ("failed", "errored", "deviation")]
    if attention:
        lines += ["", "### Rules that need attention", "", "| rule | status | message |", "|---|---|---|"]
        for rule in attention:
            message = (rule["messages"] or [""])[0]
            if rule["status"] == "deviation":
                message = "; ".join(d["reason"] for d in rule.get("deviation", [])) + " — " + message
            link = f"[{rule['id']}]({catalog_href}#{anchor(rule['id'])})"
            lines.append(f"| {link} | {ICON[rule['status']]} {rule['status']} | {_cell(message)} |")
    lines += ["", "<details><summary>All rules by family</summary>", "", "| family | rules |", "|---|---|"]
    families: dict[str, list[Mapping[str, Any]]] = {}
    for rule in report["rules"]:
        families.setdefault(rule["family"], []).append(rule)
    for family, rules in families.items():
        lines.append(f"| {family} | " + " ".join(f"{ICON[r['status']]} {r['id']}" for r in rules) + " |")
    lines += ["", "</details>", ""]
    return "\n".join(lines)
