"""The kit's options, read once from the command line and ini, kept in ``config.stash``.

:func:`read_settings` turns options into :class:`Settings` (a bad value is a one-line usage error
naming the option); plugin.py stores them with :func:`store`, and everything else reads them from
the config (:func:`of`) or, inside a running check, with :func:`active`. Pure settings: this module
imports nothing else of the kit (tests/kit/test_layering.py), so every layer may read it; what a
setting means to a host or a plugin (a host spec's adapter, a folder's pi extensions) is worked out
where the run is built (plugin.py).
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

SUITE_CHOICES = ("host", "plugin", "all")
#: The host a run checks when none is given: the reference host, in process.
DEFAULT_HOST = "pytest_toolconformance.host.inprocess:factory"
#: The seed of a run that names none: runs are deterministic unless ``--toolconformance-seed=random``.
DEFAULT_SEED = 0
MAX_SEED = 2**32 - 1
DEFAULT_MAX_EXAMPLES = 50
DEFAULT_TIMEOUT = 5.0
#: A wire host's own start (its imports, a runtime it boots) is not a hang: it gets this long by default.
DEFAULT_HOST_STARTUP_TIMEOUT = 30.0
#: Seconds a plugin run may take by default: within a CI job's own limit, with room for its set-up.
DEFAULT_PLUGIN_BUDGET = 600.0


@dataclass(frozen=True)
class Option:
    flag: str
    ini: str
    help: str
    kind: str  # bool, string, linelist, int, float, seed, choice
    metavar: str | None = None

    @property
    def dest(self) -> str:
        return self.flag.lstrip("-").replace("-", "_")


#: Every command-line option has an ini mirror.
OPTIONS: tuple[Option, ...] = (
    Option(
        "--toolconformance",
        "toolconformance",
        "run the agent-host tool conformance suites (a --toolconformance-plugin alone runs them too)",
        "bool",
    ),
    Option(
        "--toolconformance-suites",
        "toolconformance_suites",
        "which suites run: host, plugin or all (default: plugin when a plugin is given, else host)",
        "choice",
        "host|plugin|all",
    ),
    Option(
        "--toolconformance-host",
        "toolconformance_host",
        "host under test: module:factory (a Python adapter) or exec:COMMAND (wire protocol); "
        "default: the reference host",
        "string",
        "SPEC",
    ),
    Option(
        "--toolconformance-plugin",
        "toolconformance_plugins",
        "plugin to check: a folder with plugin.json, a manifest, or an entry file (repeatable); "
        "given alone, it runs the plugin checks only",
        "linelist",
        "PATH",
    ),
    Option(
        "--toolconformance-report",
        "toolconformance_report",
        "write a JSON conformance report by rule to PATH (and PATH's .md and .html beside it)",
        "string",
        "PATH",
    ),
    Option(
        "--toolconformance-deviations",
        "toolconformance_deviations",
        "known deviations file (TOML or JSON): listed rules that fail are reported as deviation",
        "string",
        "PATH",
    ),
    Option(
        "--toolconformance-deviations-update",
        "toolconformance_deviations_update",
        "write this run's failures into the deviations file and remove its stale entries "
        "(a new entry's reason must then be written by a person)",
        "bool",
    ),
    Option(
        "--toolconformance-max-examples",
        "toolconformance_max_examples",
        f"generated cases per property, at least 1 (default {DEFAULT_MAX_EXAMPLES})",
        "int",
        "N",
    ),
    Option(
        "--toolconformance-seed",
        "toolconformance_seed",
        f"seed of the generated cases, 0 to {MAX_SEED}, or random to explore (default {DEFAULT_SEED})",
        "seed",
        "N|random",
    ),
    Option(
        "--toolconformance-timeout",
        "toolconformance_timeout",
        f"seconds a plugin or host may take for one step on an idle machine, at least 0.1 (default "
        f"{DEFAULT_TIMEOUT:g}); the bound is stretched by the load measured at start, a plugin step out of "
        "time is retried once, then errored; a wire host's request gets one more per 100 tools it holds",
        "float",
        "S",
    ),
    Option(
        "--toolconformance-host-startup-timeout",
        "toolconformance_host_startup_timeout",
        "seconds a wire host may take to start and answer the hello, at least 0.1 (default: "
        f"{DEFAULT_HOST_STARTUP_TIMEOUT:g}, or --toolconformance-timeout when that is longer)",
        "float",
        "S",
    ),
    Option(
        "--toolconformance-plugin-budget",
        "toolconformance_plugin_budget",
        f"seconds a plugin run may take on an idle machine, at least 1 (default {DEFAULT_PLUGIN_BUDGET:g}), "
        "stretched by the load measured at start as the step bound is; a check that starts after they are spent "
        "is errored, not judged, and the run does not pass",
        "float",
        "S",
    ),
    Option(
        "--toolconformance-tool-budget",
        "toolconformance_tool_budget",
        "COST-2: advertised bytes a tool may cost per turn, at least 1; an overrun fails (default: report only)",
        "int",
        "BYTES",
    ),
    Option(
        "--toolconformance-pass-env",
        "toolconformance_pass_env",
        "environment variable NAME a plugin's processes may see; they get a scrubbed environment otherwise "
        "(repeatable)",
        "linelist",
        "NAME",
    ),
    Option(
        "--toolconformance-ruleset",
        "toolconformance_ruleset",
        "the frozen rule set the run gates on (a name such as 2026.12, see pytest_toolconformance/rulesets/); a "
        "check the kit gained since is reported as new and advisory (default: latest, every rule and check)",
        "string",
        "NAME",
    ),
    Option(
        "--toolconformance-allow-unconfined",
        "toolconformance_allow_unconfined",
        "check plugins even where the kit cannot confine them (no namespaces here: their code can reach the "
        "network, the disk and the job's secrets); without it that is an error in CI (CI set)",
        "bool",
    ),
)
_INI_TYPES = {"bool": "bool", "linelist": "linelist", "int": "int", "float": "float"}


@dataclass(frozen=True)
class Settings:
    enabled: bool = False
    suites: str = "host"  # host, plugin or all
    host: str = DEFAULT_HOST
    plugins: tuple[str, ...] = ()
    report: str | None = None
    deviations: str | None = None
    deviations_update: bool = False
    max_examples: int = DEFAULT_MAX_EXAMPLES
    seed: int = DEFAULT_SEED
    seed_source: str = "default"  # default, given, random
    timeout: float = DEFAULT_TIMEOUT
    host_startup_timeout: float | None = None
    plugin_budget: float = DEFAULT_PLUGIN_BUDGET
    tool_budget: int | None = None
    pass_env: tuple[str, ...] = ()
    allow_unconfined: bool = False
    ruleset: str = "latest"

    @property
    def host_suites(self) -> bool:
        return self.enabled and self.suites in ("host", "all")

    @property
    def startup_timeout(self) -> float:
        """Seconds a wire host has to start and answer the hello."""
        given = self.host_startup_timeout
        return given if given is not None else max(DEFAULT_HOST_STARTUP_TIMEOUT, self.timeout)

    @property
    def plugin_suites(self) -> bool:
        return self.enabled and self.suites in ("plugin", "all") and bool(self.plugins)

    def seed_sentence(self) -> str:
        how = {
            "default": "the default seed; --toolconformance-seed=random explores",
            "given": "given by --toolconformance-seed",
            "random": "drawn at random for this run",
        }[self.seed_source]
        return f"seed {self.seed} ({how}); rerun with --toolconformance-seed={self.seed} to get the same cases"

    def header_lines(self) -> list[str]:
        return [
            f"toolconformance: suites={self.suites} host="
            + (self.host if self.host_suites else "(none: plugins are checked in the kit's reference host)"),
            f"toolconformance: plugins={', '.join(self.plugins) or '(none)'}",
            f"toolconformance: report={self.report or '(none)'} deviations={self.deviations or '(none)'}",
            f"toolconformance: seed={self.seed} ({self.seed_source}) max_examples={self.max_examples}"
            f" timeout={self.timeout:g}s host_startup_timeout={self.startup_timeout:g}s"
            f" tool_budget={self.tool_budget if self.tool_budget is not None else '(none)'}",
        ]


def add_options(parser: pytest.Parser) -> None:
    group = parser.getgroup("toolconformance", "agent host tool conformance (pytest-toolconformance)")
    for option in OPTIONS:
        if option.kind == "bool":
            group.addoption(option.flag, action="store_true", default=None, dest=option.dest, help=option.help)
            parser.addini(option.ini, option.help, type="bool", default=False)
        elif option.kind == "linelist":
            group.addoption(
                option.flag, action="append", default=None, dest=option.dest, metavar=option.metavar, help=option.help
            )
            parser.addini(option.ini, option.help, type="linelist", default=[])
        else:
            group.addoption(
                option.flag, action="store", default=None, dest=option.dest, metavar=option.metavar, help=option.help
            )
            ini_type = _INI_TYPES.get(option.kind, "string")
            parser.addini(option.ini, option.help, type=ini_type, default=None if ini_type != "string" else "")


_NOUNS = {int: "an integer", float: "a number"}


def _number(name: str, raw: Any, cast: type, minimum: float, maximum: float | None = None) -> Any:
    if isinstance(raw, bool):
        raise pytest.UsageError(f"{name}={raw!r} must be {_NOUNS[cast]}")
    try:
        value = cast(raw)
    except (TypeError, ValueError):
        raise pytest.UsageError(f"{name}={raw!r} must be {_NOUNS[cast]}") from None
    if value < minimum or (maximum is not None and value > maximum):
        bounds = f"from {minimum} to {maximum}" if maximum is not None else f"at least {minimum}"
        raise pytest.UsageError(f"{name}={raw!r} is out of range: it must be {bounds}")
    return value


def read_settings(config: pytest.Config) -> Settings:
    """Read the options; a bad value is a :class:`pytest.UsageError` naming the option."""

    def get(option: Option) -> tuple[Any, str]:
        value = config.getoption(option.dest)
        if value is not None:
            return value, option.flag
        try:
            raw = config.getini(option.ini)
        except (TypeError, ValueError, pytest.UsageError) as exc:  # pytest's own int/float ini parsing
            noun = _NOUNS.get({"int": int, "float": float}.get(option.kind, int), "a number")
            raise pytest.UsageError(f"ini {option.ini} must be {noun} ({exc})") from None
        return (raw if raw not in ("", [], None) else None), f"ini {option.ini}"

    values = {option.dest: get(option) for option in OPTIONS}

    def number(dest: str, cast: type, minimum: float, default: Any, maximum: float | None = None) -> Any:
        raw, source = values[dest]
        return default if raw is None else _number(source, raw, cast, minimum, maximum)

    plugins = tuple(values["toolconformance_plugin"][0] or ())
    suites, suites_src = values["toolconformance_suites"]
    if suites is not None and suites not in SUITE_CHOICES:
        raise pytest.UsageError(f"{suites_src}={suites!r} must be one of {', '.join(SUITE_CHOICES)}")
    if suites in ("plugin", "all") and not plugins:
        raise pytest.UsageError(f"{suites_src}={suites} needs a plugin to check: add --toolconformance-plugin=PATH")
    seed_raw, seed_src = values["toolconformance_seed"]
    if seed_raw is None:
        seed, seed_source = DEFAULT_SEED, "default"
    elif str(seed_raw).strip().lower() == "random":
        seed, seed_source = random.SystemRandom().randint(0, MAX_SEED), "random"
    else:
        seed, seed_source = _number(seed_src, seed_raw, int, 0, MAX_SEED), "given"
    host, host_src = values["toolconformance_host"]
    if host and host != DEFAULT_HOST and (suites or ("plugin" if plugins else "host")) == "plugin":
        # Plugins are installed into the kit's reference host, the oracle of the plugin rules: a host given
        # here would be named in the header yet check nothing.
        raise pytest.UsageError(
            f"{host_src}={host} is not used by a plugin-only run: plugins are checked in the kit's reference host. "
            "Add --toolconformance-suites=all to check that host with the host suites as well, or leave the "
            "host out"
        )
    return Settings(
        # A plugin to check is reason enough to run the kit: `pytest --toolconformance-plugin=.` alone.
        enabled=bool(values["toolconformance"][0]) or bool(plugins),
        suites=suites or ("plugin" if plugins else "host"),
        host=host or DEFAULT_HOST,
        plugins=plugins,
        report=values["toolconformance_report"][0],
        deviations=values["toolconformance_deviations"][0],
        deviations_update=bool(values["toolconformance_deviations_update"][0]),
        max_examples=number("toolconformance_max_examples", int, 1, DEFAULT_MAX_EXAMPLES),
        seed=seed,
        seed_source=seed_source,
        timeout=number("toolconformance_timeout", float, 0.1, DEFAULT_TIMEOUT),
        host_startup_timeout=number("toolconformance_host_startup_timeout", float, 0.1, None),
        plugin_budget=number("toolconformance_plugin_budget", float, 1, DEFAULT_PLUGIN_BUDGET),
        tool_budget=number("toolconformance_tool_budget", int, 1, None),
        pass_env=tuple(values["toolconformance_pass_env"][0] or ()),
        allow_unconfined=bool(values["toolconformance_allow_unconfined"][0]),
        ruleset=(values["toolconformance_ruleset"][0] or "latest").strip(),
    )


SETTINGS_KEY = pytest.StashKey[Settings]()
WORKER_SEED = "toolconformance_seed"


def store(config: pytest.Config, settings: Settings) -> Settings:
    """Keep the run's settings on its config; an xdist worker takes the controller's seed, so that a
    random seed is one seed for the whole run."""
    workerinput = getattr(config, "workerinput", None)
    if isinstance(workerinput, dict) and WORKER_SEED in workerinput:
        settings = replace(settings, seed=int(workerinput[WORKER_SEED]))
    config.stash[SETTINGS_KEY] = settings
    return settings


def of(config: pytest.Config) -> Settings:
    """The settings of this pytest run (defaults when the kit was not configured, e.g. ``-p no:``)."""
    return config.stash.get(SETTINGS_KEY, Settings())


_ACTIVE: ContextVar[Settings | None] = ContextVar("toolconformance_settings", default=None)


@contextlib.contextmanager
def activated(settings: Settings) -> Iterator[None]:
    """Make ``settings`` the :func:`active` ones while a test runs (plugin.py wraps every test in it)."""
    token = _ACTIVE.set(settings)
    try:
        yield
    finally:
        _ACTIVE.reset(token)


def active() -> Settings:
    """The settings of the run whose test is running now: what a property reads its seed and examples from."""
    return _ACTIVE.get() or Settings()


def resolve_path(config: pytest.Config, dest: str, value: str) -> Path:
    """A path option's file: from the command line, relative to where pytest was started; from ini, to the ini file."""
    path = Path(value).expanduser()
    if path.is_absolute():
        return path
    from_cli = config.getoption(dest, None) is not None
    base = config.invocation_params.dir if from_cli or config.inipath is None else config.inipath.parent
    return Path(base) / path
