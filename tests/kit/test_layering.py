"""The kit's layers and its one public face.

- reference_host is the oracle and knows nothing of the kit: it imports no module of
  pytest_toolconformance (its wire server lives in the kit, pytest_toolconformance.host.wire);
- the kit reaches reference_host only through its face (``reference_host/__init__.py``), so the
  reference host's modules can move without breaking the kit;
- the reports and the fixtures never import a suite (the suites use them, not the other way);
- a run has one owner of its wiring: the report reads only what pytest recorded and the facts it is
  handed, so report/ imports no seam side (host/, plugins/, suites/, the process layer, reference_host);
  options.py is pure settings and imports nothing of the kit; plugin.py alone registers the kit's
  pytest plugins; report/outcomes.py alone decides a check's outcome (``pytest_runtest_makereport``,
  ``pytest_report_teststatus``);
- every import of the kit that docs/*.md and README.md show resolves, through the package's face
  (``pytest_toolconformance``) or one of its public modules (``sdk``, ``strategies``);
- no module of the kit or of the reference host is over 600 lines (one past that holds several jobs).
"""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

import pytest_toolconformance
from tests.kit.test_import_cycles import PACKAGES, REPO, import_graph, modules_under

GRAPH = import_graph(modules_under(REPO, PACKAGES))
#: The modules a user imports by name; everything else of the kit is reached through the face.
PUBLIC = {
    "pytest_toolconformance",
    "pytest_toolconformance.sdk",
    "pytest_toolconformance.steps",
    "pytest_toolconformance.strategies",
}


def _imports_of(prefix: str) -> dict[str, set[str]]:
    return {module: targets for module, targets in GRAPH.items() if module == prefix or module.startswith(prefix + ".")}


def test_the_reference_host_imports_nothing_of_the_kit() -> None:
    wrong = {
        m: sorted(t for t in targets if t.startswith("pytest_toolconformance"))
        for m, targets in _imports_of("reference_host").items()
    }
    assert not {m: t for m, t in wrong.items() if t}, wrong


def test_the_kit_reaches_the_reference_host_only_through_its_face() -> None:
    wrong = {
        m: sorted(t for t in targets if t.startswith("reference_host."))
        for m, targets in _imports_of("pytest_toolconformance").items()
    }
    assert not {m: t for m, t in wrong.items() if t}, wrong


def test_the_fixtures_import_no_suite() -> None:
    wrong = {
        m: sorted(t for t in targets if t.startswith("pytest_toolconformance.suites"))
        for m, targets in _imports_of("pytest_toolconformance.fixtures").items()
    }
    assert not {m: t for m, t in wrong.items() if t}, wrong


# -- the wiring of a run ------------------------------------------------------------------------------

#: What report/ may import of the kit: itself and the run's vocabulary (the failure vocabulary, the
#: rules, the settings, the rule sets, the version). Anything else is a seam side or the process layer,
#: whose facts plugin.py hands the report in pytest_configure.
REPORT_READS = (
    "pytest_toolconformance.report",
    "pytest_toolconformance.findings",
    "pytest_toolconformance.rules",
    "pytest_toolconformance.options",
    "pytest_toolconformance.ruleset",
    "pytest_toolconformance.version",
)
#: What options.py may import of the kit: nothing (the defaults it needs are its own constants).
OPTIONS_READS: tuple[str, ...] = ()
WIRING = "pytest_toolconformance.plugin"
OUTCOMES = "pytest_toolconformance.report.outcomes"
OUTCOME_HOOKS = ("pytest_runtest_makereport", "pytest_report_teststatus")


def _reaches_past(graph: dict[str, set[str]], layer: str, allowed: tuple[str, ...]) -> dict[str, list[str]]:
    """Each module of ``layer`` with the modules it imports beyond ``allowed`` (a name or a package)."""

    def ok(target: str) -> bool:
        return any(target == a or target.startswith(a + ".") for a in allowed)

    found = {
        m: sorted(t for t in targets if not ok(t))
        for m, targets in graph.items()
        if m == layer or m.startswith(layer + ".")
    }
    return {m: t for m, t in found.items() if t}


