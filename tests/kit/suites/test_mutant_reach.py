"""The mutant selection (mutant_reach.py): what a mutant changes, what a check reaches, what is left out."""

from __future__ import annotations

import importlib
import sys
import textwrap
from types import ModuleType

import pytest

from pytest_toolconformance.host.inprocess import reference_adapter
from reference_host.registry import RegistrationContext
from reference_host.sandbox import FileTools
from reference_host.session import Session
from tests.kit.suites import mutant_reach
from tests.subjects.mutants import (
    access_7_guard_dropped,
    grant_1_grant_captured_at_open,
    name_7_shallow_copy_over_the_wire,
    reg_6_hooks_before_grant,
    schema_1_no_flat_check,
)
from tests.subjects.mutants.base import plumbing


def points_of(module: ModuleType) -> set[tuple[type, str]]:
    adapter = module.factory()
    try:
        return set(mutant_reach.changed_points(module, adapter))
    finally:
        adapter.close()


def test_a_mutant_changes_the_base_methods_it_overrides_and_not_its_plumbing() -> None:
    # mutant_host's MutantHost re-classes sessions, sandboxes and file tools (plumbing): not a change.
    assert points_of(access_7_guard_dropped) == {(FileTools, "_guard")}
    # context_mutant wraps every plugin to re-class its context (plumbing): only the context's override.
    assert points_of(schema_1_no_flat_check) == {(RegistrationContext, "_check")}


def test_a_hook_at_session_open_is_a_change_of_open_session() -> None:
    from reference_host.host import Host

    assert points_of(grant_1_grant_captured_at_open) == {(Host, "open_session"), (Session, "_stage_grant")}


@pytest.mark.parametrize("module", [reg_6_hooks_before_grant, name_7_shallow_copy_over_the_wire],
                         ids=["class-constant", "over-the-wire"])
def test_a_change_no_call_shows_runs_every_check(module: ModuleType) -> None:
    with pytest.raises(mutant_reach.Untraceable):
        points_of(module)


def test_plumbing_marks_only_the_method_it_decorates() -> None:
    class Plumbed(Session):
        @plumbing
        def view(self) -> object:
            return super().view()

        def compose(self) -> object:
            return super().compose()

    module = ModuleType("tests.subjects.mutants.fake")
    Plumbed.__module__ = module.__name__
    module.Plumbed = Plumbed  # type: ignore[attr-defined]
    adapter = reference_adapter()
    try:
        assert mutant_reach.changed_points(module, adapter) == {(Session, "compose")}
    finally:
        adapter.close()


CHECKS = '''
    import threading
    import reach_subject


    def test_reaches_in_a_thread():
        worker = threading.Thread(target=reach_subject.Base().changed)
        worker.start()
        worker.join()


    def test_reaches_nothing_changed():
        reach_subject.Base().unchanged()


    def test_fails_without_reaching():
        assert reach_subject.Base().unchanged() == "changed"


    def test_reaches_through_a_table():
        reach_subject.TABLE["kept"](reach_subject.Base())
'''

SUBJECT = '''
    class Base:
        def changed(self):
            return "changed"

        def unchanged(self):
            return "unchanged"

        def kept(self):
            return "kept"


    TABLE = {"kept": Base.kept}
'''


@pytest.fixture
def reach_subject(pytester: pytest.Pytester) -> ModuleType:
    pytester.makepyfile(reach_subject=textwrap.dedent(SUBJECT), test_checks=textwrap.dedent(CHECKS))
    pytester.syspathinsert()
    module = importlib.import_module("reach_subject")
    yield module
    sys.modules.pop("reach_subject", None)


def test_a_check_reaches_what_it_calls_in_any_thread_and_a_held_method_is_everywhere(
    pytester: pytest.Pytester, reach_subject: ModuleType
) -> None:
    base = reach_subject.Base
    recorder = mutant_reach.ReachRecorder()
    with mutant_reach.recording([(base, "changed"), (base, "kept")], recorder) as everywhere:
        pytester.inline_run("-p", "no:cacheprovider", plugins=[recorder])
    assert vars(base)["changed"].__name__ == "changed" and not hasattr(vars(base)["changed"], "__wrapped__")
    reach = recorder.reach_map(everywhere)
    names = {key.rsplit("::", 1)[-1]: key for key in recorder.ran}
    assert reach.reached[names["test_reaches_in_a_thread"]] == {"reach_subject.Base.changed"}
    assert everywhere == {"reach_subject.Base.kept"}  # TABLE holds it: a call may pass the wrapper

    keep = reach.checks_to_run(frozenset({(base, "changed")}))
    kept = {name for name, key in names.items() if keep(key)}
    assert kept == {"test_reaches_in_a_thread", "test_fails_without_reaching"}
    assert keep("an unknown check") is True
    keep_held = reach.checks_to_run(frozenset({(base, "kept")}))
    assert all(keep_held(key) for key in names.values())


def test_left_out_checks_are_deselected_and_said(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_some="def test_kept():\n    pass\n\ndef test_left():\n    pass\n")
    reprec = pytester.inline_run(
        "-p", "no:cacheprovider", plugins=[mutant_reach.SelectChecks(lambda key: key.endswith("test_kept"))]
    )
    reprec.assertoutcome(passed=1)
    assert [item.name for item in reprec.getcall("pytest_deselected").items] == ["test_left"]
