"""The pytest hooks of CI gating: known deviations, the report by rule, its Markdown and HTML pages.

Thin on purpose: the decisions live in :mod:`.deviations` and :mod:`.model`, the pages in
:mod:`.markdown` and :mod:`.html`. A failure that is a :class:`~pytest_toolconformance.findings.Finding`
is shown as the finding and its rerun line only (the kit's traceback with ``--tb=long``). Under
pytest-xdist every worker turns declared failures into xfail-like outcomes where the test runs
(``pytest_runtest_makereport``), and only the controller collects outcomes (from
``pytest_runtest_logreport``, which carries ``user_properties``) and writes the report, once.
"""

from __future__ import annotations

import os
import platform
import re
import shlex
import time
from collections.abc import Generator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from pytest_toolconformance._proc import confinement_summary
from pytest_toolconformance.findings import Finding, StepOutOfTime, exception_in, finding_in
from pytest_toolconformance.host.connect import DEFAULT_HOST
from pytest_toolconformance.options import Settings, resolve_path
from pytest_toolconformance.plugins.budget import UNJUDGED_PROPERTY
from pytest_toolconformance.report import deviations as deviations_file
from pytest_toolconformance.report.deviations import Deviations, DeviationsError, load_deviations
from pytest_toolconformance.report.html import render_html
from pytest_toolconformance.report.markdown import render_markdown
from pytest_toolconformance.report.model import (
    DEVIATION_PROPERTY,
    ERRORED_ATTRIBUTE,
    FINDING_PROPERTY,
    NOT_APPLICABLE_PREFIX,
    RULE_STATUSES,
    OutcomeCollector,
    build_report,
    facts_from_report,
    sibling,
    verdict_line,
    write_json,
)
from pytest_toolconformance.version import __version__

PLUGIN_NAME = "toolconformance-reporting"
UNFINISHED = (
    "the run did not finish: this is the report written when it started (it was killed, or its output pipe closed)"
)


def rerun_line(settings: Settings, config: pytest.Config, item: pytest.Item, finding: Finding) -> str:
    """A command to paste that checks this finding again, with the same generated cases."""
    return _rerun(settings, config, item, finding.rule, finding.subject)


def _rerun(settings: Settings, config: pytest.Config, item: pytest.Item, rule: str, subject: str) -> str:
    # Every word pastes into a shell as printed: a host spec is a command line of its own.
    parts = ["pytest"]
    if subject == "host":
        parts.append("--toolconformance")
        if settings.host != DEFAULT_HOST:
            parts.append(shlex.quote(f"--toolconformance-host={settings.host}"))
    elif config.getoption("toolconformance_plugin", None) is not None:
        parts += [shlex.quote(f"--toolconformance-plugin={spec}") for spec in settings.plugins]
    parts.append(f"--toolconformance-seed={settings.seed}")
    props = dict(item.user_properties)
    if subject == "host" and getattr(item, "callspec", None) is not None and _K_IDENT.fullmatch(item.name):
        # One parametrized host check (a scenario case): that item by its whole name with its closing
        # bracket, not every case of the rule (and never by its path in site-packages).
        parts.append(f'-k "{item.name}"')
        return " ".join(parts)
    param_id = item.name.partition("[")[2]
    if subject != "host" and param_id.startswith(f"{rule}-") and _K_IDENT.fullmatch(param_id):
        # A plugin check's id with its closing bracket ("ERR-3-myplugin-Fetch]"): that tool's checks of the
        # rule alone, not those of a tool whose name starts the same (FetchAll) or of another plugin.
        parts.append(f'-k "{param_id}"')
        return " ".join(parts)
    name = props.get("tool") or props.get("plugin") or getattr(item, "originalname", None) or item.name
    expression = f"{rule} and {name}"
    parts.append(f'-k "{expression}"' if _K_IDENT.fullmatch(name) else f"-k {shlex.quote(expression)}")
    return " ".join(parts)