def _registers_plugins(tree: ast.AST) -> list[int]:
    """The lines that register a pytest plugin: ``<...>.pluginmanager.register(...)`` or
    ``.import_plugin(...)``, directly or through a name bound to a plugin manager."""
    managers = {
        target.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign) and ast.unparse(node.value).endswith("pluginmanager")
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    lines = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("register", "import_plugin")
        ):
            receiver = node.func.value
            if ast.unparse(receiver).endswith("pluginmanager") or (
                isinstance(receiver, ast.Name) and receiver.id in managers
            ):
                lines.append(node.lineno)
    return lines


def _outcome_hooks(tree: ast.AST) -> list[str]:
    """The implementations of the outcome hooks in a module: by name (pytest takes a hook by its
    ``pytest_`` name) or by a ``specname=`` that names one."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        specnames = [
            kw.value.value
            for deco in node.decorator_list
            if isinstance(deco, ast.Call)
            for kw in deco.keywords
            if kw.arg == "specname" and isinstance(kw.value, ast.Constant)
        ]
        if any(node.name.startswith(hook) for hook in OUTCOME_HOOKS) or any(n in OUTCOME_HOOKS for n in specnames):
            found.append(node.name)
    return found


def _wiring_breaches(base: Path) -> dict[str, object]:
    """Every breach of the run's wiring under ``base``, by the rule it breaks."""
    modules = modules_under(base, PACKAGES)
    graph = import_graph(modules)
    trees = {name: ast.parse(path.read_text("utf-8")) for name, path in modules.items()}
    return {
        "report reaches a seam side": _reaches_past(graph, "pytest_toolconformance.report", REPORT_READS),
        "options imports the kit": _reaches_past(graph, "pytest_toolconformance.options", OPTIONS_READS),
        "a plugin registered outside plugin.py": {
            name: lines for name, tree in trees.items() if name != WIRING and (lines := _registers_plugins(tree))
        },
        "an outcome hook outside report/outcomes.py": {
            name: hooks for name, tree in trees.items() if name != OUTCOMES and (hooks := _outcome_hooks(tree))
        },
    }


def test_the_wiring_of_a_run_has_one_owner() -> None:
    breaches = {rule: found for rule, found in _wiring_breaches(REPO).items() if found}
    assert not breaches, breaches


def test_the_wiring_check_names_each_breach(tmp_path: Path) -> None:
    for rel, text in {
        "reference_host/__init__.py": "",
        "pytest_toolconformance/__init__.py": "",
        "pytest_toolconformance/findings.py": "",
        "pytest_toolconformance/plugin.py": "def pytest_configure(config):\n    config.pluginmanager.register(1)\n",
        "pytest_toolconformance/host/__init__.py": "",
        "pytest_toolconformance/host/connect.py": "DEFAULT_HOST = 'x'\n",
        "pytest_toolconformance/report/__init__.py": "",
        "pytest_toolconformance/report/outcomes.py": "def pytest_runtest_makereport(item, call): ...\n",
        "pytest_toolconformance/report/hooks.py": (
            "from pytest_toolconformance.findings import Finding\n"
            "from pytest_toolconformance.host.connect import DEFAULT_HOST\n"
        ),
        "pytest_toolconformance/options.py": "from pytest_toolconformance.host.connect import DEFAULT_HOST\n",
        "pytest_toolconformance/ruleset.py": (
            "import pytest\n\n\ndef configure(config):\n    pm = config.pluginmanager\n    pm.register(object())\n"
        ),
        "pytest_toolconformance/wire.py": (
            "import pytest\n\n\n@pytest.hookimpl(specname='pytest_report_teststatus')\ndef status(report): ...\n"
        ),
    }.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    assert _wiring_breaches(tmp_path) == {
        "report reaches a seam side": {"pytest_toolconformance.report.hooks": ["pytest_toolconformance.host.connect"]},
        "options imports the kit": {"pytest_toolconformance.options": ["pytest_toolconformance.host.connect"]},
        "a plugin registered outside plugin.py": {"pytest_toolconformance.ruleset": [6]},
        "an outcome hook outside report/outcomes.py": {"pytest_toolconformance.wire": ["status"]},
    }


