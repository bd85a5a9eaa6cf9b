"""How a check's outcome is decided: one owner, its steps in written order.

pytest reports any exception out of a test body as *failed*. The kit's checks end in other ways too,
and this module alone says which (as pytest's ``skipping.py`` alone says what an xfail is). Its
report wrapper runs these steps, in this order, on each phase's report:

1. **Errored.** A failure that judged no rule (a :class:`~pytest_toolconformance.findings.Unjudged`:
   a host outside the protocol or given up on, a plugin step out of time, the run's budget spent) is
   an *error*: "E" in the progress line, "ERROR at call of" in the summary, counted among the errors,
   with a junit property ``toolconformance_errored`` carrying its message. Once the kit gave up on a
   host, the first check that met it shows why in full and each later one is a single line.
2. **New since the pinned rule set.** A check the pinned set (``--toolconformance-ruleset``) does
   not hold leaves the gate before anything judges it: skipped, told as new and advisory with what it
   found (``ruleset.py``), so neither its finding nor a deviation counts.
3. **The kit's own failure text.** A :class:`~pytest_toolconformance.findings.Finding` is shown
   alone with a rerun line carrying the seed (the kit's frames with ``--tb=long``); a step out of
   time is told once with its rerun line. Such a report is made without the traceback pytest would
   format first only to be replaced (:func:`pytest_runtest_makereport_told_by_the_kit`).
4. **Known deviation.** A failure the deviations file lists becomes xfail-like (pytest counts it
   xfailed, so the exit code no longer says failed); an errored check is never excused.

Step 1 holds in every run (the public fixtures talk to a host without ``--toolconformance``); steps
2 to 4 in a run with the kit on, whose state :func:`configure` keeps in ``config.stash``. Under
pytest-xdist the steps run where the check runs; what they set survives the report's serialization.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Generator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pytest_toolconformance.findings import (
    StepOutOfTime,
    ToolConformanceAdvisory,
    Unjudged,
    exception_in,
    finding_in,
)
from pytest_toolconformance.options import DEFAULT_HOST, Settings, resolve_path
from pytest_toolconformance.report.deviations import Deviations, DeviationsError, load_deviations
from pytest_toolconformance.report.model import DEVIATION_PROPERTY, ERRORED_ATTRIBUTE, FINDING_PROPERTY
from pytest_toolconformance.rules import MARKER
from pytest_toolconformance.ruleset import LATEST, NEW_CHECK_PROPERTY, RuleSet, check_id

#: Marks an errored check the kit did not run because it had given up on the host (after the one that
#: showed why): counted apart, so that hundreds of them are one count, not hundreds of sections.
AFTER_GIVING_UP_ATTRIBUTE = "toolconformance_after_giving_up"
#: The terminal's word for them (pytest's own "error" would print each one's section and summary line).
AFTER_GIVING_UP = "errored, not run: the kit gave up on the host"
#: Whether this run has shown the fault a host was given up for once already.
_GAVE_UP_SHOWN = pytest.StashKey[bool]()


@dataclass(frozen=True)
class RunDeviations:
    """The run's known deviations file, loaded, and where it is (``--toolconformance-deviations``)."""

    deviations: Deviations
    path: Path


@dataclass(frozen=True)
class Judging:
    """What steps 2 to 4 read: the run's settings, its pinned rule set and its known deviations."""

    settings: Settings
    ruleset: RuleSet | None = None
    deviations: Deviations | None = None


JUDGING_KEY = pytest.StashKey[Judging]()


def run_deviations(config: pytest.Config, settings: Settings) -> RunDeviations | None:
    """The run's deviations file, loaded once; a file that cannot be used is a usage error (exit 4)."""
    if settings.deviations_update and not settings.deviations:
        raise pytest.UsageError(
            "--toolconformance-deviations-update needs the file to write: "
            "add --toolconformance-deviations=PATH (.toml or .json)"
        )
    if not settings.deviations:
        return None
    path = resolve_path(config, "toolconformance_deviations", settings.deviations)
    try:
        deviations = load_deviations(path, source=settings.deviations, updating=settings.deviations_update)
    except DeviationsError as exc:
        raise pytest.UsageError(str(exc)) from None
    return RunDeviations(deviations, path)


