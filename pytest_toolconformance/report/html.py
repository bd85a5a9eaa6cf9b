"""The report as one self-contained HTML page: inline CSS, no scripts, no external assets.

Rules are grouped by family and coloured by status; each failure shows its message; each rule
carries its catalog anchor as its own ``id`` and links to its entry in docs/rules.md.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from html import escape
from pathlib import Path
from typing import Any

from pytest_toolconformance.catalog import CATALOG_PATH, REPO_ROOT, anchor
from pytest_toolconformance.report.model import NOT_RUN_REASON
from pytest_toolconformance.rules import all_rules

#: Status colours; "failed" is a saturated red so a failure is unmistakable at a glance (and in a screenshot).
COLOURS: dict[str, tuple[str, str]] = {  # status -> (solid, tint)
    "passed": ("#1a7f37", "#e6f4ea"),
    "failed": ("#d0021b", "#fde2e4"),
    "errored": ("#8b1a5a", "#f8e1ee"),
    "deviation": ("#b26b00", "#fff4d6"),
    "skipped": ("#57606a", "#eef1f4"),
    "not-run": ("#8c959f", "#f6f8fa"),
}
_ORDER = ("failed", "errored", "deviation", "skipped", "not-run", "passed")

_CSS = """
* { box-sizing: border-box; }
body { font: 14px/1.45 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 0; color: #1f2328; background: #fff; }
header { padding: 16px 24px; border-bottom: 1px solid #d0d7de; }
header h1 { margin: 0 0 4px; font-size: 22px; }
.verdict { display: inline-block; padding: 2px 10px; border-radius: 12px; color: #fff; font-weight: 600; }
.meta { color: #57606a; margin: 4px 0; }
.counts span { display: inline-block; margin: 4px 6px 0 0; padding: 2px 8px; border-radius: 10px; color: #fff; font-weight: 600; }
main { padding: 8px 24px 32px; }
h2 { font-size: 17px; margin: 22px 0 8px; border-bottom: 1px solid #d0d7de; padding-bottom: 4px; }
.rule { border: 1px solid #d0d7de; border-left-width: 8px; border-radius: 6px; margin: 8px 0; overflow: hidden; }
.rule > .head { display: flex; gap: 10px; align-items: baseline; padding: 6px 10px; }
.rule .id { font-weight: 700; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; min-width: 7em; }
.rule .badge { padding: 1px 8px; border-radius: 10px; color: #fff; font-size: 12px; font-weight: 700; text-transform: uppercase; }
.rule .statement { flex: 1; }
.rule .body { padding: 4px 10px 8px; }
.rule ul { margin: 4px 0; padding-left: 20px; }
.rule pre { white-space: pre-wrap; word-break: break-word; background: #fff; border: 1px solid #d0d7de; border-radius: 4px; padding: 6px 8px; margin: 4px 0; font-size: 12px; }
.rule.status-failed > .head { background: #d0021b; color: #fff; }
.rule.status-failed > .head a { color: #fff; }
.rule.status-failed > .head .badge { background: #fff; color: #d0021b; }
.rule.status-not-run > .head { padding: 3px 10px; color: #57606a; }
.rule pre { max-height: 18em; overflow: auto; }
.attention { margin: 12px 0 0; padding: 8px 12px; border: 1px solid #d0d7de; border-radius: 6px; }
.attention a { font-weight: 700; margin-right: 8px; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 92%; }
.note { color: #57606a; font-size: 12px; }
.stale { border: 2px solid #d0021b; background: #fde2e4; padding: 8px 12px; border-radius: 6px; }
"""


def catalog_href(html_path: Path | None) -> str:
    """A relative link from the page to docs/rules.md: to this checkout's catalog when there is one,
    else the catalog's path in the kit's repository (right when the page sits at a repo root)."""
    catalog = REPO_ROOT / CATALOG_PATH
    if html_path is not None and catalog.is_file():
        return Path(os.path.relpath(catalog, html_path.resolve().parent)).as_posix()
    return CATALOG_PATH.as_posix()


_CODE = re.compile(r"`([^`]+)`")


def _inline(text: str) -> str:
    """Escape, and render the rule texts' `code` spans."""
    return _CODE.sub(r"<code>\1</code>", escape(text))


def _status_css() -> str:
    rules = []
    for status, (solid, tint) in COLOURS.items():
        rules.append(f".rule.status-{status} {{ border-left-color: {solid}; background: {tint}; }}")
        rules.append(f".rule.status-{status} .badge, .counts .c-{status}, .verdict.v-{status} {{ background: {solid}; }}")
    return "\n".join(rules)


def _rule_html(rule: Mapping[str, Any], href: str) -> str:
    status = rule["status"]
    known = all_rules().get(rule["id"])
    statement = known.statement if known else ""
    slug = anchor(rule["id"])
    parts = [
        f'<section class="rule status-{status}" id="{slug}" data-rule="{escape(rule["id"])}" data-status="{status}">',
        '<div class="head">',
        f'<a class="id" href="{escape(href)}#{slug}" title="{escape(rule["id"])} in the rule catalog">{escape(rule["id"])}</a>',
        f'<span class="badge">{escape(status)}</span>',
        f'<span class="statement">{_inline(statement)}</span>',
        "</div>",
    ]
    body: list[str] = []
    for dev in rule.get("deviation", []):
        link = f' (<a href="{escape(dev["link"])}">link</a>)' if dev.get("link") else ""
        body.append(f"<p><strong>Known deviation</strong> (entry {dev['entry']}): {escape(dev['reason'])}{link}</p>")
    for message in rule.get("messages", []):
        body.append(f"<pre>{escape(message)}</pre>")
    for reason in rule.get("skip_reasons", []):
        body.append(f'<p class="note">skipped: {escape(reason)}</p>')
    if rule["tests"]:
        items = "".join(f"<li><code>{escape(t['nodeid'])}</code> — {escape(t['outcome'])}</li>" for t in rule["tests"])
        body.append(f'<details{" open" if status in ("failed", "errored") else ""}><summary>{len(rule["tests"])} '
                    f"test(s)</summary><ul>{items}</ul></details>")
    if body:
        parts.append('<div class="body">' + "".join(body) + "</div>")
    parts.append("</section>")
    return "".join(parts)


def render_html(report: Mapping[str, Any], *, catalog: str = "docs/rules.md") -> str:
    host = report["host"]
    summary = report["summary"]
    title = f"Tool conformance: {host.get('name') or host['spec']} {host.get('version') or ''}".strip()
    worst = next((s for s in _ORDER[:3] if summary.get(s)), "passed")
    verdict = "conforms" if report["ok"] else "does not conform"
    verdict_class = "passed" if report["ok"] else ("failed" if worst == "passed" else worst)
    counts = "".join(f'<span class="c-{s}">{summary[s]} {s}</span>' for s in _ORDER if summary.get(s))
    families: dict[str, list[Mapping[str, Any]]] = {}
    for rule in report["rules"]:
        families.setdefault(rule["family"], []).append(rule)
    titles = {r.family: r.family_title for r in all_rules().values()}
    sections = []
    for family, rules in families.items():
        sections.append(f'<h2 id="family-{family.lower()}">{escape(family)}: {escape(titles.get(family, ""))}</h2>')
        sections += [_rule_html(rule, catalog) for rule in rules]
    stale = report["deviations"]["stale"]
    stale_html = ""
    if stale:
        stale_html = ('<div class="stale"><strong>Stale deviations fail the run:</strong><ul>'
                      + "".join(f"<li>{escape(s['message'])}</li>" for s in stale) + "</ul></div>")
    out_of_scope = report.get("out_of_scope", [])
    scope_html = ""
    if out_of_scope:
        ids = ", ".join(escape(r["id"]) for r in out_of_scope)
        scope_html = f'<p class="note">Not in this run\'s scope ({escape(out_of_scope[0]["reason"])}): {ids}</p>'
    attention = [r for r in report["rules"] if r["status"] in ("failed", "errored", "deviation")]
    attention_html = ""
    if attention:
        attention_html = ('<div class="attention"><strong>Needs attention:</strong> ' + "".join(
            f'<a href="#{anchor(r["id"])}" style="color: {COLOURS[r["status"]][0]}">{escape(r["id"])} '
            f'({r["status"]})</a>' for r in attention) + "</div>")
    not_run = summary.get("not-run", 0)
    not_run_html = f'<p class="note">{not_run} rule(s) not run: {escape(NOT_RUN_REASON)}.</p>' if not_run else ""
    plugins = ", ".join(escape(p) for p in report["plugins"]) or "(none)"
    caps = ", ".join(escape(c) for c in host.get("capabilities") or []) or "(none)"
    return "\n".join([
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(title)}</title>",
        f"<style>{_CSS}{_status_css()}</style>",
        "</head><body>",
        "<header>",
        f"<h1>{escape(title)}</h1>",
        f'<span class="verdict v-{verdict_class}">{verdict}</span>',
        f'<p class="meta">host <code>{escape(host["spec"])}</code>; capabilities: {caps}; plugins: {plugins}; '
        f'kit {escape(report["kit"]["name"])} {escape(report["kit"]["version"])}; '
        f'{summary["rules"]} rules, {summary["tests"]} tests</p>',
        f'<div class="counts">{counts}</div>',
        (f'<p class="meta">host did not describe itself: {escape(host["error"])}</p>' if host.get("error") else ""),
        "</header>",
        "<main>",
        stale_html,
        attention_html,
        not_run_html,
        *sections,
        scope_html,
        f'<p class="note">Rule texts and fixes: <a href="{escape(catalog)}">rule catalog</a>.</p>',
        "</main></body></html>",
        "",
    ])
