"""How long a plugin run may take: the run's budget, and a tool too slow to judge within it.

Every run ends with a verdict in the time a CI job allows. Two things see to it:

* **The run's budget** (``--toolconformance-plugin-budget``, ``options.DEFAULT_PLUGIN_BUDGET`` seconds
  by default, printed in the header), counted from the moment the run first asks for its
  plugins (collection, where they load), and stretched by the machine's load as the step bound is
  (``bounds.py``): the same plugin on the same code gets its verdict on an idle machine and on a
  loaded one, not a run cut short only where the machine was busy. A check that starts after it is
  spent, and a call a check would make after it, is not made: the check is *errored* saying so, never
  failed, and the run does not pass (the report says the budget left checks unjudged).
* **A tool too slow to judge.** Each call is bounded (``bounds.py``: the step bound, stretched by the
  machine's load), and one out of time is retried with a longer bound; a tool that answers every call
  late, or within a bound the load stretched, would still cost that wait on every generated case of
  every check. So the kit keeps, per tool, the time of its answered calls that took longer than the
  step bound of an idle machine (``--toolconformance-timeout``: what the tool's own waits, a sleep or a
  backoff, take at any load); once that reaches :data:`SLOW_TOOL_BOUNDS` times that bound, or two
  different calls ran out of time, the tool is *slow*: it is called no more, and each of its checks
  that would call it is errored with what happened. The other tools of the plugin are judged as
  usual. A call out of time is not counted here: a tool that hangs on one call only is judged on the
  others (its hang is that call's).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pytest_toolconformance.findings import UNJUDGED_PROPERTY, shorten

#: A tool whose answered calls took longer than the idle step bound for this many bounds in all is too
#: slow to judge here (50 s of its calls at the default --toolconformance-timeout of 5 s).
SLOW_TOOL_BOUNDS = 10.0
_OPTION = "--toolconformance-plugin-budget"


class RunBudget:
    """The seconds a plugin run may take, counted from its start (``clock`` is ``time.monotonic``):
    ``seconds`` as given for an idle machine, times ``factor``, the load calibration's (``bounds.py``)."""

    def __init__(self, seconds: float, factor: float = 1.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.seconds = float(seconds)
        self.factor = max(1.0, float(factor))
        self._clock = clock
        self.started = clock()

    @property
    def limit(self) -> float:
        """The seconds this run may take on this machine now."""
        return round(self.seconds * self.factor, 1)

    def spent(self) -> bool:
        return self._clock() - self.started >= self.limit

    def mark_unjudged(self, item: Any) -> None:
        """Mark the check ``item`` (a pytest item) as left unjudged by the budget, once."""
        if not any(key == UNJUDGED_PROPERTY for key, _ in item.user_properties):
            item.user_properties.append((UNJUDGED_PROPERTY, self.seconds))

    def unjudged(self, rule: str, what: str) -> str:
        """Why a check is errored: the budget was spent before ``what`` ("this check started", ...)."""
        return (
            f"[{rule}] the plugin run's budget of {self.seconds:g} s ({_OPTION}{self._stretched()}) was spent before "
            f"{what}, so the kit did not judge this check: errored, not failed, and the run did not finish judging. "
            f"Give the run more time ({_OPTION}=SECONDS, ini toolconformance_plugin_budget), or see which tools are "
            "slow in the errored checks before this one"
        )

    def _stretched(self) -> str:
        return "" if self.factor <= 1.0 else f"; {self.limit:g} s at this machine's load, x{self.factor:g}"


def header_line(seconds: float, factor: float = 1.0) -> str:
    """The report header's line for the run's budget (``factor``: the load calibration's)."""
    stretched = RunBudget(seconds, factor)._stretched()
    return (f"plugin run budget {seconds:g} s ({_OPTION}{stretched}): a check that starts after it is spent is "
            "errored, not judged, and the run does not pass; a tool whose calls take longer than "
            f"--toolconformance-timeout is called no more once they have taken {SLOW_TOOL_BOUNDS:g} times that")


@dataclass
class ToolTime:
    """How long one tool's slow calls took, and why it is too slow to judge (once it is)."""

    late: float = 0.0
    calls: int = 0
    slow: str | None = None

    def add(self, seconds: float, bound: float, tool: str, plugin: str, arguments: object, *,
            hung: bool = False, hung_twice: bool = False) -> None:
        """Count one call that took ``seconds`` (its retry included) against ``bound``, the idle step bound;
        ``hung``: it ran out of time (not counted: that call's hang is its own); ``hung_twice``: it was the
        second different call of the tool to run out of time, which makes the tool slow at once."""
        if not hung and seconds > bound:
            self.late += seconds
            self.calls += 1
        if self.slow is not None:
            return
        if hung_twice:
            self.slow = (f"tool {tool} of plugin {plugin} ran out of time on two different calls (the second when "
                         f"called with {shorten(arguments, 120)}, abandoned after {seconds:.0f} s), so the kit calls "
                         "it no more")
        elif self.late >= SLOW_TOOL_BOUNDS * bound:
            self.slow = (
                f"tool {tool} of plugin {plugin} is too slow to judge here: {self.calls} of its calls took longer than "
                f"the step bound of an idle machine ({bound:g} s, --toolconformance-timeout), {self.late:.0f} s in all "
                f"(the last {seconds:.1f} s when called with {shorten(arguments, 120)}), so the kit calls it no more"
            )

    def errored(self, rule: str) -> str:
        """Why a check of a slow tool is errored, not judged."""
        return (f"[{rule}] {self.slow}. This check is errored, not failed: no rule is judged on calls that do not "
                "answer within the bound. Look for retries, backoff or a blocking wait in its execute")