def configure(config: pytest.Config, judging: Judging) -> None:
    """Keep what steps 2 to 4 read (plugin.py calls it when the kit is on)."""
    config.stash[JUDGING_KEY] = judging


# -- 1. errored ---------------------------------------------------------------------------------------


def _errored(item: pytest.Item, call: pytest.CallInfo[None], report: pytest.TestReport) -> None:
    if call.when == "call" and report.failed and call.excinfo is not None:
        found = exception_in(call.excinfo.value, Unjudged)
        if found is not None:
            message = str(found)
            setattr(report, ERRORED_ATTRIBUTE, message)
            # junitxml writes the properties of the teardown report, which copies the item's.
            item.user_properties.append((ERRORED_ATTRIBUTE, message.splitlines()[0]))
            report.user_properties.append((ERRORED_ATTRIBUTE, message.splitlines()[0]))
    _after_giving_up(item, call, report)


def _after_giving_up(item: pytest.Item, call: pytest.CallInfo[None], report: pytest.TestReport) -> None:
    if not report.failed or call.excinfo is None:
        return
    # A reset that failed in fixture setup carries the fault beside it, not chained (fixtures.HostNotReset).
    fault = exception_in(getattr(call.excinfo.value, "host_fault", call.excinfo.value), Unjudged)
    later = fault.given_up() if isinstance(fault, Unjudged) else None
    if later is None:
        return
    # Once the kit gave up on a host every further check errors the same way: the fault is shown in
    # full once, and each check after it is one line (a crashing host gave 1.8 MB of output).
    if item.config.stash.get(_GAVE_UP_SHOWN, False):
        report.longrepr = later
        setattr(report, AFTER_GIVING_UP_ATTRIBUTE, True)
    else:
        item.config.stash[_GAVE_UP_SHOWN] = True
        report.longrepr = str(fault)


def is_errored(report: Any) -> bool:
    """Whether a report is an error: a setup/teardown failure, or a call errored here."""
    outside_the_call = getattr(report, "when", "call") != "call"
    return bool(report.failed and (outside_the_call or getattr(report, ERRORED_ATTRIBUTE, None)))


# -- 2. new since the pinned rule set ------------------------------------------------------------------


def _rules_of(item: pytest.Item) -> list[str]:
    return [rule for mark in item.iter_markers(MARKER) for rule in mark.args]


def _new_since_the_pinned_set(
    judging: Judging, item: pytest.Item, call: pytest.CallInfo[None], report: pytest.TestReport
) -> None:
    ruleset = judging.ruleset
    if ruleset is None or report.when != "call" and not report.failed or report.skipped:
        return
    rules = _rules_of(item)
    check = check_id(item)
    if not rules or ruleset.holds(check, rules):
        return
    if report.passed:
        found = "passes"
    else:
        found = f"would fail: {_first_line(call, report)}"
        item.warn(
            ToolConformanceAdvisory(
                f"new check {check} (not in rule set {ruleset.name}, advisory until you move the pin): {found}"
            )
        )
    # On the report too: under xdist the controller's summary counts them from the reports it is sent.
    report.user_properties.append((NEW_CHECK_PROPERTY, f"{check}: {found}"))
    # Out of the gate: the check did not exist when the set was frozen.
    report.outcome = "skipped"
    report.longrepr = (
        str(item.path),
        None,
        f"new since rule set {ruleset.name} (advisory; --toolconformance-ruleset={LATEST} gates on it): {found}",
    )


def _first_line(call: pytest.CallInfo[None], report: pytest.TestReport) -> str:
    """What a new check found, in one line: its finding's first line, else its exception's."""
    error = call.excinfo.value if call.excinfo is not None else None
    finding = finding_in(error) if error is not None else None
    text = finding.text() if finding is not None else str(error if error is not None else report.longrepr or "")
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[0] if lines else "it did not pass"


# -- 3. the kit's own failure text ----------------------------------------------------------------------


def _tells_the_failure_itself(config: pytest.Config, failure: BaseException) -> bool:
    """Whether a check's failure is shown as the kit's own text rather than pytest's traceback: a
    finding is the whole story (the kit's frames and Hypothesis' notes are noise to a plugin author,
    and shown with --tb=long); a step out of time is told once with its rerun line (not the message
    twice around "During handling of ...")."""
    if finding_in(failure) is not None:
        return config.getoption("tbstyle", "auto") != "long"
    return exception_in(failure, StepOutOfTime) is not None


