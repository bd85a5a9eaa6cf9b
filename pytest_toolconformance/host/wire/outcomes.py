"""Errored, not failed: a host that breaks the protocol has not broken a rule.

pytest reports an exception raised in a test body as *failed*, whatever its type. A
:class:`~pytest_toolconformance.host.client.HostProtocolError` (a :class:`WireProtocolError`, or an
in-process adapter answering a non-object) means the host could not be checked at all, and so does
a :class:`~.errors.WireHostUnusable` (a request refused after such a fault), and so does a plugin
step out of time (:class:`~pytest_toolconformance.findings.StepOutOfTime`), so these
hooks turn such a call-phase failure into an *error*: "E" in the progress line, "ERROR at call of"
in the summary, counted among the errors, and a junit property ``toolconformance_errored``
carrying the message. Faults in fixture setup (the ``toolconformance_host`` fixture resets the
host, and a dead host fails there) are errors already.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import pytest

from pytest_toolconformance.findings import StepOutOfTime, exception_in
from pytest_toolconformance.host.client import HostProtocolError
from pytest_toolconformance.host.wire.errors import WireHostUnusable

#: The report attribute that marks a converted failure; it survives xdist's report serialization.
ERRORED_ATTRIBUTE = "toolconformance_errored"
#: Marks an errored check the kit did not run because it had given up on the host (after the one that
#: showed why): counted apart, so that hundreds of them are one count, not hundreds of sections.
AFTER_GIVING_UP_ATTRIBUTE = "toolconformance_after_giving_up"
#: The terminal's word for them (pytest's own "error" would print each one's section and summary line).
AFTER_GIVING_UP = "errored, not run: the kit gave up on the host"
#: Whether this run has shown the fault a host was given up for once already.
_GAVE_UP_SHOWN = pytest.StashKey[bool]()


def _after_giving_up(item: pytest.Item, call: pytest.CallInfo[None], report: Any) -> None:
    if not report.failed or call.excinfo is None:
        return
    # A reset that failed in fixture setup carries the fault beside it, not chained (fixtures.HostNotReset).
    unusable = exception_in(getattr(call.excinfo.value, "host_fault", call.excinfo.value), WireHostUnusable)
    if unusable is None or getattr(unusable.original, "fault", None) != "gave-up":
        return
    # Once the kit gave up on a host every further check errors the same way: the fault is shown in
    # full once, and each check after it is one line (a crashing host gave 1.8 MB of output).
    if item.config.stash.get(_GAVE_UP_SHOWN, False):
        original = unusable.original
        report.longrepr = (f"not run: wire host {original.host!r} {original.summary.splitlines()[0]} (its stderr is "
                           "shown at the first check the kit gave up in)")
        setattr(report, AFTER_GIVING_UP_ATTRIBUTE, True)
    else:
        item.config.stash[_GAVE_UP_SHOWN] = True
        report.longrepr = str(unusable)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, Any]:
    report = yield
    if call.when == "call" and report.failed and call.excinfo is not None:
        found = exception_in(call.excinfo.value, (HostProtocolError, WireHostUnusable, StepOutOfTime))
        if found is not None:
            message = str(found)
            setattr(report, ERRORED_ATTRIBUTE, message)
            # junitxml writes the properties of the teardown report, which copies the item's.
            item.user_properties.append((ERRORED_ATTRIBUTE, message.splitlines()[0]))
            report.user_properties.append((ERRORED_ATTRIBUTE, message.splitlines()[0]))
    _after_giving_up(item, call, report)
    return report


@pytest.hookimpl(tryfirst=True)
def pytest_report_teststatus(report: pytest.TestReport, config: pytest.Config) -> tuple[str, str, str] | None:
    if report.failed and getattr(report, AFTER_GIVING_UP_ATTRIBUTE, False):
        return AFTER_GIVING_UP, "E", "ERROR"
    if report.when == "call" and report.failed and getattr(report, ERRORED_ATTRIBUTE, None):
        return "error", "E", "ERROR"
    return None


def is_errored(report: Any) -> bool:
    """Whether a report is an error: a setup/teardown failure, or a call converted here."""
    outside_the_call = getattr(report, "when", "call") != "call"
    return bool(report.failed and (outside_the_call or getattr(report, ERRORED_ATTRIBUTE, None)))
