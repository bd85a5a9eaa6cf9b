"""A finding (pytest_toolconformance/findings.py) reads in a terminal and a CI log: no line of it runs to
thousands of characters, however large what the host expected, answered or was given."""

from __future__ import annotations

from pytest_toolconformance.findings import EXPECTED_LIMIT, REPRODUCTION_LIMIT, Finding


def test_no_line_of_a_finding_runs_on_however_large_its_parts() -> None:
    case = {"plugins": [{"name": "vault", "tools": [{"name": f"T{i}", "description": "x" * 40} for i in range(60)]}]}
    finding = Finding("CAP-1", f"the description {'é' * 2500} cut at 1,000 bytes", {"answer": "y" * 5000},
                      reproduction=case)
    lines = finding.text().splitlines()
    longest = max(len(line) for line in lines)
    assert longest <= len("[CAP-1] the host under test: expected ") + max(EXPECTED_LIMIT, REPRODUCTION_LIMIT, 800)
    assert "... (" in finding.expected and "... (" in finding.reproduction  # a cut says how long it was
    assert finding.as_json()["expected"] == finding.expected  # the report says what the terminal says


def test_a_short_finding_is_left_as_it_is() -> None:
    finding = Finding("CAP-1", "a cut at 1,000 bytes", "a cut at 1,024 bytes", reproduction={"tool": "Echo"})
    assert finding.expected == "a cut at 1,000 bytes" and finding.reproduction == '{"tool": "Echo"}'
