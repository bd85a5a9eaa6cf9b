"""Where things are, for the kit's own tests: the repository, and the subjects the tests run on.

The tests mirror the code they test (``tests/kit/...`` for ``pytest_toolconformance/...``,
``tests/reference_host/`` for ``reference_host/``); what they run on sits under ``tests/subjects/``:
broken and conforming plugins, mutant hosts, wire hosts in other shapes, the corpus of real extensions.
"""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
SHARED = REPO.parent / "shared"
NODE_MODULES = TESTS / "node_modules"
SUBJECTS = TESTS / "subjects"
PLUGINS = SUBJECTS / "plugins"
MUTANTS = SUBJECTS / "mutants"
WIRE_HOSTS = SUBJECTS / "wire_hosts"
CORPUS = SUBJECTS / "corpus"
JS_SUPPORT = SUBJECTS / "js_support"
#: Bun from npm (tests/package.json's optional dependency), for the JS host kit on Bun.
BUN = NODE_MODULES / "@oven" / "bun-linux-x64" / "bin" / "bun"
