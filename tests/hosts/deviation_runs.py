"""What the real hosts' tests share: the kit on a host over the wire for three rules it keeps or breaks,
with or without a deviations file, read back from its JSON report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

#: Two rules every real host here breaks (SCHEMA-1, ERR-5) and one it keeps (REG-5), as a -k expression.
RULES = "SCHEMA-1 or ERR-5 or REG-5"


def run_rules(pytester: pytest.Pytester, host: Path, deviations: Path | None, *, name: str,
              timeout: float) -> tuple[int, dict, str]:
    """The kit on ``host`` (an executable wire host) for :data:`RULES`: its exit status, report and output."""
    report = pytester.path / f"{name}.json"
    args = ["--toolconformance", f"--toolconformance-host=exec:{host}", f"--toolconformance-report={report}",
            "--toolconformance-timeout=30", "-k", RULES, "-p", "no:cacheprovider", "-q"]
    if deviations is not None:
        args.append(f"--toolconformance-deviations={deviations}")
    result = pytester.runpytest_subprocess(*args, timeout=timeout)
    return result.ret, json.loads(report.read_text("utf-8")), result.stdout.str()


def statuses(report: dict) -> dict[str, str]:
    """The status of each of :data:`RULES` in ``report``."""
    return {r["id"]: r["status"] for r in report["rules"] if r["id"] in RULES.split(" or ")}