def test_the_layering_check_can_fail(tmp_path: Path) -> None:
    for rel, text in {
        "reference_host/__init__.py": "",
        "reference_host/bad.py": "from pytest_toolconformance import x\n",
        "pytest_toolconformance/__init__.py": "",
    }.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    graph = import_graph(modules_under(tmp_path, PACKAGES))
    assert graph["reference_host.bad"] == {"pytest_toolconformance"}


def test_the_face_check_sees_a_module_reached_past_the_face(tmp_path: Path) -> None:
    for rel, text in {
        "reference_host/__init__.py": "",
        "reference_host/tools.py": "",
        "pytest_toolconformance/__init__.py": "from reference_host.tools import Tool\n",
    }.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    graph = import_graph(modules_under(tmp_path, PACKAGES))
    assert graph["pytest_toolconformance"] == {"reference_host.tools"}


_IMPORT = re.compile(r"^\s*from (pytest_toolconformance[\w.]*) import ([\w, ]+?)(?:\s+as \w+)?\s*(?:#.*)?$", re.M)


def _documented_imports() -> list[tuple[str, str, str]]:
    found = []
    for doc in [*sorted((REPO / "docs").glob("*.md")), REPO / "README.md"]:
        text = doc.read_text("utf-8")
        for block in re.findall(r"```(?:python|py)\n(.*?)```", text, re.S):
            for module, names in _IMPORT.findall(block):
                found += [(doc.name, module, name.strip()) for name in names.split(",") if name.strip()]
    return found


def test_the_docs_show_imports_of_the_kit() -> None:
    assert len(_documented_imports()) >= 5, _documented_imports()


@pytest.mark.parametrize(("doc", "module", "name"), _documented_imports())
def test_every_documented_import_resolves_through_the_public_face(doc: str, module: str, name: str) -> None:
    assert module in PUBLIC, f"{doc} imports {name} from {module}; import it from pytest_toolconformance instead"
    assert hasattr(importlib.import_module(module), name), f"{doc}: {module} has no {name}"


def test_the_face_holds_what_it_lists() -> None:
    for name in pytest_toolconformance.__all__:
        assert getattr(pytest_toolconformance, name) is not None, name


#: A module past this many lines holds more than one job: split it by job.
MAX_MODULE_LINES = 600


def _modules_over(base: Path, limit: int) -> dict[str, int]:
    over = {}
    for module, path in modules_under(base, PACKAGES).items():
        lines = len(path.read_text("utf-8").splitlines())
        if lines > limit:
            over[module] = lines
    return over


def test_no_module_is_over_600_lines() -> None:
    over = _modules_over(REPO, MAX_MODULE_LINES)
    assert not over, f"modules over {MAX_MODULE_LINES} lines, each to split by job: {over}"


def test_the_length_check_names_a_long_module(tmp_path: Path) -> None:
    for rel, text in {
        "reference_host/__init__.py": "",
        "pytest_toolconformance/__init__.py": "",
        "pytest_toolconformance/short.py": "x = 1\n" * MAX_MODULE_LINES,
        "pytest_toolconformance/long.py": "x = 1\n" * (MAX_MODULE_LINES + 1),
    }.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    assert _modules_over(tmp_path, MAX_MODULE_LINES) == {"pytest_toolconformance.long": MAX_MODULE_LINES + 1}
