"""One failure vocabulary for host and plugin checks, and the one shortener of values in messages.

A check that finds a rule broken raises :class:`Finding`: the rule, the subject it binds (the host,
a plugin, or one tool of a plugin), what was expected, what happened, the smallest reproduction and
the fix. Its text is what every report shows, so it reads the same in the terminal, the JSON, the
Markdown and the HTML. A check that could judge no rule (the subject could not be checked) raises an
:class:`Unjudged`, reported *errored*.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator, Sequence
from contextvars import ContextVar
from typing import Any

from pytest_toolconformance.rules import all_rules, fix_advice

SUBJECTS = ("host", "plugin", "tool")


class ToolConformanceAdvisory(UserWarning):
    """An advisory finding of a plugin rule: shown, never a failure (SCHEMA-2 kinds, GRANT-2, NAME-6 extras)."""


def shorten(value: Any, limit: int = 300, *, verbatim: bool = False) -> str:
    """``value`` as compact JSON of at most ``limit`` characters; a cut one says how long it was (a
    message must stay readable, yet tell that something was cut). A string is quoted, so a reader sees
    where a value starts and ends, unless ``verbatim`` (it is a sentence, not a value)."""
    if verbatim and isinstance(value, str):
        text = value
    else:
        try:
            text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=repr)
        except (TypeError, ValueError):
            text = repr(value)
    if len(text) <= limit:
        return text
    suffix = f"... ({len(text)} chars)"
    return text[: max(0, limit - len(suffix))] + suffix


class Unjudged(BaseException):
    """A check's failure that judged no rule: the subject could not be checked at all (a host that
    answered outside the protocol or stopped answering, a plugin step out of time, a tool too slow to
    judge, the run's budget spent). pytest would call it failed; the kit reports it *errored*
    (:mod:`pytest_toolconformance.report.outcomes` reads this base alone, as pytest's skipping reads
    its ``OutcomeException`` family), so no host or plugin module is imported to tell.

    A subclass derives from ``Exception`` too (``class StepOutOfTime(Unjudged, Exception)``) unless it
    must end a property at once: Hypothesis takes an ``Exception`` for a failing example and runs the
    check again to shrink it, which against a host that stopped answering only burns time.
    """

    def given_up(self) -> str | None:
        """Where the kit gave up on its subject with this (every later check meets the same): the one
        line that tells each later check so, the first having shown it in full; None otherwise."""
        return None


#: The user property of a check the plugin run's budget left unjudged (the report counts them).
UNJUDGED_PROPERTY = "toolconformance_unjudged"


class StepOutOfTime(Unjudged, Exception):
    """A step of a plugin (its import, register or one call) ran out of its time bound, twice.

    Reported *errored*, never as a rule's failure: the step did not finish, so no rule could be judged
    on it. The message names the phase, the arguments of a call, the bounds it was given and how to
    rerun just this check.
    """


class NoFreshInstance(StepOutOfTime):
    """The kit could not give a check's call an instance of its plugin (a fresh one for the check, or
    the plugin loaded again after its process ended; that load ran out of time, ended or failed):
    errored like a step out of time, since no call was made."""


class CaseOutOfTime(StepOutOfTime):
    """One call of a check ran out of time: that case is left out and the check goes on.

    A property (:func:`pytest_toolconformance.profile.run_property`) passes over such a case; a check
    that met one and found no rule broken on the others ends *errored*, one that found a rule broken
    fails with that finding.
    """


#: The longest a finding's "expected" and "reproduce" may be, in characters (the JSON report keeps the same).
EXPECTED_LIMIT = 600
REPRODUCTION_LIMIT = 900


class Finding(AssertionError):
    """A rule did not hold, told as rule, subject, expected, what happened, reproduction and fix.

    ``where`` names the subject (``tool ReadNote of plugin notes``); without it the subject's own
    name stands. Without ``fix`` the rule catalog's advice for the subject stands. ``happened`` is cut
    at ``happened_limit`` characters (a load error that quotes Node's stderr wants more).
    """

    def __init__(
        self,
        rule: str,
        expected: str,
        happened: Any,
        *,
        subject: str = "host",
        where: str | None = None,
        reproduction: Any = None,
        fix: str | None = None,
        happened_limit: int = 800,
    ) -> None:
        if subject not in SUBJECTS:
            raise ValueError(f"subject {subject!r} is not one of {SUBJECTS}")
        self.rule = rule
        self.subject = subject
        self.where = where or ("the host under test" if subject == "host" else subject)
        # A finding is read in a terminal and a CI log: what it expected and how to reproduce it stay
        # under a line each (a host's whole answer or case made lines of 2,646 characters).
        self.expected = shorten(expected, EXPECTED_LIMIT, verbatim=True)
        self.happened = shorten(happened, happened_limit, verbatim=True)
        self.reproduction = None if reproduction is None else shorten(reproduction, REPRODUCTION_LIMIT, verbatim=True)
        known = all_rules().get(rule)
        self.fix = (
            fix
            if fix is not None
            else (fix_advice(known, "host" if subject == "host" else "plugin") if known is not None else None)
        )
        super().__init__(self.text())

    def text(self) -> str:
        actor = "the host" if self.subject == "host" else "the plugin"
        lines = [f"[{self.rule}] {self.where}: expected {self.expected}", f"  {actor} did: {self.happened}"]
        if self.reproduction:
            lines.append(f"  reproduce: {self.reproduction}")
        if self.fix:
            lines.append(f"  fix: {self.fix}")
        return "\n".join(lines)

    def as_json(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "subject": self.subject,
            "where": self.where,
            "expected": self.expected,
            "happened": self.happened,
            "reproduction": self.reproduction,
            "fix": self.fix,
        }


#: The rule of the conformance test that is running, bound once from its marker (host checks read it).
_BOUND_RULE: ContextVar[str | None] = ContextVar("toolconformance_bound_rule", default=None)


@contextlib.contextmanager
def rule_bound(rules: Sequence[str]) -> Iterator[None]:
    """Bind the running test's rule: its marker's one rule (none where it names several or none)."""
    distinct = list(dict.fromkeys(rules))
    token = _BOUND_RULE.set(distinct[0] if len(distinct) == 1 else None)
    try:
        yield
    finally:
        _BOUND_RULE.reset(token)


def bound_rule() -> str:
    """The running test's one rule, as its ``toolconformance`` marker names it."""
    rule = _BOUND_RULE.get()
    if rule is None:
        raise TypeError(
            "this check runs outside a test marked with exactly one rule "
            '(@pytest.mark.toolconformance("RULE-N")): pass rule= to name the rule it checks'
        )
    return rule


def exception_in(
    exc: BaseException | None,
    kinds: type[BaseException] | tuple[type[BaseException], ...],
    *,
    chained: bool = True,
    seen: set[int] | None = None,
) -> BaseException | None:
    """The first exception of ``kinds`` behind ``exc``: itself, one inside an exception group
    (Hypothesis reports several bugs, or a flaky one, as a group), or, when ``chained``, one it was
    raised from or while handling."""
    seen = set() if seen is None else seen
    if exc is None or id(exc) in seen:
        return None
    seen.add(id(exc))
    if isinstance(exc, kinds):
        return exc
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            found = exception_in(inner, kinds, chained=chained, seen=seen)
            if found is not None:
                return found
    if not chained:
        return None
    return exception_in(exc.__cause__, kinds, chained=chained, seen=seen) or exception_in(
        exc.__context__, kinds, chained=chained, seen=seen
    )


def finding_in(exc: BaseException | None) -> Finding | None:
    """The finding behind a failure, if it is one (not one the failure happened while handling: that
    failure is the kit's or the subject's own, and its traceback is the story)."""
    found = exception_in(exc, Finding, chained=False)
    return found if isinstance(found, Finding) else None