#: What pytest's -k takes as one name (a tool name with a space or a quote cannot be one).
_K_IDENT = re.compile(r"[\w:+.\-\[\]\\/]+")


def _host_info(adapter: Any, spec: str) -> dict[str, Any]:
    out: dict[str, Any] = {"spec": spec, "name": None, "version": None, "capabilities": []}
    if adapter is None:
        out["error"] = "no adapter was loaded"
        return out
    try:
        info = adapter.info()
    except Exception as exc:  # noqa: BLE001 - a host that cannot describe itself still gets a report
        out["error"] = f"info() raised {type(exc).__name__}: {exc}"
        return out
    if not isinstance(info, dict):
        out["error"] = f"info() answered {type(info).__name__}, not an object"
        return out
    out["name"] = None if info.get("name") is None else str(info["name"])
    out["version"] = None if info.get("version") is None else str(info["version"])
    out["capabilities"] = [str(c) for c in info.get("capabilities") or []]
    return out


class ReportingPlugin:
    """Registered by plugin.py when the kit is on."""

    def __init__(self, config: pytest.Config, settings: Settings, adapter: Any) -> None:
        self.config = config
        self.settings = settings
        self.adapter = adapter
        self.is_worker = hasattr(config, "workerinput")
        self.deviations: Deviations | None = None
        self.deviations_path: Path | None = None
        if settings.deviations_update and not settings.deviations:
            raise pytest.UsageError(
                "--toolconformance-deviations-update needs the file to write: "
                "add --toolconformance-deviations=PATH (.toml or .json)"
            )
        if settings.deviations:
            self.deviations_path = resolve_path(config, "toolconformance_deviations", settings.deviations)
            try:
                self.deviations = load_deviations(
                    self.deviations_path, source=settings.deviations, updating=settings.deviations_update
                )
            except DeviationsError as exc:
                raise pytest.UsageError(str(exc)) from None
        self.report_path = resolve_path(config, "toolconformance_report", settings.report) if settings.report else None
        self.collector = OutcomeCollector()
        self.report: dict[str, Any] | None = None
        self.written: list[Path] = []
        self.updated: str | None = None
        self.host: dict[str, Any] = {}
        self.collect_errors = 0
        self.unjudged = 0  # plugin checks the run's budget left unjudged
        self.started = time.time()

    # -- where the test runs (a worker, or the only process) ------------------------------------

    def _tells_the_failure_itself(self, failure: BaseException) -> bool:
        """Whether a check's failure is shown as the kit's own text rather than pytest's traceback: a
        finding is the whole story (the kit's frames and Hypothesis' notes are noise to a plugin author,
        and shown with --tb=long); a step out of time is told once with its rerun line (not the message
        twice around "During handling of ...")."""
        if finding_in(failure) is not None:
            return self.config.getoption("tbstyle", "auto") != "long"
        return exception_in(failure, StepOutOfTime) is not None

    @pytest.hookimpl(tryfirst=True, specname="pytest_runtest_makereport")
    def pytest_runtest_makereport_told_by_the_kit(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> pytest.TestReport | None:
        """The report of a failure the kit tells itself, made without the traceback pytest would format
        first (reading and parsing the source of every frame) only for the wrapper below to replace it:
        a tenth of a run against a broken host went there. Otherwise pytest's own report. (pytest takes
        a plugin's hooks by the ``pytest_`` prefix of their names; ``specname`` says which hook.)"""
        if call.when != "call" or call.excinfo is None or not self._tells_the_failure_itself(call.excinfo.value):
            return None
        sections = [(f"Captured {key} {when}", content) for when, key, content in item._report_sections]
        return pytest.TestReport(item.nodeid, item.location, dict.fromkeys(item.keywords, 1), "failed", "", "call",
                                 sections, call.duration, call.start, call.stop, user_properties=item.user_properties)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, Any]:
        report = yield
        if report.when != "call" or not report.failed or call.excinfo is None:
            return report
        failure = call.excinfo.value
        finding = finding_in(failure)
        if finding is not None:
            text = f"{finding.text()}\n  rerun: {rerun_line(self.settings, self.config, item, finding)}"
            report.user_properties.append((FINDING_PROPERTY, text))
            if self._tells_the_failure_itself(failure):
                report.longrepr = text
        elif self._tells_the_failure_itself(failure):
            rules = [str(v) for k, v in item.user_properties if k == "rule"]
            subject = "host" if not any(k == "plugin" for k, _ in item.user_properties) else "plugin"
            rerun = _rerun(self.settings, self.config, item, rules[0] if rules else "", subject)
            report.longrepr = f"{exception_in(failure, StepOutOfTime)}\n  rerun: {rerun}"
        # An errored test (the host broke the protocol, marked by wire.outcomes) is never excused.
        if hasattr(report, "wasxfail") or getattr(report, ERRORED_ATTRIBUTE, None):
            return report
        rules = [str(v) for k, v in item.user_properties if k == "rule"]
        entry = self.deviations.for_test(item.nodeid, rules) if self.deviations is not None else None
        if entry is not None and rules:
            # xfail-like: pytest counts it as xfailed, so the exit code no longer says "failed".
            report.outcome = "skipped"
            report.wasxfail = f"known deviation, {entry.describe(self.deviations.source)}: {entry.reason}"
            report.user_properties.append((DEVIATION_PROPERTY, entry.key))
            # junitxml reads properties from the teardown report, which copies the item's.
            item.user_properties.append((DEVIATION_PROPERTY, entry.key))
        return report

    # -- the controller (or the only process) -------------------------------------------------

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        if not self.is_worker:
            self.started = time.time()
            self.host = self._host()
            if self.report_path is not None:
                # Replaced at the end; a run that dies before (a closed output pipe, a kill) leaves a
                # report that says so, never an earlier run's green one.
                self._write(self._build(session, [UNFINISHED]), self.report_path, summary=False)

    def _host(self) -> dict[str, Any]:
        if not self.settings.host_suites:
            return {"spec": self.settings.host, "name": None, "version": None, "capabilities": [], "checked": False}
        return _host_info(self.adapter, self.settings.host)

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
            why.append(f"the plugin run's budget of {self.settings.plugin_budget:g} s (--toolconformance-plugin-"
                       f"budget) was spent: {self.unjudged} check(s) were not judged (errored), so the run did not "
                       "finish judging")
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
            host=self.host or self._host(),
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
            "utf-8")
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
            **({"sandbox": self._sandbox(), "loaded_as": self._loaded_as()} if self.settings.plugin_suites else {}),
        }

    def _sandbox(self) -> dict[str, Any]:
        """How plugins were confined here, and each plugin's confinement (by its spec)."""
        from pytest_toolconformance.plugins.loaders import confinement_of

        plugins = {spec: confinement_of(resolve_path(self.config, "toolconformance_plugin", spec))
                   for spec in self.settings.plugins}
        return {**confinement_summary(), "plugins": plugins}

    def _loaded_as(self) -> dict[str, str]:
        """Which host's plugin API each plugin (by its spec) is loaded with: "an OpenClaw plugin", ..."""
        from pytest_toolconformance.plugins.loaders import loaded_as_of

        return {spec: loaded_as_of(resolve_path(self.config, "toolconformance_plugin", spec))
                for spec in self.settings.plugins}

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


def register_reporting(config: pytest.Config, settings: Settings, adapter: Any) -> ReportingPlugin:
    """Called from plugin.py's ``pytest_configure``; a bad deviations file is a usage error (exit 4)."""
    plugin = ReportingPlugin(config, settings, adapter)
    config.pluginmanager.register(plugin, PLUGIN_NAME)
    return plugin
