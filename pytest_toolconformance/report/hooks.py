"""The pytest hooks of CI gating: known deviations, the report by rule, its Markdown and HTML pages.

Thin on purpose: the decisions live in :mod:`.deviations` and :mod:`.report`, the pages in
:mod:`.markdown_report` and :mod:`.html_report`. Under pytest-xdist every worker turns declared
failures into xfail-like outcomes where the test runs (``pytest_runtest_makereport``), and only the
controller collects outcomes (from ``pytest_runtest_logreport``, which carries ``user_properties``)
and writes the report, once.
"""

from __future__ import annotations

import os
import platform
import time
from collections.abc import Generator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from pytest_toolconformance import __version__
from pytest_toolconformance._proc import confinement_summary
from pytest_toolconformance.options import Settings
from pytest_toolconformance.report.deviations import Deviations, DeviationsError, load_deviations
from pytest_toolconformance.report.html import catalog_href, render_html
from pytest_toolconformance.report.markdown import render_markdown
from pytest_toolconformance.report.model import (
    DEVIATION_PROPERTY,
    ERROR_ATTR,
    OutcomeCollector,
    build_report,
    facts_from_report,
    sibling,
    write_json,
)

PLUGIN_NAME = "toolconformance-reporting"


def _resolve(config: pytest.Config, dest: str, value: str) -> Path:
    """A path from the command line is relative to where pytest was started; from ini, to the ini file."""
    path = Path(value).expanduser()
    if path.is_absolute():
        return path
    from_cli = config.getoption(dest, None) is not None
    base = config.invocation_params.dir if from_cli or config.inipath is None else config.inipath.parent
    return base / path


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
    """Registered by plugin.py when ``--toolconformance`` is on."""

    def __init__(self, config: pytest.Config, settings: Settings, adapter: Any) -> None:
        self.config = config
        self.settings = settings
        self.adapter = adapter
        self.is_worker = hasattr(config, "workerinput")
        self.deviations: Deviations | None = None
        if settings.deviations:
            path = _resolve(config, "toolconformance_deviations", settings.deviations)
            try:
                self.deviations = load_deviations(path, source=settings.deviations)
            except DeviationsError as exc:
                raise pytest.UsageError(str(exc)) from None
        self.report_path = _resolve(config, "toolconformance_report", settings.report) if settings.report else None
        self.collector = OutcomeCollector()
        self.report: dict[str, Any] | None = None
        self.written: list[Path] = []
        self.host: dict[str, Any] = {}
        self.started = time.time()

    # -- where the test runs (a worker, or the only process) ------------------------------------

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, Any]:
        report = yield
        # An errored test (the host broke the protocol, marked by wire.outcomes) is never excused.
        if report.when != "call" or not report.failed or hasattr(report, "wasxfail") or getattr(report, ERROR_ATTR, None):
            return report
        rules = [str(v) for k, v in item.user_properties if k == "rule"]
        entry = self.deviations.for_test(item.nodeid, rules) if self.deviations is not None else None
        if entry is not None and rules and call.excinfo is not None:
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
            self.host = _host_info(self.adapter, self.settings.host)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if not self.is_worker:
            self.collector.add(facts_from_report(report))

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if self.is_worker:
            return
        report = build_report(
            self.collector, kit_version=__version__, host=self.host or _host_info(self.adapter, self.settings.host),
            plugins=self.settings.plugins, deviations=self.deviations, run=self._run_facts(session),
        )
        if report["deviations"]["stale"] and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
        report["run"]["exitstatus"] = int(session.exitstatus)
        self.report = report
        if self.report_path is not None:
            self._write(report, self.report_path)

    def _run_facts(self, session: pytest.Session) -> dict[str, Any]:
        workers = getattr(self.config.option, "numprocesses", None)
        return {
            "started": datetime.fromtimestamp(self.started, UTC).isoformat(timespec="seconds"),
            "duration_s": round(time.time() - self.started, 3),
            "pytest": pytest.__version__,
            "python": platform.python_version(),
            "workers": workers if isinstance(workers, int) else 0,
            "args": [str(a) for a in self.config.invocation_params.args],
            **({"sandbox": confinement_summary()} if self.settings.plugins else {}),
        }

    def _write(self, report: dict[str, Any], path: Path) -> None:
        write_json(report, path)
        markdown = render_markdown(report, catalog_href(sibling(path, ".md")))
        md_path, html_path = sibling(path, ".md"), sibling(path, ".html")
        md_path.write_text(markdown, "utf-8")
        html_path.write_text(render_html(report, catalog=catalog_href(html_path)), "utf-8")
        self.written = [path, md_path, html_path]
        summary = os.environ.get("GITHUB_STEP_SUMMARY")
        if summary:
            # Appended, not written: several steps (or several runs in one step) share the summary.
            with open(summary, "a", encoding="utf-8") as out:
                out.write(render_markdown(report) + "\n")
            self.written.append(Path(summary))

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        report = self.report
        if self.is_worker or report is None:
            return
        counts = ", ".join(f"{report['summary'][s]} {s}" for s in ("passed", "failed", "errored", "deviation",
                                                                   "skipped", "not-run") if report["summary"][s])
        terminalreporter.write_sep("-", "toolconformance: rules")
        terminalreporter.write_line(f"{report['summary']['rules']} rules: {counts or 'none ran'}")
        for rule in report["rules"]:
            if rule["status"] in ("failed", "errored"):
                terminalreporter.write_line(f"{rule['status'].upper()} {rule['id']}: {len(rule['decided_by'])} test(s)",
                                            red=True)
            elif rule["status"] == "deviation":
                reasons = "; ".join(d["reason"] for d in rule.get("deviation", []))
                terminalreporter.write_line(f"DEVIATION {rule['id']} (known): {reasons}", yellow=True)
        for note in report["deviations"]["unused"]:
            terminalreporter.write_line(f"note: {note['message']}", yellow=True)
        for stale in report["deviations"]["stale"]:
            terminalreporter.write_line(f"ERROR: {stale['message']}", red=True, bold=True)
        if self.written:
            terminalreporter.write_line("report: " + ", ".join(str(p) for p in self.written))


def register_reporting(config: pytest.Config, settings: Settings, adapter: Any) -> ReportingPlugin:
    """Called from plugin.py's ``pytest_configure``; a bad deviations file is a usage error (exit 4)."""
    plugin = ReportingPlugin(config, settings, adapter)
    config.pluginmanager.register(plugin, PLUGIN_NAME)
    return plugin
