"""The conformance report by rule: per-test outcomes in, one JSON document out.

Plain code, no hooks: :mod:`.hooks` feeds it the facts of each ``pytest_runtest_logreport``
report (on the xdist controller, or in a serial run) and asks for the document at the end. The
document's shape is ``report.schema.json``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from pytest_toolconformance.findings import shorten
from pytest_toolconformance.report.deviations import Deviation, Deviations, check_matches
from pytest_toolconformance.rules import UNCHECKED_PLUGIN_SIDE, Rule, all_rules, fix_advice

FORMAT = "pytest-toolconformance/report/1"
RULE_STATUSES = ("passed", "failed", "errored", "deviation", "blocked", "skipped", "not-applicable", "not-run")
TEST_OUTCOMES = ("passed", "failed", "errored", "deviation", "blocked", "skipped", "not-applicable")
#: A worse outcome wins, for a test over its phases and for a rule over its tests. A blocked test
#: (another rule broke first) and a test that does not apply decide nothing while any test decided.
_PRECEDENCE = ("failed", "errored", "deviation", "passed", "blocked", "skipped", "not-applicable")
#: Outcomes in which a check really ran against the host or plugin.
DECISIVE = ("passed", "failed", "errored", "deviation")
#: The contract with the checks: ``pytest.skip("not applicable: <reason>")`` and
#: ``pytest.skip("blocked by RULE-ID: <reason>")``.
NOT_APPLICABLE_PREFIX = "not applicable:"
_BLOCKED = re.compile(r"^blocked by (?P<rule>[A-Z]+-[0-9]+)\s*:\s*(?P<reason>.*)$", re.DOTALL)
FINDING_PROPERTY = "toolconformance-finding"
MESSAGE_LIMIT = 4000
#: Set by :mod:`.outcomes` on a call report whose failure judged no rule (a ``findings.Unjudged``: the
#: subject could not be checked), so the test is *errored*, not failed; it survives xdist's serialization.
ERRORED_ATTRIBUTE = "toolconformance_errored"
#: Carried by a failure the deviations file lists (its entry's key), turned xfail-like by :mod:`.outcomes`.
DEVIATION_PROPERTY = "toolconformance-deviation"
NOT_RUN_REASON = "no test of this rule ran: none was collected for it, or all were deselected (e.g. by -k)"
NOT_RUN_UNFINISHED = "no test of this rule ran: the run did not finish (see why)"


@dataclass(frozen=True)
class PhaseFacts:
    """What one pytest report says, reduced to what the report needs (all plain values)."""

    nodeid: str
    when: str  # setup, call, teardown
    outcome: str  # passed, failed, skipped (pytest's)
    rules: tuple[str, ...]
    message: str | None = None
    xfail_reason: str | None = None
    deviation: str | None = None  # the deviation entry's key, when a failure was turned into one
    errored: bool = False
    plugin: str | None = None  # the plugin (and tool) a plugin check is about
    tool: str | None = None


@dataclass
class TestRecord:
    nodeid: str
    rules: tuple[str, ...]
    plugin: str | None = None
    tool: str | None = None
    seen: set[str] = field(default_factory=set)
    messages: list[str] = field(default_factory=list)
    skip_reasons: list[str] = field(default_factory=list)
    blocked_by: list[str] = field(default_factory=list)
    deviation: str | None = None

    @property
    def outcome(self) -> str | None:
        return next((o for o in _PRECEDENCE if o in self.seen), None)

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"nodeid": self.nodeid, "outcome": self.outcome}
        if self.plugin is not None:
            out["plugin"] = self.plugin
        if self.tool is not None:
            out["tool"] = self.tool
        if self.messages:
            out["messages"] = list(self.messages)
        if self.skip_reasons:
            out["skip_reasons"] = list(self.skip_reasons)
        if self.blocked_by:
            out["blocked_by"] = list(self.blocked_by)
        if self.deviation:
            out["deviation"] = self.deviation
        return out


def _clip(text: str) -> str:
    return shorten(text.strip(), MESSAGE_LIMIT, verbatim=True)


_QUALIFIED_EXC = re.compile(r"^(?:[A-Za-z_][\w]*\.)+(?=[A-Za-z_]\w*(?:Error|Exception|Failure|Failed)\b)")


def failure_message(longrepr: Any, longreprtext: str = "") -> str:
    """The message of a failure: the exception line(s) pytest shows, without the module path."""
    crash = getattr(longrepr, "reprcrash", None)
    text = getattr(crash, "message", None) if crash is not None else None
    if not text:
        lines = [line for line in (longreprtext or str(longrepr or "")).splitlines() if line.strip()]
        errors = [line[2:] if line.startswith("E ") else line for line in lines if line.startswith("E ")]
        text = "\n".join(errors or lines[-20:])
    return _clip(_QUALIFIED_EXC.sub("", text.strip()))


def skip_reason(longrepr: Any) -> str:
    """The reason of a skip: pytest stores ``(path, lineno, "Skipped: reason")``."""
    if isinstance(longrepr, (tuple, list)) and len(longrepr) == 3:
        text = str(longrepr[2])
    else:
        text = str(longrepr or "")
    return _clip(text.removeprefix("Skipped: ")) or "skipped (no reason given)"


def facts_from_report(report: Any) -> PhaseFacts:
    """Reduce a pytest ``TestReport`` (serial, or deserialized on the xdist controller)."""
    props = list(getattr(report, "user_properties", None) or [])
    rules = tuple(dict.fromkeys(str(v) for k, v in props if k == "rule"))
    deviation = next((str(v) for k, v in props if k == DEVIATION_PROPERTY), None)
    message = None
    finding = next((str(v) for k, v in props if k == FINDING_PROPERTY), None)
    if (report.failed or deviation) and finding is not None and report.when == "call":
        message = _clip(finding)
    elif report.failed or deviation:
        message = failure_message(report.longrepr, getattr(report, "longreprtext", ""))
    elif report.skipped and not hasattr(report, "wasxfail"):
        message = skip_reason(report.longrepr)
    return PhaseFacts(
        nodeid=report.nodeid,
        when=report.when,
        outcome=report.outcome,
        rules=rules,
        message=message,
        xfail_reason=getattr(report, "wasxfail", None),
        deviation=deviation,
        errored=bool(getattr(report, ERRORED_ATTRIBUTE, False)),
        plugin=next((str(v) for k, v in props if k == "plugin"), None),
        tool=next((str(v) for k, v in props if k == "tool"), None),
    )


class OutcomeCollector:
    """Per-test outcomes, accumulated over the phases of each test."""

    def __init__(self) -> None:
        self.tests: dict[str, TestRecord] = {}

    def add(self, facts: PhaseFacts) -> None:
        if not facts.rules:
            return  # not a conformance test: the user's own tests do not decide any rule
        record = self.tests.get(facts.nodeid)
        if record is None:
            record = self.tests[facts.nodeid] = TestRecord(facts.nodeid, facts.rules, facts.plugin, facts.tool)
        if facts.outcome == "failed":
            kind = "failed" if facts.when == "call" and not facts.errored else "errored"
            record.seen.add(kind)
            if facts.message:
                record.messages.append(facts.message if facts.when == "call" else f"[{facts.when}] {facts.message}")
        elif facts.outcome == "skipped" and facts.deviation:
            record.seen.add("deviation")
            record.deviation = facts.deviation
            if facts.message:
                record.messages.append(facts.message)
        elif facts.outcome == "skipped":
            reason = f"xfail: {facts.xfail_reason}" if facts.xfail_reason is not None else facts.message
            reason = reason or "skipped (no reason given)"
            blocked = _BLOCKED.match(reason)
            if blocked:
                record.seen.add("blocked")
                record.blocked_by.append(blocked["rule"])
            elif reason.lower().startswith(NOT_APPLICABLE_PREFIX):
                record.seen.add("not-applicable")
            else:
                record.seen.add("skipped")
            record.skip_reasons.append(reason)
        elif facts.when == "call":
            record.seen.add("passed")

    def add_all(self, facts: Iterable[PhaseFacts]) -> None:
        for item in facts:
            self.add(item)

    def by_rule(self) -> dict[str, list[TestRecord]]:
        return by_rule(self.tests)


def by_rule(tests: Mapping[str, TestRecord]) -> dict[str, list[TestRecord]]:
    """The tests that reached an outcome, by each rule they check."""
    out: dict[str, list[TestRecord]] = {}
    for record in tests.values():
        if record.outcome is None:
            continue
        for rule in record.rules:
            out.setdefault(rule, []).append(record)
    return out


#: What a rule's status must be for it to block another rule's check: it fails in this run (a known
#: deviation is a declared failure; an errored rule could not be checked and is red already).
_BLOCKING = ("failed", "errored", "deviation")


def resolve_blocks(tests: Mapping[str, TestRecord], deviations: Deviations | None = None) -> dict[str, TestRecord]:
    """The tests with each block decided, now that every outcome of the run is known.

    A check skipped as *blocked by* RULE (a step labelled RULE failed) stays blocked only when RULE
    fails in this run, or is itself blocked by a rule that does. Otherwise the step's failure is a
    fault no check of RULE reports, and it counts against the rules the check is about: the test
    becomes failed (or a deviation, when the deviations file excuses that test), never dropped.
    The records given are not changed."""
    records = {
        key: replace(record, seen=set(record.seen), messages=list(record.messages), blocked_by=list(record.blocked_by))
        for key, record in tests.items()
    }
    while True:
        tested = by_rule(records)
        statuses = {rule: rule_status(of_rule) for rule, of_rule in tested.items()}
        failing = {rule for rule, status in statuses.items() if status in _BLOCKING}
        grown = True
        while grown:  # a rule whose every check is blocked by a failing rule blocks in turn
            blocked = {
                rule
                for rule, status in statuses.items()
                if status == "blocked"
                and rule not in failing
                and all(set(t.blocked_by) & failing for t in tested[rule] if t.outcome == "blocked")
            }
            failing |= blocked
            grown = bool(blocked)
        unjustified = [r for r in records.values() if r.outcome == "blocked" and not set(r.blocked_by) & failing]
        if not unjustified:
            return records
        # Blockers whose own checks are all decided first: turning a block into a failure may make
        # its rule fail, and that justifies the blocks it causes. A cycle of blocks is decided at once.
        undecided = {rule for rule, of_rule in tested.items() if any(t.outcome == "blocked" for t in of_rule)}
        final = [r for r in unjustified if not set(r.blocked_by) & undecided]
        for record in final or unjustified:
            _count_against_own_rules(record, deviations)


def _count_against_own_rules(record: TestRecord, deviations: Deviations | None) -> None:
    blockers = sorted(set(record.blocked_by))
    record.seen.discard("blocked")
    entry = deviations.for_test(record.nodeid, record.rules) if deviations is not None else None
    if entry is not None:
        record.seen.add("deviation")
        record.deviation = entry.key
    else:
        record.seen.add("failed")
    steps = "; ".join(r for r in record.skip_reasons if _BLOCKED.match(r))
    record.messages.append(
        _clip(
            f"[{', '.join(record.rules)}] a step labelled {', '.join(blockers)} failed, and "
            f"{', '.join(blockers)} does not fail in this run, so the failure is this check's own "
            f"(a check is blocked only by a rule that fails): {steps}"
        )
    )
    record.blocked_by = []
    record.skip_reasons = [r for r in record.skip_reasons if not _BLOCKED.match(r)]


def rule_status(tests: Sequence[TestRecord]) -> str:
    """failed > errored > deviation > passed > blocked > skipped > not-applicable; no test at all is
    ``not-run``, never passed."""
    outcomes = {t.outcome for t in tests}
    return next((o for o in _PRECEDENCE if o in outcomes), "not-run")


SCOPE_REASONS = {
    "host": "a plugin rule, and this run checks the host only (give --toolconformance-plugin=PATH to check a plugin)",
    "plugin": "a host rule, and this run checks plugins only (--toolconformance-suites=all checks the host too)",
}


def _in_scope(rule: Rule, suites: str, tested: Mapping[str, Any]) -> str | None:
    """Why a rule is outside this run, or None when the run could check it."""
    if rule.id in tested or suites == "all":
        return None
    if suites == "host" and not rule.host_rule:
        return SCOPE_REASONS["host"]
    if suites == "plugin" and not rule.plugin_rule:
        return SCOPE_REASONS["plugin"]
    if suites == "plugin" and rule.id in UNCHECKED_PLUGIN_SIDE:
        return UNCHECKED_PLUGIN_SIDE[rule.id]
    return None


def rule_text(rule: Rule) -> dict[str, Any]:
    """What the report says of a rule, so that it reads on its own: statement, reading, seed paragraphs, fix."""
    return {"statement": rule.statement, "reading": rule.reading, "seed": rule.refs, "fix": fix_advice(rule)}


def _rule_entry(rule: Rule, tests: list[TestRecord], deviations: Deviations | None) -> dict[str, Any]:
    status = rule_status(tests)
    decided = [t for t in tests if t.outcome == status]
    entry: dict[str, Any] = {
        "id": rule.id,
        "family": rule.family,
        "binds": rule.binds,
        **rule_text(rule),
        "status": status,
        "tests": [t.as_json() for t in sorted(tests, key=lambda t: t.nodeid)],
        "decided_by": sorted(t.nodeid for t in decided),
        "messages": [m for t in sorted(decided, key=lambda t: t.nodeid) for m in t.messages]
        if status in ("failed", "errored", "deviation")
        else [],
    }
    if status in ("skipped", "not-applicable", "blocked"):
        entry["skip_reasons"] = sorted({r for t in tests for r in t.skip_reasons})
    if status == "blocked":
        entry["blocked_by"] = sorted({r for t in tests for r in t.blocked_by})
    if status == "not-run":
        entry["reason"] = NOT_RUN_REASON
    if status == "deviation" and deviations is not None:
        keys = {t.deviation for t in decided}
        used = [e for e in deviations.entries if e.key in keys]
        entry["deviation"] = [e.as_json() for e in used]
    return entry


@dataclass(frozen=True)
class StaleDeviation:
    entry: Deviation
    message: str
    #: The one named check that is stale, where the entry names checks.
    check: str | None = None


def stale_deviations(
    deviations: Deviations | None, statuses: Mapping[str, str], tests: Mapping[str, TestRecord]
) -> tuple[list[StaleDeviation], list[StaleDeviation]]:
    """(stale, unused): entries whose rule or test now passes, and entries the run did not exercise."""
    stale: list[StaleDeviation] = []
    unused: list[StaleDeviation] = []
    if deviations is None:
        return stale, unused
    source = deviations.source
    for entry in deviations.entries:
        where = entry.describe(source)
        if entry.rule is not None and entry.checks:
            of_rule = [t for t in tests.values() if entry.rule in t.rules]
            for check in entry.checks:
                named = {t.outcome for t in of_rule if check_matches(check, t.nodeid)}
                if "passed" in named and not named & {"failed", "deviation", "errored"}:
                    stale.append(
                        StaleDeviation(
                            entry,
                            f"stale deviation: {where}: its check {check} now passes "
                            f"(whatever else of {entry.rule} fails); remove it from checks",
                            check,
                        )
                    )
                elif not named & {"failed", "deviation", "errored"}:
                    unused.append(
                        StaleDeviation(entry, f"unused deviation: {where}: its check {check} did not fail in this run")
                    )
            continue
        if entry.rule is not None:
            status = statuses.get(entry.rule, "not-run")
            if status == "passed":
                stale.append(
                    StaleDeviation(entry, f"stale deviation: {where}: {entry.rule} now passes; delete this entry")
                )
            elif status in ("not-run", "skipped", "not-applicable", "blocked"):
                unused.append(
                    StaleDeviation(entry, f"unused deviation: {where}: {entry.rule} was {status} in this run")
                )
            continue
        matched = [t for t in tests.values() if entry.test is not None and entry.matches_test(t.nodeid)]
        outcomes = {t.outcome for t in matched}
        if "passed" in outcomes and not outcomes & {"failed", "deviation"}:
            stale.append(StaleDeviation(entry, f"stale deviation: {where}: the test now passes; delete this entry"))
        elif not outcomes & {"failed", "deviation", "errored"}:
            unused.append(StaleDeviation(entry, f"unused deviation: {where}: no such test failed in this run"))
    return stale, unused


def build_report(
    collector: OutcomeCollector,
    *,
    kit_version: str,
    host: Mapping[str, Any],
    plugins: Sequence[str],
    deviations: Deviations | None = None,
    run: Mapping[str, Any] | None = None,
    rules: Mapping[str, Rule] | None = None,
    suites: str = "all",
    incomplete: Sequence[str] = (),
) -> dict[str, Any]:
    """The report document (see ``report.schema.json``). ``incomplete`` says why the run did not finish
    (interrupted, cut short, collection errors); such a run, or one in which no check ran, is not ok."""
    rules = rules if rules is not None else all_rules()
    tests = resolve_blocks(collector.tests, deviations)
    tested = by_rule(tests)
    entries: list[dict[str, Any]] = []
    out_of_scope: list[dict[str, str]] = []
    for rule in rules.values():
        why = _in_scope(rule, suites, tested)
        if why is not None:
            out_of_scope.append({"id": rule.id, "reason": why})
            continue
        entries.append(_rule_entry(rule, tested.get(rule.id, []), deviations))
    unknown = sorted(set(tested) - set(rules))
    statuses = {e["id"]: e["status"] for e in entries}
    stale, unused = stale_deviations(deviations, statuses, tests)
    summary = {status: sum(1 for e in entries if e["status"] == status) for status in RULE_STATUSES}
    if incomplete:
        for entry in entries:
            if entry["status"] == "not-run":
                entry["reason"] = NOT_RUN_UNFINISHED
    why = list(incomplete)
    if not any(t.outcome in DECISIVE for t in tests.values()):
        # An unfinished run says why already; guessing "none collected" beside it misleads.
        why.append(
            "no check finished: nothing was verified"
            if incomplete
            else "no check ran (none collected, all deselected or skipped): nothing was verified"
        )
    if summary["failed"] or summary["errored"]:
        why.append(f"{summary['failed']} rule(s) failed, {summary['errored']} errored")
    if stale:
        why.append(f"{len(stale)} stale deviation(s)")
    ok = not why
    return {
        "format": FORMAT,
        "kit": {"name": "pytest-toolconformance", "version": kit_version},
        "host": dict(host),
        "plugins": list(plugins),
        "run": dict(run or {}),
        "ok": ok,
        "why": why,
        "summary": {"rules": len(entries), **summary, "tests": len(tests)},
        "rules": entries,
        "out_of_scope": out_of_scope,
        "unknown_rules": unknown,
        "deviations": {
            "file": deviations.source if deviations is not None else None,
            "entries": [e.as_json() for e in deviations.entries] if deviations is not None else [],
            "stale": [
                {**s.entry.as_json(), "message": s.message, **({"check": s.check} if s.check else {})} for s in stale
            ],
            "unused": [{**s.entry.as_json(), "message": s.message} for s in unused],
        },
    }


def write_json(report: Mapping[str, Any], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", "utf-8")


def sibling(path: Path, suffix: str) -> Path:
    """``report.json`` -> ``report.md``; any other name gets the suffix appended, never overwritten."""
    return path.with_suffix(suffix) if path.suffix.lower() == ".json" else path.with_name(path.name + suffix)


@cache
def report_schema() -> dict[str, Any]:
    return json.loads(resources.files(__package__).joinpath("report.schema.json").read_text("utf-8"))


def verdict_line(report: Mapping[str, Any]) -> str:
    """The one line a CI gate shows, saying how much was checked: "conforms on 11 of 56 rules (45
    skipped: ...)"; a run that does not conform says why."""
    summary = report["summary"]
    if not report["ok"]:
        return "does not conform: " + "; ".join(report["why"])
    held = summary["passed"] + summary["deviation"]
    line = f"conforms on {held} of {summary['rules']} rules in scope"
    if summary["deviation"]:
        line += f" ({summary['deviation']} as known deviations)"
    unchecked = [(summary[s], s) for s in ("skipped", "not-applicable", "blocked", "not-run") if summary[s]]
    if unchecked:
        line += "; not checked: " + ", ".join(f"{n} {s}" for n, s in unchecked)
        reasons = sorted(
            {r for e in report["rules"] if e["status"] == "skipped" for r in e.get("skip_reasons", [])[:1]}
        )
        if reasons:
            line += f" (e.g. {reasons[0]})"
    return line