def _told_by_the_kit(
    judging: Judging, item: pytest.Item, call: pytest.CallInfo[None], report: pytest.TestReport
) -> None:
    if report.when != "call" or not report.failed or call.excinfo is None:
        return
    failure = call.excinfo.value
    finding = finding_in(failure)
    if finding is not None:
        rerun = rerun_line(judging.settings, item.config, item, finding.rule, finding.subject)
        text = f"{finding.text()}\n  rerun: {rerun}"
        report.user_properties.append((FINDING_PROPERTY, text))
        if _tells_the_failure_itself(item.config, failure):
            report.longrepr = text
    elif _tells_the_failure_itself(item.config, failure):
        rules = [str(v) for k, v in item.user_properties if k == "rule"]
        subject = "host" if not any(k == "plugin" for k, _ in item.user_properties) else "plugin"
        rerun = rerun_line(judging.settings, item.config, item, rules[0] if rules else "", subject)
        report.longrepr = f"{exception_in(failure, StepOutOfTime)}\n  rerun: {rerun}"


def rerun_line(settings: Settings, config: pytest.Config, item: pytest.Item, rule: str, subject: str) -> str:
    """A command to paste that checks this rule of the check ``item`` again, with the same generated cases."""
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


# -- 4. known deviation ------------------------------------------------------------------------------


def _known_deviation(judging: Judging, item: pytest.Item, report: pytest.TestReport) -> None:
    if report.when != "call" or not report.failed or judging.deviations is None:
        return
    # An errored check (the subject could not be checked) is never excused.
    if hasattr(report, "wasxfail") or getattr(report, ERRORED_ATTRIBUTE, None):
        return
    rules = [str(v) for k, v in item.user_properties if k == "rule"]
    entry = judging.deviations.for_test(item.nodeid, rules)
    if entry is not None and rules:
        # xfail-like: pytest counts it as xfailed, so the exit code no longer says "failed".
        report.outcome = "skipped"
        report.wasxfail = f"known deviation, {entry.describe(judging.deviations.source)}: {entry.reason}"
        report.user_properties.append((DEVIATION_PROPERTY, entry.key))
        # junitxml reads properties from the teardown report, which copies the item's.
        item.user_properties.append((DEVIATION_PROPERTY, entry.key))


# -- the hooks ---------------------------------------------------------------------------------------


@pytest.hookimpl(tryfirst=True, specname="pytest_runtest_makereport")
def pytest_runtest_makereport_told_by_the_kit(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> pytest.TestReport | None:
    """The report of a failure the kit tells itself (step 3), made without the traceback pytest would
    format first (reading and parsing the source of every frame) only for step 3 to replace it: a
    tenth of a run against a broken host went there. Otherwise pytest's own report. (pytest takes a
    plugin's hooks by the ``pytest_`` prefix of their names; ``specname`` says which hook.)"""
    if JUDGING_KEY not in item.config.stash or call.when != "call" or call.excinfo is None:
        return None
    if not _tells_the_failure_itself(item.config, call.excinfo.value):
        return None
    sections = [(f"Captured {key} {when}", content) for when, key, content in item._report_sections]
    return pytest.TestReport(
        item.nodeid,
        item.location,
        dict.fromkeys(item.keywords, 1),
        "failed",
        "",
        "call",
        sections,
        call.duration,
        call.start,
        call.stop,
        user_properties=item.user_properties,
    )


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, Any]:
    report = yield
    _errored(item, call, report)
    judging = item.config.stash.get(JUDGING_KEY, None)
    if judging is not None:
        _new_since_the_pinned_set(judging, item, call, report)
        _told_by_the_kit(judging, item, call, report)
        _known_deviation(judging, item, report)
    return report


@pytest.hookimpl(tryfirst=True)
def pytest_report_teststatus(report: pytest.TestReport, config: pytest.Config) -> tuple[str, str, str] | None:
    if report.failed and getattr(report, AFTER_GIVING_UP_ATTRIBUTE, False):
        return AFTER_GIVING_UP, "E", "ERROR"
    if report.when == "call" and report.failed and getattr(report, ERRORED_ATTRIBUTE, None):
        return "error", "E", "ERROR"
    return None
