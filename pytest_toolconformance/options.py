"""The kit's options, read once from the command line and ini, in one place."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from pytest_toolconformance.host.connect import DEFAULT_HOST

#: (option, ini key, help, kind). Every command-line option has an ini mirror.
OPTIONS: tuple[tuple[str, str, str, str], ...] = (
    ("--toolconformance", "toolconformance", "run the agent-host tool conformance suites", "bool"),
    ("--toolconformance-host", "toolconformance_host",
     "host under test: module:factory (a Python adapter) or exec:COMMAND (wire protocol); default: the reference host",
     "string"),
    ("--toolconformance-plugin", "toolconformance_plugins",
     "plugin to check: a folder with plugin.json, a manifest, or an entry file (repeatable)", "linelist"),
    ("--toolconformance-report", "toolconformance_report", "write a JSON conformance report by rule to PATH", "string"),
    ("--toolconformance-deviations", "toolconformance_deviations",
     "known deviations file (TOML or JSON): listed rules that fail are reported as deviation", "string"),
    ("--toolconformance-max-examples", "toolconformance_max_examples",
     "hypothesis max_examples for generated cases (default 50)", "string"),
    ("--toolconformance-seed", "toolconformance_seed", "hypothesis seed for reproducible generated cases", "string"),
    ("--toolconformance-timeout", "toolconformance_timeout",
     "seconds a plugin or host may take for one step before it is reported (default 5)", "string"),
    ("--toolconformance-tool-budget", "toolconformance_tool_budget",
     "COST-2: advertised bytes a tool may cost per turn; an overrun fails (default: report only)", "string"),
    ("--toolconformance-pass-env", "toolconformance_pass_env",
     "environment variable NAME a plugin's processes may see; they get a scrubbed environment otherwise (repeatable)",
     "linelist"),
)


@dataclass(frozen=True)
class Settings:
    enabled: bool = False
    host: str = DEFAULT_HOST
    plugins: tuple[str, ...] = ()
    report: str | None = None
    deviations: str | None = None
    max_examples: int = 50
    seed: int | None = None
    timeout: float = 5.0
    tool_budget: int | None = None
    pass_env: tuple[str, ...] = ()
    sources: dict[str, str] = field(default_factory=dict)

    def header_lines(self) -> list[str]:
        return [
            f"toolconformance: host={self.host}",
            f"toolconformance: plugins={', '.join(self.plugins) or '(none)'}",
            f"toolconformance: report={self.report or '(none)'} deviations={self.deviations or '(none)'}",
            f"toolconformance: max_examples={self.max_examples} seed={self.seed if self.seed is not None else 'random'}"
            f" timeout={self.timeout:g}s tool_budget={self.tool_budget if self.tool_budget is not None else '(none)'}",
        ]


def _dest(option: str) -> str:
    return option.lstrip("-").replace("-", "_")


def add_options(parser: pytest.Parser) -> None:
    group = parser.getgroup("toolconformance", "agent host tool conformance (pytest-toolconformance)")
    for option, ini, help_text, kind in OPTIONS:
        if kind == "bool":
            group.addoption(option, action="store_true", default=None, dest=_dest(option), help=help_text)
            parser.addini(ini, help_text, type="bool", default=False)
        elif kind == "linelist":
            metavar = "NAME" if option.endswith("-env") else "PATH"
            group.addoption(option, action="append", default=None, dest=_dest(option), metavar=metavar, help=help_text)
            parser.addini(ini, help_text, type="linelist", default=[])
        else:
            group.addoption(option, action="store", default=None, dest=_dest(option), help=help_text)
            parser.addini(ini, help_text, type="string", default="")


def _number(name: str, raw: Any, cast: type, minimum: float) -> Any:
    try:
        value = cast(raw)
    except (TypeError, ValueError):
        raise pytest.UsageError(f"{name}={raw!r} must be a {cast.__name__}") from None
    if value < minimum:
        raise pytest.UsageError(f"{name}={raw!r} must be at least {minimum:g}")
    return value


def read_settings(config: pytest.Config) -> Settings:
    """Read the options; a bad value is a :class:`pytest.UsageError` naming the option."""

    def get(option: str, ini: str) -> tuple[Any, str]:
        value = config.getoption(_dest(option))
        if value is not None:
            return value, option
        raw = config.getini(ini)
        return (raw if raw not in ("", []) else None), ini

    enabled, _ = get("--toolconformance", "toolconformance")
    host, _ = get("--toolconformance-host", "toolconformance_host")
    plugins, _ = get("--toolconformance-plugin", "toolconformance_plugins")
    report, _ = get("--toolconformance-report", "toolconformance_report")
    deviations, _ = get("--toolconformance-deviations", "toolconformance_deviations")
    max_examples, mx_src = get("--toolconformance-max-examples", "toolconformance_max_examples")
    seed, seed_src = get("--toolconformance-seed", "toolconformance_seed")
    timeout, to_src = get("--toolconformance-timeout", "toolconformance_timeout")
    budget, budget_src = get("--toolconformance-tool-budget", "toolconformance_tool_budget")
    pass_env, _ = get("--toolconformance-pass-env", "toolconformance_pass_env")
    return Settings(
        enabled=bool(enabled),
        host=host or DEFAULT_HOST,
        plugins=tuple(plugins or ()),
        report=report,
        deviations=deviations,
        max_examples=_number(mx_src, max_examples, int, 1) if max_examples is not None else 50,
        seed=_number(seed_src, seed, int, 0) if seed is not None else None,
        timeout=_number(to_src, timeout, float, 0.1) if timeout is not None else 5.0,
        tool_budget=_number(budget_src, budget, int, 1) if budget is not None else None,
        pass_env=tuple(pass_env or ()),
    )


# A stack, because pytester runs a pytest session inside another one.
_CURRENT: list[Settings] = [Settings()]


def current() -> Settings:
    """The settings of the running pytest session (defaults outside one)."""
    return _CURRENT[-1]


def install(settings: Settings) -> None:
    _CURRENT.append(settings)


def uninstall() -> None:
    if len(_CURRENT) > 1:
        _CURRENT.pop()
