"""A finding (pytest_toolconformance/findings.py) reads in a terminal and a CI log: no line of it runs to
thousands of characters, however large what the host expected, answered or was given."""

from __future__ import annotations

from pytest_toolconformance.findings import EXPECTED_LIMIT, REPRODUCTION_LIMIT, Finding


def test_no_line_of_a_finding_runs_on_however_large_its_parts() -> None:
    case = {"plugins": [{"name": "vault", "tools": [{"name": f"T{i}", "description": "x" * 40} for i in range(60)]}]}
    finding = Finding(
        "CAP-1", f"the description {'é' * 2500} cut at 1,000 bytes", {"answer": "y" * 5000}, reproduction=case
    )
    lines = finding.text().splitlines()
    longest = max(len(line) for line in lines)
    assert longest <= len("[CAP-1] the host under test: expected ") + max(EXPECTED_LIMIT, REPRODUCTION_LIMIT, 800)
    assert "... (" in finding.expected and "... (" in finding.reproduction  # a cut says how long it was
    assert finding.as_json()["expected"] == finding.expected  # the report says what the terminal says


def test_a_short_finding_is_left_as_it_is() -> None:
    finding = Finding("CAP-1", "a cut at 1,000 bytes", "a cut at 1,024 bytes", reproduction={"tool": "Echo"})
    assert finding.expected == "a cut at 1,000 bytes" and finding.reproduction == '{"tool": "Echo"}'


def test_every_error_that_judged_no_rule_is_unjudged_and_a_finding_is_not() -> None:
    from pytest_toolconformance.findings import CaseOutOfTime, NoFreshInstance, StepOutOfTime, Unjudged
    from pytest_toolconformance.host.errors import HostProtocolError
    from pytest_toolconformance.host.wire.errors import WireHostUnusable, WireProtocolError

    fault = WireProtocolError("exec:myhost", "timeout", "no answer in 5 s", method="call", seq=7)
    for error in (
        HostProtocolError("an answer that is no object"),
        fault,
        WireHostUnusable(fault),
        StepOutOfTime("import"),
        NoFreshInstance("load"),
        CaseOutOfTime("call"),
    ):
        assert isinstance(error, Unjudged), type(error)
    assert not isinstance(Finding("CAP-1", "a cut", "none"), Unjudged)
    # A host the kit stopped sending to ends a property at once: Hypothesis shrinks an Exception.
    assert not isinstance(WireHostUnusable(fault), Exception) and isinstance(StepOutOfTime("x"), Exception)


def test_only_a_host_given_up_on_tells_later_checks_in_one_line() -> None:
    from pytest_toolconformance.host.wire.errors import WireHostUnusable, WireProtocolError

    gave_up = WireProtocolError("exec:myhost", "gave-up", "after 4 faults", stderr="Traceback ...")
    assert WireHostUnusable(gave_up).given_up() == (
        "not run: wire host 'exec:myhost' was restarted too often; the kit gave up on it: after 4 faults "
        "(its stderr is shown at the first check the kit gave up in)"
    )
    timed_out = WireProtocolError("exec:myhost", "timeout", "no answer in 5 s")
    assert WireHostUnusable(timed_out).given_up() is None
