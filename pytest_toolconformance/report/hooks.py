"""The report's pytest plugin: outcomes by rule, the known deviations' update, the JSON, Markdown and
HTML reports, and the rule summary in the terminal.

Thin on purpose: the decisions live in :mod:`.outcomes` (what a check's outcome is), :mod:`.deviations`
and :mod:`.model`, the pages in :mod:`.markdown` and :mod:`.html`. It reads only what pytest recorded
and the facts plugin.py hands it in ``pytest_configure`` (:class:`RunFacts`, as junitxml's ``LogXML``
is handed its own): it imports no host or plugin code. Under pytest-xdist only the controller collects
outcomes (from ``pytest_runtest_logreport``, which carries ``user_properties``) and writes the report,
once.
"""

from __future__ import annotations

import os
import platform
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from pytest_toolconformance.findings import UNJUDGED_PROPERTY
from pytest_toolconformance.options import Settings, resolve_path
from pytest_toolconformance.report import deviations as deviations_file
from pytest_toolconformance.report.html import render_html
from pytest_toolconformance.report.markdown import render_markdown
from pytest_toolconformance.report.model import (
    NOT_APPLICABLE_PREFIX,
    RULE_STATUSES,
    OutcomeCollector,
    build_report,
    facts_from_report,
    sibling,
    verdict_line,
    write_json,
)
from pytest_toolconformance.report.outcomes import RunDeviations
from pytest_toolconformance.version import __version__

PLUGIN_NAME = "toolconformance-reporting"
UNFINISHED = (
    "the run did not finish: this is the report written when it started (it was killed, or its output pipe closed)"
)


@dataclass(frozen=True)
class RunFacts:
    """What the report says of the run besides its checks' outcomes, asked of the seam sides by plugin.py."""

    #: The host under test as it described itself (``spec``, ``name``, ``version``, ``capabilities``, and
    #: ``error`` where it could not, ``checked`` False in a run without host suites).
    host: dict[str, Any] = field(default_factory=dict)
    #: A plugin run's: how plugins are confined here, and each plugin's confinement by its spec.
    sandbox: dict[str, Any] | None = None
    #: A plugin run's: which host's plugin API each plugin (by its spec) is loaded with.
    loaded_as: dict[str, str] | None = None


