"""The report as one self-contained HTML page: inline CSS, no scripts, no external assets.

Rules are grouped by family and coloured by status; each carries its own text, the seed
paragraphs it comes from and its fix, so the page reads the same wherever it is opened (an
uploaded artifact, a mail attachment). A status filter (``report.html#only-failed``) and a
per-plugin, per-tool view (``report.html#by-tool``) work without scripts: links to an empty
target element and CSS ``:target`` selectors, so a filtered view is also a link one can share.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from html import escape
from typing import Any

from pytest_toolconformance.report.markdown import ORDER, plugin_names, verdict
from pytest_toolconformance.rules import all_rules, anchor

#: Status colours; "failed" is a saturated red so a failure is unmistakable at a glance (and in a screenshot).
COLOURS: dict[str, tuple[str, str]] = {  # status -> (solid, tint)
    "passed": ("#1a7f37", "#e6f4ea"),
    "failed": ("#d0021b", "#fde2e4"),
    "errored": ("#8b1a5a", "#f8e1ee"),
    "deviation": ("#b26b00", "#fff4d6"),
    "blocked": ("#6f42c1", "#efe9fb"),
    "skipped": ("#57606a", "#eef1f4"),
    "not-applicable": ("#6e7781", "#f3f4f6"),
    "not-run": ("#8c959f", "#f6f8fa"),
}

_CSS = """
* { box-sizing: border-box; }
body { font: 14px/1.45 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 0; color: #1f2328; background: #fff; }
header { padding: 16px 24px; border-bottom: 1px solid #d0d7de; }
header h1 { margin: 0 0 4px; font-size: 22px; }
.verdict { display: inline-block; padding: 2px 10px; border-radius: 12px; color: #fff; font-weight: 600; }
.why { margin: 6px 0; color: #d0021b; font-weight: 600; }
.meta { color: #57606a; margin: 4px 0; }
.counts span { display: inline-block; margin: 4px 6px 0 0; padding: 2px 8px; border-radius: 10px; color: #fff; font-weight: 600; }
.target { position: absolute; top: 0; }
nav.controls { margin-top: 10px; display: flex; flex-wrap: wrap; gap: 6px; align-items: center; }
nav.controls a { padding: 2px 10px; border: 1px solid #d0d7de; border-radius: 12px; background: #f6f8fa; color: #1f2328; text-decoration: none; }
nav.controls .sep { color: #8c959f; margin: 0 6px; }
main { padding: 8px 24px 32px; }
h2 { font-size: 17px; margin: 22px 0 8px; border-bottom: 1px solid #d0d7de; padding-bottom: 4px; }
.rule { border: 1px solid #d0d7de; border-left-width: 8px; border-radius: 6px; margin: 8px 0; overflow: hidden; }
.rule > .head { display: flex; gap: 10px; align-items: baseline; padding: 6px 10px; }
.rule .id { font-weight: 700; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; min-width: 7em; color: inherit; }
.rule .badge { padding: 1px 8px; border-radius: 10px; color: #fff; font-size: 12px; font-weight: 700; text-transform: uppercase; }
.rule .statement { flex: 1; }
.rule .body { padding: 4px 10px 8px; }
.rule ul { margin: 4px 0; padding-left: 20px; }
.rule pre, .by-tool pre { white-space: pre-wrap; word-break: break-word; background: #fff; border: 1px solid #d0d7de; border-radius: 4px; padding: 6px 8px; margin: 4px 0; font-size: 12px; max-height: 18em; overflow: auto; }
.rule.status-failed > .head { background: #d0021b; color: #fff; }
.rule.status-failed > .head .badge { background: #fff; color: #d0021b; }
.rule.status-not-run > .head { padding: 3px 10px; color: #57606a; }
.attention { margin: 12px 0 0; padding: 8px 12px; border: 1px solid #d0d7de; border-radius: 6px; }
.attention a { font-weight: 700; margin-right: 8px; }
table.by-tool { border-collapse: collapse; width: 100%; margin: 6px 0 16px; }
table.by-tool th, table.by-tool td { border: 1px solid #d0d7de; padding: 4px 8px; text-align: left; vertical-align: top; }
table.by-tool th { background: #ddf4ff; }
table.by-tool td.outcome { font-weight: 700; white-space: nowrap; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 92%; }
.note { color: #57606a; font-size: 12px; }
.stale { border: 2px solid #d0021b; background: #fde2e4; padding: 8px 12px; border-radius: 6px; }
.view-tool, #by-tool:target ~ main .view-rule { display: none; }
#by-tool:target ~ main .view-tool { display: block; }
"""

_CODE = re.compile(r"`([^`]+)`")


def _inline(text: str) -> str:
    """Escape, and render the rule texts' `code` spans."""
    return _CODE.sub(r"<code>\1</code>", escape(text))


def _status_css(shown: list[str]) -> str:
    rules = []
    for status, (solid, tint) in COLOURS.items():
        rules.append(f".rule.status-{status} {{ border-left-color: {solid}; background: {tint}; }}")
        rules.append(
            f".rule.status-{status} .badge, .counts .c-{status}, .verdict.v-{status} {{ background: {solid}; }}"
        )
        rules.append(f"tr.status-{status} td.outcome {{ color: {solid}; }}")
    for status in shown:
        # The filter: only rules (and plugin/tool rows) of the chosen status; a family with none of them goes.
        rules.append(
            f"#only-{status}:target ~ main .rule:not(.status-{status}), "
            f"#only-{status}:target ~ main tr.row:not(.status-{status}), "
            f"#only-{status}:target ~ main .family:not(:has(.status-{status})) {{ display: none; }}"
        )
        rules.append(
            f"#only-{status}:target ~ header a[href='#only-{status}'] {{ background: {COLOURS[status][0]}; "
            "color: #fff; border-color: transparent; }"
        )
    rules.append("#by-tool:target ~ header a[href='#by-tool'] { background: #1f2328; color: #fff; }")
    return "\n".join(rules)


def _rule_html(rule: Mapping[str, Any]) -> str:
    status = rule["status"]
    slug = anchor(rule["id"])
    parts = [
        f'<section class="rule status-{status}" id="{slug}" data-rule="{escape(rule["id"])}" data-status="{status}">',
        '<div class="head">',
        f'<a class="id" href="#{slug}">{escape(rule["id"])}</a>',
        f'<span class="badge">{escape(status)}</span>',
        f'<span class="statement">{_inline(rule.get("statement", ""))}</span>',
        "</div>",
    ]
    body: list[str] = []
    if rule.get("reading"):
        body.append(f"<p><strong>Reading:</strong> {_inline(rule['reading'])}</p>")
    if status in ("failed", "errored", "deviation", "blocked"):
        body.append(
            f'<p class="note">In the seam\'s text: {escape(rule.get("seed", ""))}. '
            f"<strong>Fix:</strong> {_inline(rule.get('fix', ''))}</p>"
        )
    for dev in rule.get("deviation", []):
        link = f' (<a href="{escape(dev["link"])}">link</a>)' if dev.get("link") else ""
        body.append(f"<p><strong>Known deviation</strong> (entry {dev['entry']}): {escape(dev['reason'])}{link}</p>")
    if rule.get("blocked_by"):
        body.append(f"<p><strong>Blocked by</strong> {escape(', '.join(rule['blocked_by']))}: fix that rule first.</p>")
    for message in rule.get("messages", []):
        body.append(f"<pre>{escape(message)}</pre>")
    for reason in rule.get("skip_reasons", []):
        body.append(f'<p class="note">{escape(status)}: {escape(reason)}</p>')
    if rule.get("reason"):
        body.append(f'<p class="note">{escape(rule["reason"])}</p>')
    if rule["tests"]:
        items = "".join(f"<li><code>{escape(t['nodeid'])}</code> — {escape(t['outcome'])}</li>" for t in rule["tests"])
        body.append(
            f"<details{' open' if status in ('failed', 'errored') else ''}><summary>{len(rule['tests'])} "
            f"test(s)</summary><ul>{items}</ul></details>"
        )
    if body:
        parts.append('<div class="body">' + "".join(body) + "</div>")
    parts.append("</section>")
    return "".join(parts)


def _by_tool(report: Mapping[str, Any]) -> str:
    """Per plugin, per tool: every plugin check's outcome, with the finding where it failed."""
    rows: dict[str, dict[str, list[tuple[Mapping[str, Any], Mapping[str, Any]]]]] = {}
    for rule in report["rules"]:
        for test in rule["tests"]:
            if test.get("plugin"):
                rows.setdefault(test["plugin"], {}).setdefault(test.get("tool") or "(the plugin)", []).append(
                    (rule, test)
                )
    if not rows:
        return ""
    out = ['<div class="view-tool">']
    for plugin, tools in rows.items():
        out.append(
            f'<section class="family"><h2>Plugin {escape(plugin)}</h2><table class="by-tool">'
            "<tr><th>tool</th><th>rule</th><th>outcome</th><th>finding</th></tr>"
        )
        for tool, entries in sorted(tools.items()):
            for rule, test in sorted(entries, key=lambda e: e[0]["id"]):
                messages = "".join(f"<pre>{escape(m)}</pre>" for m in test.get("messages", []))
                out.append(
                    f'<tr class="row status-{escape(test["outcome"])}"><td>{escape(tool)}</td>'
                    f'<td><a href="#{anchor(rule["id"])}">{escape(rule["id"])}</a></td>'
                    f'<td class="outcome">{escape(test["outcome"])}</td><td>{messages}</td></tr>'
                )
        out.append("</table></section>")
    out.append("</div>")
    return "".join(out)


def render_html(report: Mapping[str, Any]) -> str:
    host = report["host"]
    summary = report["summary"]
    checked_host = host.get("checked") is not False
    subject = (
        (host.get("name") or host["spec"]) + (f" {host['version']}" if host.get("version") else "")
        if checked_host
        else f"{', '.join(plugin_names(report))} ({', '.join(report['plugins'])})"
    )
    title = f"Tool conformance: {subject}"
    worst = next((s for s in ORDER[:3] if summary.get(s)), "failed")
    verdict_class = "passed" if report["ok"] else worst
    counts = "".join(f'<span class="c-{s}">{summary[s]} {s}</span>' for s in ORDER if summary.get(s))
    shown = [s for s in ORDER if summary.get(s)]
    by_tool = _by_tool(report)
    controls = [f'<span class="target" id="only-{s}"></span>' for s in shown]
    labels = ['<a href="#all">all</a>'] + [f'<a href="#only-{s}">{s} ({summary[s]})</a>' for s in shown]
    if by_tool:
        controls.append('<span class="target" id="by-tool"></span>')
        labels += [
            '<span class="sep">view:</span>',
            '<a href="#all">by rule</a>',
            '<a href="#by-tool">by plugin and tool</a>',
        ]
    families: dict[str, list[Mapping[str, Any]]] = {}
    for rule in report["rules"]:
        families.setdefault(rule["family"], []).append(rule)
    titles = {r.family: r.family_title for r in all_rules().values()}
    sections = ['<div class="view-rule">']
    for family, rules in families.items():
        sections.append(
            f'<section class="family" id="family-{family.lower()}">'
            f"<h2>{escape(family)}: {escape(titles.get(family, ''))}</h2>"
            + "".join(_rule_html(rule) for rule in rules)
            + "</section>"
        )
    sections.append("</div>")
    stale = report["deviations"]["stale"]
    stale_html = ""
    if stale:
        stale_html = (
            '<div class="stale"><strong>Stale deviations fail the run:</strong><ul>'
            + "".join(f"<li>{escape(s['message'])}</li>" for s in stale)
            + "</ul></div>"
        )
    by_reason: dict[str, list[str]] = {}
    for entry in report.get("out_of_scope", []):
        by_reason.setdefault(entry["reason"], []).append(entry["id"])
    scope_html = "".join(
        f'<p class="note">Out of scope ({escape(reason)}): {escape(", ".join(ids))}</p>'
        for reason, ids in by_reason.items()
    )
    attention = [r for r in report["rules"] if r["status"] in ("failed", "errored", "deviation", "blocked")]
    attention_html = ""
    if attention:
        attention_html = (
            '<div class="attention"><strong>Needs attention:</strong> '
            + "".join(
                f'<a href="#{anchor(r["id"])}" style="color: {COLOURS[r["status"]][0]}">{escape(r["id"])} '
                f"({r['status']})</a>"
                for r in attention
            )
            + "</div>"
        )
    why_html = "".join(f'<p class="why">{escape(why)}</p>' for why in report.get("why", []))
    run = report.get("run", {})
    plugins = ", ".join(escape(p) for p in report["plugins"]) or "(none)"
    caps = ", ".join(escape(c) for c in host.get("capabilities") or []) or "(none)"
    host_meta = (
        f"host <code>{escape(host['spec'])}</code>; capabilities: {caps}; "
        if checked_host
        else "plugin checks only (the reference host runs the plugins); "
    )
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en"><head><meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f"<title>{escape(title)}</title>",
            f"<style>{_CSS}{_status_css(shown)}</style>",
            "</head><body>",
            *controls,
            "<header>",
            f"<h1>{escape(title)}</h1>",
            f'<span class="verdict v-{verdict_class}">{verdict(report)}</span>',
            why_html,
            f'<p class="meta">{host_meta}plugins: {plugins}; '
            f"kit {escape(report['kit']['name'])} {escape(report['kit']['version'])}; "
            f"{summary['rules']} rules in scope, {summary['tests']} tests</p>",
            (f'<p class="meta">{escape(run["seed_sentence"])}</p>' if run.get("seed_sentence") else ""),
            f'<div class="counts">{counts}</div>',
            (f'<p class="meta">host did not describe itself: {escape(host["error"])}</p>' if host.get("error") else ""),
            f'<nav class="controls"><span class="sep">show:</span>{"".join(labels)}</nav>',
            "</header>",
            "<main>",
            stale_html,
            attention_html,
            *sections,
            by_tool,
            scope_html,
            "</main></body></html>",
            "",
        ]
    )
