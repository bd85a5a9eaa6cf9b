"""The report as Markdown: for ``$GITHUB_STEP_SUMMARY`` and for ``<report>.md``.

It stands alone: each rule that needs attention carries its own text, the seed paragraphs it
comes from and its fix, and the failure text is the finding with its rerun line; no link points
at a file that exists only in the kit's repository.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

ICON = {
    "passed": "✅",
    "failed": "❌",
    "errored": "💥",
    "deviation": "⚠️",
    "blocked": "⛔",
    "skipped": "⏭️",
    "not-applicable": "➖",
    "not-run": "▫️",
}
ORDER = ("failed", "errored", "deviation", "blocked", "skipped", "not-applicable", "not-run", "passed")
ATTENTION = ("failed", "errored", "deviation", "blocked")


def _cell(text: str, limit: int = 300) -> str:
    one_line = " ".join(text.split())
    if len(one_line) > limit:
        one_line = one_line[: limit - 1] + "…"
    return one_line.replace("|", "\\|")


def verdict(report: Mapping[str, Any]) -> str:
    summary = report["summary"]
    held = summary["passed"] + summary["deviation"]
    return f"conforms on {held} of {summary['rules']} rules" if report["ok"] else "does not conform"


def _rule_details(rule: Mapping[str, Any]) -> list[str]:
    lines = [f"#### {ICON[rule['status']]} {rule['id']} — {rule['status']}", "", rule["statement"]]
    if rule.get("reading"):
        lines += ["", f"**Reading:** {rule['reading']}"]
    # "the seam's text", not "Seed": the report names the run's random seed as well ("seed 0").
    lines += ["", f"In the seam's text: {rule['seed']}. Fix: {rule['fix']}"]
    for dev in rule.get("deviation", []):
        lines += [
            "",
            f"Known deviation (entry {dev['entry']}): {dev['reason']}"
            + (f" ({dev['link']})" if dev.get("link") else ""),
        ]
    if rule["status"] == "blocked":
        lines += ["", f"Blocked by {', '.join(rule['blocked_by'])}: fix that rule first."]
    for message in rule.get("messages", []):
        lines += ["", "```text", message.replace("```", "'''"), "```"]
    return lines + [""]


def plugin_names(report: Mapping[str, Any]) -> list[str]:
    """The names of the plugins a report checked (a title says `notes`, not the path `.`); their
    paths where no check named one (a plugin that could not be listed)."""
    named = {test["plugin"] for rule in report["rules"] for test in rule.get("tests", []) if test.get("plugin")}
    return sorted(named) or list(report["plugins"])


def render_markdown(report: Mapping[str, Any]) -> str:
    host = report["host"]
    summary = report["summary"]
    mark = "✅" if report["ok"] else "❌"
    counts = ", ".join(f"{ICON[s]} {summary[s]} {s}" for s in ORDER if summary.get(s))
    subject = (
        ", ".join(plugin_names(report)) + " (" + ", ".join(f"`{p}`" for p in report["plugins"]) + ")"
        if host.get("checked") is False
        else (host.get("name") or host["spec"]) + (f" {host['version']}" if host.get("version") else "")
    )
    lines = [
        f"## Tool conformance: {subject}",
        "",
        f"**{mark} {verdict(report)}** — {summary['rules']} rules in scope, {summary['tests']} tests: "
        f"{counts or 'nothing ran'}",
        "",
    ]
    if not report["ok"]:
        lines += [f"- {_cell(why, 500)}" for why in report["why"]] + [""]
    run = report.get("run", {})
    host_part = f"host `{host['spec']}`" if host.get("checked") is not False else "plugin checks only"
    lines.append(
        f"Kit {report['kit']['name']} {report['kit']['version']}; {host_part}"
        + (f"; plugins: {', '.join(f'`{p}`' for p in report['plugins'])}" if report["plugins"] else "")
        + (f"; {run['seed_sentence']}" if run.get("seed_sentence") else "")
        + (f"; rule set {run['ruleset']}" if run.get("ruleset") else "")
    )
    if host.get("error"):
        lines += ["", f"> host did not describe itself: {_cell(host['error'])}"]
    sandbox = report["run"].get("sandbox")
    if sandbox:
        lines += ["", f"Plugin sandbox: network: {sandbox['network']}; filesystem: {sandbox['filesystem']}"]
    stale = report["deviations"]["stale"]
    if stale:
        lines += ["", "### Stale deviations (fail the run)", ""] + [f"- {_cell(s['message'], 500)}" for s in stale]
    attention = [r for r in report["rules"] if r["status"] in ATTENTION]
    if attention:
        lines += ["", "### Rules that need attention", ""]
        for rule in attention:
            lines += _rule_details(rule)
    lines += ["", "<details><summary>All rules in scope by family</summary>", "", "| family | rules |", "|---|---|"]
    families: dict[str, list[Mapping[str, Any]]] = {}
    for rule in report["rules"]:
        families.setdefault(rule["family"], []).append(rule)
    for family, rules in families.items():
        lines.append(f"| {family} | " + " ".join(f"{ICON[r['status']]} {r['id']}" for r in rules) + " |")
    lines += ["", "</details>"]
    scope = report.get("out_of_scope", [])
    if scope:
        by_reason: dict[str, list[str]] = {}
        for entry in scope:
            by_reason.setdefault(entry["reason"], []).append(entry["id"])
        lines += [""] + [f"Out of scope ({reason}): {', '.join(ids)}" for reason, ids in by_reason.items()]
    return "\n".join(lines) + "\n"