class ReportingPlugin:
    """Registered by plugin.py when the kit is on."""

    def __init__(
        self, config: pytest.Config, settings: Settings, deviations: RunDeviations | None, facts: RunFacts
    ) -> None:
        self.config = config
        self.settings = settings
        self.facts = facts
        self.is_worker = hasattr(config, "workerinput")
        self.deviations = deviations.deviations if deviations is not None else None
        self.deviations_path = deviations.path if deviations is not None else None
        self.report_path = resolve_path(config, "toolconformance_report", settings.report) if settings.report else None
        self.collector = OutcomeCollector()
        self.report: dict[str, Any] | None = None
        self.written: list[Path] = []
        self.updated: str | None = None
        self.collect_errors = 0
        self.unjudged = 0  # plugin checks the run's budget left unjudged
        self.started = time.time()

    # -- the controller (or the only process) -------------------------------------------------

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        if not self.is_worker:
            self.started = time.time()
            if self.report_path is not None:
                # Replaced at the end; a run that dies before (a closed output pipe, a kill) leaves a
                # report that says so, never an earlier run's green one.
                self._write(self._build(session, [UNFINISHED]), self.report_path, summary=False)

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.collect_errors += 1

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if not self.is_worker:
            self.collector.add(facts_from_report(report))
            if report.when == "call" and any(key == UNJUDGED_PROPERTY for key, _ in report.user_properties):
                self.unjudged += 1

    def _incomplete(self, session: pytest.Session, exitstatus: int) -> list[str]:
        """Why the run did not finish as asked (an unfinished run never reports that it conforms)."""
        why: list[str] = []
        if self.collect_errors:
            why.append(f"{self.collect_errors} error(s) during collection: some checks were never collected")
        elif exitstatus == pytest.ExitCode.INTERRUPTED:
            why.append("interrupted (Ctrl-C, KeyboardInterrupt or pytest.exit) before every check ran")
        if exitstatus == pytest.ExitCode.INTERNAL_ERROR:
            # Said as the report written at the start says it: whether a closed pipe ends the run here
            # or kills it before this hook is a race, and the two must read alike.
            why.append("the run did not finish: it crashed (an internal error, e.g. its output pipe was closed)")
        if self.unjudged:
            why.append(
                f"the plugin run's budget of {self.settings.plugin_budget:g} s (--toolconformance-plugin-"
                f"budget) was spent: {self.unjudged} check(s) were not judged (errored), so the run did not "
                "finish judging"
            )
        for stop in (session.shouldfail, session.shouldstop):
            if stop:
                why.append(
                    f"cut short ({stop if isinstance(stop, str) else 'stopped early'}): "
                    "the checks after the stop never ran"
                )
        return why

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if self.is_worker:
            return
        report = self._build(session, self._incomplete(session, int(exitstatus)))
        if self.settings.deviations_update:
            self._update_deviations(report)
        if not report["ok"] and session.exitstatus == pytest.ExitCode.OK:
            nothing_ran = all(w.startswith("no check ran") for w in report["why"])
            session.exitstatus = pytest.ExitCode.NO_TESTS_COLLECTED if nothing_ran else pytest.ExitCode.TESTS_FAILED
        report["run"]["exitstatus"] = int(session.exitstatus)
        self.report = report
        if self.report_path is not None:
            self._write(report, self.report_path)

    def _build(self, session: pytest.Session, incomplete: list[str]) -> dict[str, Any]:
        return build_report(
            self.collector,
            kit_version=__version__,
            host=self.facts.host,
            plugins=self.settings.plugins,
            deviations=self.deviations,
            run=self._run_facts(session),
            suites=self.settings.suites,
            incomplete=incomplete,
        )

    def _update_deviations(self, report: dict[str, Any]) -> None:
        assert self.deviations is not None and self.deviations_path is not None
        failed = [r["id"] for r in report["rules"] if r["status"] == "failed"]
        stale_checks: dict[int, set[str]] = {}
        for s in report["deviations"]["stale"]:
            stale_checks.setdefault(s["entry"], set()).update([s["check"]] if "check" in s else [])
        stale = [e for e in self.deviations.entries if e.index in stale_checks]
        entries, added, removed = deviations_file.updated(self.deviations, failed, stale, stale_checks)
        self.deviations_path.parent.mkdir(parents=True, exist_ok=True)
        self.deviations_path.write_text(
            deviations_file.rewrite(self._deviations_text(), self.deviations_path, self.deviations, entries, added),
            "utf-8",
        )
        # What the update removed is no longer stale: the file is right again, and this run is judged on
        # its rules alone (it said "stale ... delete this entry" beside "1 stale removed", and exited 1).
        if report["deviations"]["stale"]:
            report["deviations"]["stale"] = []
            report["why"] = [why for why in report["why"] if not why.endswith("stale deviation(s)")]
            report["ok"] = not report["why"]
        self.updated = (
            f"deviations: wrote {self.deviations_path}: {len(added)} added"
            + (f" ({', '.join(added)}: write their reasons, the kit refuses the placeholder)" if added else "")
            + f", {len(removed)} stale removed"
            + (f" ({', '.join(removed)})" if removed else "")
        )

    def _deviations_text(self) -> str:
        assert self.deviations_path is not None
        return self.deviations_path.read_text("utf-8") if self.deviations_path.exists() else ""

    def _run_facts(self, session: pytest.Session) -> dict[str, Any]:
        workers = getattr(self.config.option, "numprocesses", None)
        return {
            "started": datetime.fromtimestamp(self.started, UTC).isoformat(timespec="seconds"),
            "duration_s": round(time.time() - self.started, 3),
            "pytest": pytest.__version__,
            "python": platform.python_version(),
            "workers": workers if isinstance(workers, int) else 0,
            "args": [str(a) for a in self.config.invocation_params.args],
            "suites": self.settings.suites,
            "seed": self.settings.seed,
            "seed_sentence": self.settings.seed_sentence(),
            "ruleset": self.settings.ruleset,
            **(
                {"sandbox": self.facts.sandbox, "loaded_as": self.facts.loaded_as}
                if self.settings.plugin_suites
                else {}
            ),
        }

    def _write(self, report: dict[str, Any], path: Path, *, summary: bool = True) -> None:
        write_json(report, path)
        md_path, html_path = sibling(path, ".md"), sibling(path, ".html")
        md_path.write_text(render_markdown(report), "utf-8")
        html_path.write_text(render_html(report), "utf-8")
        self.written = [path, md_path, html_path]
        step_summary = os.environ.get("GITHUB_STEP_SUMMARY")
        if summary and step_summary:
            # Appended, not written: several steps (or several runs in one step) share the summary.
            with open(step_summary, "a", encoding="utf-8") as out:
                out.write(render_markdown(report) + "\n")
            self.written.append(Path(step_summary))

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        report = self.report
        if self.is_worker or report is None:
            return
        summary = report["summary"]
        counts = ", ".join(f"{summary[s]} {s}" for s in RULE_STATUSES if summary[s])
        write = terminalreporter.write_line
        terminalreporter.write_sep("-", "toolconformance: rules")
        write(f"{summary['rules']} rules in scope: {counts or 'none ran'}")
        for rule in report["rules"]:
            if rule["status"] in ("failed", "errored"):
                write(f"{rule['status'].upper()} {rule['id']}: {len(rule['decided_by'])} test(s)", red=True)
            elif rule["status"] == "deviation":
                reasons = "; ".join(d["reason"] for d in rule.get("deviation", []))
                write(f"DEVIATION {rule['id']} (known): {reasons}", yellow=True)
            elif rule["status"] == "blocked":
                write(f"BLOCKED {rule['id']}: by {', '.join(rule['blocked_by'])} (fix that rule first)", yellow=True)
            elif rule["status"] == "not-applicable":
                reasons = [
                    r[len(NOT_APPLICABLE_PREFIX) :].strip() if r.lower().startswith(NOT_APPLICABLE_PREFIX) else r
                    for r in rule["skip_reasons"]
                ]
                write(f"NOT APPLICABLE {rule['id']}: {'; '.join(reasons)}")
        scope = report["out_of_scope"]
        if scope:
            by_reason: dict[str, list[str]] = {}
            for entry in scope:
                by_reason.setdefault(entry["reason"], []).append(entry["id"])
            groups = sorted(by_reason.items(), key=lambda group: -len(group[1]))
            if len(groups) == 1:
                write(f"{len(scope)} rules out of scope: {groups[0][0]}")
            else:
                write(
                    f"{len(scope)} rules out of scope: "
                    + "; ".join(
                        f"{reason} ({len(ids)} rules)" if len(ids) > 3 else f"{', '.join(ids)}: {reason}"
                        for reason, ids in groups
                    )
                )
        for note in report["deviations"]["unused"]:
            write(f"note: {note['message']}", yellow=True)
        for stale in report["deviations"]["stale"]:
            write(f"ERROR: {stale['message']}", red=True, bold=True)
        write(f"toolconformance: {report['run']['seed_sentence']}")
        write(
            f"toolconformance: {verdict_line(report)}",
            **({"green": True} if report["ok"] else {"red": True}),
            bold=True,
        )
        if self.updated:
            write(self.updated, yellow=True)
        if self.written:
            write("report: " + ", ".join(str(p) for p in self.written))
