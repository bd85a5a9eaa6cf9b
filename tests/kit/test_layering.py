"""The kit's layers and its one public face.

- reference_host is the oracle and knows nothing of the kit: it imports no module of
  pytest_toolconformance (its wire server lives in the kit, pytest_toolconformance.host.wire);
- the kit reaches reference_host only through its face (``reference_host/__init__.py``), so the
  reference host's modules can move without breaking the kit;
- the reports and the fixtures never import a suite (the suites use them, not the other way);
- every import of the kit that docs/*.md and README.md show resolves, through the package's face
  (``pytest_toolconformance``) or one of its public modules (``sdk``, ``strategies``).
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

import pytest_toolconformance
from tests.kit.test_import_cycles import PACKAGES, REPO, import_graph, modules_under

GRAPH = import_graph(modules_under(REPO, PACKAGES))
#: The modules a user imports by name; everything else of the kit is reached through the face.
PUBLIC = {"pytest_toolconformance", "pytest_toolconformance.sdk", "pytest_toolconformance.steps",
          "pytest_toolconformance.strategies"}


def _imports_of(prefix: str) -> dict[str, set[str]]:
    return {module: targets for module, targets in GRAPH.items() if module == prefix or module.startswith(prefix + ".")}


def test_the_reference_host_imports_nothing_of_the_kit() -> None:
    wrong = {m: sorted(t for t in targets if t.startswith("pytest_toolconformance"))
             for m, targets in _imports_of("reference_host").items()}
    assert not {m: t for m, t in wrong.items() if t}, wrong


def test_the_kit_reaches_the_reference_host_only_through_its_face() -> None:
    wrong = {m: sorted(t for t in targets if t.startswith("reference_host."))
             for m, targets in _imports_of("pytest_toolconformance").items()}
    assert not {m: t for m, t in wrong.items() if t}, wrong


@pytest.mark.parametrize("layer", ["pytest_toolconformance.report", "pytest_toolconformance.fixtures"])
def test_reports_and_fixtures_import_no_suite(layer: str) -> None:
    wrong = {m: sorted(t for t in targets if t.startswith("pytest_toolconformance.suites"))
             for m, targets in _imports_of(layer).items()}
    assert not {m: t for m, t in wrong.items() if t}, wrong


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
