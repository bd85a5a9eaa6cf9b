"""A mutant of tests/subjects/mutants/ served over the wire protocol:
``python tests/subjects/wire_hosts/mutant_host.py MODULE``.

MODULE names an in-process mutant (``tests.subjects.mutants.cap_1_counts_characters``); its ``factory()``
adapter (a :class:`reference_host.facade.JsonHost`) answers every request, so the kit meets the
same broken host through the wire client as in process.
"""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the checkout: tests.subjects.mutants is importable

from pytest_toolconformance.host.wire.reference_server import serve  # noqa: E402

MODULE = importlib.import_module(sys.argv[1])


if __name__ == "__main__":
    status = serve(make_host=lambda kit_timeout: MODULE.factory())
    sys.stderr.flush()
    os._exit(status)
