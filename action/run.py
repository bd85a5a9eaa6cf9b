"""The run step of the repository's GitHub Action (action.yml): one conformance run from the action's inputs.

The inputs come as ``TOOLCONFORMANCE_ACTION_*`` variables; the run writes its report (JSON, Markdown, HTML)
and junit XML into the report folder, the kit appends the Markdown to ``$GITHUB_STEP_SUMMARY``, and this
step writes the verdict, the counts by status and the report paths to ``$GITHUB_OUTPUT``. It exits with
pytest's exit code, so the job is red when the run does not conform (docs/ci.md, exit codes).
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

PREFIX = "TOOLCONFORMANCE_ACTION_"


def _input(env: Mapping[str, str], name: str) -> str:
    return env.get(PREFIX + name, "").strip()


def command(env: Mapping[str, str], report: Path, junit: Path) -> list[str]:
    """The pytest command the inputs ask for."""
    argv = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider"]
    plugins = [line.strip() for line in _input(env, "PLUGIN").splitlines() if line.strip()]
    argv += [f"--toolconformance-plugin={plugin}" for plugin in plugins]
    host = _input(env, "HOST")
    if host or not plugins:
        argv.append("--toolconformance")
    if host:
        argv.append(f"--toolconformance-host={host}")
    if plugins and host:
        argv.append("--toolconformance-suites=all")
    for option, name in (("deviations", "DEVIATIONS"), ("ruleset", "RULESET")):
        if value := _input(env, name):
            argv.append(f"--toolconformance-{option}={value}")
    argv += [f"--toolconformance-report={report}", f"--junitxml={junit}"]
    return argv + shlex.split(_input(env, "ARGS"))


def outputs(report: Path, junit: Path, exit_code: int) -> dict[str, str]:
    """What the step answers: the verdict, its line, the counts by status and the paths written."""
    if not report.is_file():
        return {"verdict": "usage-error", "verdict-line": f"the run could not start (exit {exit_code})",
                "counts": "{}", "report-json": "", "report-markdown": "", "report-html": "", "junit": ""}
    from pytest_toolconformance.report.model import verdict_line

    data = json.loads(report.read_text("utf-8"))
    return {
        "verdict": "conforms" if data["ok"] else "does-not-conform",
        "verdict-line": verdict_line(data),
        "counts": json.dumps(data["summary"], separators=(",", ":")),
        "report-json": str(report),
        "report-markdown": str(report.with_suffix(".md")),
        "report-html": str(report.with_suffix(".html")),
        "junit": str(junit) if junit.is_file() else "",
    }


def write_outputs(values: Mapping[str, str], path: str | None) -> None:
    """Append ``name=value`` lines to ``$GITHUB_OUTPUT`` (printed when it is not set)."""
    lines = "".join(f"{name}={value}\n" for name, value in values.items())
    if path:
        with open(path, "a", encoding="utf-8") as out:
            out.write(lines)
    else:
        sys.stdout.write(lines)


def main(env: Mapping[str, str] = os.environ) -> int:
    folder = Path(_input(env, "REPORT_DIR") or "conformance-out").resolve()
    report, junit = folder / "report.json", folder / "junit.xml"
    argv = command(env, report, junit)
    report.unlink(missing_ok=True)  # a run that cannot start writes none: never read an earlier run's
    print("toolconformance action:", shlex.join(argv[2:]), flush=True)
    exit_code = subprocess.run(argv, check=False).returncode
    values = outputs(report, junit, exit_code)
    write_outputs(values, env.get("GITHUB_OUTPUT"))
    print(f"toolconformance action: {values['verdict']}: {values['verdict-line']}", flush=True)
    return exit_code


if __name__ == "__main__":
    sys.exit(main())
