"""A property with ``share_draws`` meets exactly the values Hypothesis hands a property of the same
strategy, in the same order, and fails like one; and a plugin is called once per distinct call.

The plugin suites run several rules over the same strategies of a tool (REG-3, ERR-2, ERR-3, ERR-4
and NAME-5 over its valid arguments): their values are generated once per run and each distinct
call is made once (profile.run_property, subject.Subject.call). These tests hold that to what the
rules would see without it.
"""

from __future__ import annotations

import json
import sys
import tempfile
import textwrap
from pathlib import Path
from typing import Any

import pytest
from hypothesis.errors import FlakyFailure

from pytest_toolconformance import confinement, options, profile
from pytest_toolconformance.plugins.arguments import (
    breaking_call_arguments_for,
    call_arguments_for,
    each_breaking_call,
    simplest_arguments,
    unknown_only_for,
)
from tests.paths import PLUGINS

SCHEMAS = {
    "one string": {"type": "object", "properties": {"value": {"type": "string"}}, "required": ["value"]},
    "mixed, a path": {
        "type": "object",
        "properties": {
            "file_path": {"type": "string"},
            "times": {"type": "integer", "minimum": 1, "maximum": 5},
            "mode": {"enum": ["fast", "slow"]},
            "dry": {"type": "boolean"},
        },
        "required": ["file_path"],
    },
    "nested, any": {
        "type": "object",
        "properties": {"options": {"type": "object", "properties": {"depth": {"type": "number"}}}, "data": {}},
    },
}
BUILDERS = {"valid": call_arguments_for, "breaking": breaking_call_arguments_for, "unknown only": unknown_only_for}


@pytest.fixture(autouse=True)
def _fresh_draws() -> Any:
    yield
    profile._DRAWN.clear()


def _seen(strategy: Any, *, share: bool, examples: tuple[Any, ...] = ()) -> list[str]:
    seen: list[str] = []
    profile.run_property(strategy, lambda value: seen.append(json.dumps(value)), examples=examples, share_draws=share)
    return seen


@pytest.mark.parametrize("seed", [0, 982451653])
@pytest.mark.parametrize("builder", BUILDERS)
@pytest.mark.parametrize("schema", SCHEMAS)
def test_shared_draws_are_the_values_hypothesis_hands_a_passing_property(schema: str, builder: str, seed: int) -> None:
    strategy = BUILDERS[builder](SCHEMAS[schema])
    examples = tuple(each_breaking_call(SCHEMAS[schema])) if builder == "breaking" else ()
    with options.activated(options.Settings(seed=seed, max_examples=40)):
        plain = _seen(strategy, share=False, examples=examples)
        shared = _seen(strategy, share=True, examples=examples)
        again = _seen(strategy, share=True, examples=examples)  # from the run's store this time
    assert len(plain) > len(examples)
    assert shared == plain
    assert again == plain


def test_the_strategy_of_a_schema_is_one_object_for_every_rule() -> None:
    schema = SCHEMAS["mixed, a path"]
    assert call_arguments_for(schema) is call_arguments_for(json.loads(json.dumps(schema)))
    reordered = {
        "type": "object",
        "properties": dict(reversed(list(schema["properties"].items()))),
        "required": ["file_path"],
    }
    # Another key order generates other values: it is another strategy.
    assert call_arguments_for(reordered) is not call_arguments_for(schema)


def test_a_failing_shared_property_fails_as_hypothesis_reports_it_shrunk() -> None:
    schema = SCHEMAS["mixed, a path"]

    def body(value: dict[str, Any]) -> None:
        if value.get("times", 0) >= 3:
            raise AssertionError(f"times={value['times']}")

    with options.activated(options.Settings(seed=0, max_examples=60)):
        with pytest.raises(AssertionError) as plain:
            profile.run_property(call_arguments_for(schema), body)
        with pytest.raises(AssertionError) as shared:
            profile.run_property(call_arguments_for(schema), body, share_draws=True)
    assert str(shared.value) == str(plain.value) == "times=3"  # shrunk, not the first value that failed


def test_a_failure_hypothesis_does_not_meet_again_is_still_reported() -> None:
    calls: list[int] = []

    def body(value: dict[str, Any]) -> None:
        calls.append(1)
        if len(calls) == 5:  # fails once, at the fifth value, then never again
            raise AssertionError("the fifth call")

    with options.activated(options.Settings(seed=0, max_examples=20)), pytest.raises(AssertionError, match="fifth"):
        profile.run_property(call_arguments_for(SCHEMAS["one string"]), body, share_draws=True)


def test_each_property_gets_the_values_unchanged_by_the_one_before() -> None:
    strategy = call_arguments_for(SCHEMAS["one string"])
    with options.activated(options.Settings(seed=0, max_examples=10)):
        profile.run_property(strategy, lambda value: value.clear(), share_draws=True)
        assert all(_seen(strategy, share=True))
        assert all(json.loads(v) for v in _seen(strategy, share=True))


def test_without_share_draws_a_flaky_body_is_hypothesis_own_report() -> None:
    # The shared path must not swallow what Hypothesis says about a body that is not a function of
    # its value; without share_draws nothing changes.
    calls: list[int] = []

    def body(value: dict[str, Any]) -> None:
        calls.append(1)
        if len(calls) == 5:
            raise AssertionError("the fifth call")

    with options.activated(options.Settings(seed=0, max_examples=20)), pytest.raises(FlakyFailure):
        profile.run_property(call_arguments_for(SCHEMAS["one string"]), body)


COUNTING_PLUGIN = textwrap.dedent('''
    """Conforming, and appends the arguments of every execute to the file the test reads."""
    import json
    import os

    from reference_host import define_tool, text_result
    from reference_host.typebox import Type


    async def _execute(_call_id, params):
        with open(os.environ["TOOLCONF_TEST_CALL_LOG"], "a") as log:
            log.write(json.dumps(params) + "\\n")
        for name in params:
            if name not in ("value", "times"):
                return text_result(f"unknown parameter {name}; expected value and times")
        if not isinstance(params.get("value"), str):
            return text_result("value must be a string")
        if "times" in params and not isinstance(params["times"], int):
            return text_result("times must be an integer")
        return text_result(params["value"] * params.get("times", 1))


    def register(ctx):
        ctx.register_tool(define_tool(
            name="Repeat", label="Repeat", description="Repeats value.",
            parameters=Type.Object({"value": Type.String(description="Text."),
                                    "times": Type.Optional(Type.Integer(minimum=1, maximum=3))}),
            execute=_execute))
''')


def test_a_check_calls_the_plugin_once_per_distinct_call(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Within a check a call is one observation (made once, recalled on Hypothesis' replays); another
    check calls its own fresh instance of the plugin and observes again."""
    plugin = pytester.path / "counting.py"
    plugin.write_text(COUNTING_PLUGIN)
    log = pytester.path / "calls.log"
    # The log is the plugin's write outside its workspace: what is counted here is calls, not confinement.
    monkeypatch.setenv(confinement.NO_NAMESPACES_ENV, "1")
    monkeypatch.setenv("TOOLCONF_TEST_CALL_LOG", str(log))
    monkeypatch.setenv(confinement.PASS_ENV_ENV, "TOOLCONF_TEST_CALL_LOG")

    def calls_of(*args: str) -> list[str]:
        log.unlink(missing_ok=True)
        result = pytester.runpytest_inprocess(
            f"--toolconformance-plugin={plugin}", "-p", "no:cacheprovider", "--toolconformance-allow-unconfined", *args
        )
        assert result.ret == 0, result.stdout.str()
        return log.read_text().splitlines()

    # One check (SCHEMA-4 hands breaking arguments to execute, and compares with valid ones through the
    # host): each distinct call reaches the handler once, twice where it is made both ways.
    one = calls_of("-k", "SCHEMA-4")
    repeated = sorted((one.count(c), c) for c in set(one))
    assert repeated and repeated[-1][0] <= 2, f"a call reached the plugin {repeated[-1][0]} times: {repeated[-1][1]}"
    # Every check: the simplest valid call is observed again by each check that makes it.
    simplest = json.dumps(
        simplest_arguments({"type": "object", "properties": {"value": {"type": "string"}}, "required": ["value"]})
    )
    every = calls_of()
    assert len(every) > 40 and every.count(simplest) > 2, (len(every), every.count(simplest))


class _Cleanups:
    """The one part of pytest.Config that the profile's run switches use."""

    def __init__(self) -> None:
        self.calls: list[Any] = []

    def add_cleanup(self, func: Any) -> None:
        self.calls.append(func)

    def end(self) -> None:
        for cleanup in reversed(self.calls):
            cleanup()


@pytest.fixture
def kit_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The profile switched as a kit run switches it, with the user's cache under tmp_path."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    config = _Cleanups()
    profile.without_local_constants(config)  # type: ignore[arg-type]
    profile.keep_draws_to_the_run(config)  # type: ignore[arg-type]
    yield next(tmp_path.glob("toolconformance-hypothesis-cache-*")) / "draws"
    config.end()


def test_kept_draws_are_the_draws_of_a_run_without_them(kit_run: Path) -> None:
    strategy = breaking_call_arguments_for(SCHEMAS["mixed, a path"])
    with options.activated(options.Settings(seed=7, max_examples=30)):
        plain = _seen(strategy, share=False)
        first = _seen(strategy, share=True)
        assert len(list(kit_run.glob("*.json"))) == 1
        profile._DRAWN.clear()  # the next run: nothing in memory, the entry on disk
        kept = _seen(strategy, share=True)
        # And it is the entry that the next run reads, not a generation that happens to agree:
        (entry,) = kit_run.glob("*.json")
        data = json.loads(entry.read_text())
        entry.write_text(json.dumps({"key": data["key"], "draws": [{"planted": 1}]}))
        profile._DRAWN.clear()
        assert _seen(strategy, share=True) == ['{"planted": 1}']
    assert plain == first == kept


def test_draws_json_would_change_are_kept_as_they_were(kit_run: Path) -> None:
    # A host suite's strategy draws tuples and the strategies' own objects: JSON would give back lists
    # and dicts, so such draws are kept pickled, and the next run reads them back equal and of their type.
    import pickle

    from hypothesis import strategies as st

    strategy = profile.name_strategy(
        st.tuples(st.integers(0, 9), st.frozensets(st.text(max_size=3), max_size=2)), "tests.kit.pairs"
    )

    def seen() -> list[Any]:
        values: list[Any] = []
        profile.run_property(strategy, values.append, share_draws=True)
        return values

    with options.activated(options.Settings(seed=7, max_examples=20)):
        plain: list[Any] = []
        profile.run_property(strategy, plain.append)
        first = seen()
        assert not list(kit_run.glob("*.json"))
        (entry,) = kit_run.glob("*.pickle")
        profile._DRAWN.clear()  # the next run: nothing in memory, the entry on disk
        kept = seen()
        data = pickle.loads(entry.read_bytes())
        entry.write_bytes(pickle.dumps({"key": data["key"], "draws": [(1, frozenset({"planted"}))]}))
        profile._DRAWN.clear()
        assert seen() == [(1, frozenset({"planted"}))]
        entry.write_bytes(b"not a pickle")
        profile._DRAWN.clear()
        assert seen() == plain
    assert plain == first == kept
    assert all(isinstance(value, tuple) and isinstance(value[1], frozenset) for value in kept)


def test_a_damaged_or_foreign_entry_is_generated_again(kit_run: Path) -> None:
    strategy = call_arguments_for(SCHEMAS["one string"])
    with options.activated(options.Settings(seed=7, max_examples=30)):
        plain = _seen(strategy, share=True)
        (entry,) = kit_run.glob("*.json")
        for damage in ("{not json", json.dumps({"key": "another", "draws": [{"value": "planted"}]})):
            entry.write_text(damage)
            profile._DRAWN.clear()
            assert _seen(strategy, share=True) == plain


def test_nothing_is_kept_for_a_random_seed_or_an_unnamed_strategy(kit_run: Path) -> None:
    from hypothesis import strategies as st

    with options.activated(options.Settings(seed=7, seed_source="random", max_examples=10)):
        _seen(call_arguments_for(SCHEMAS["one string"]), share=True)
    with options.activated(options.Settings(seed=7, max_examples=10)):
        _seen(st.fixed_dictionaries({"value": st.text()}), share=True)
    assert not list(kit_run.glob("*.json"))


def test_draws_are_not_kept_while_local_constants_are_drawn(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Outside a kit run Hypothesis mixes in the literals of local modules: such draws depend on
    # the process, so they stay in it.
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    config = _Cleanups()
    profile.keep_draws_to_the_run(config)  # type: ignore[arg-type]
    try:
        with options.activated(options.Settings(seed=7, max_examples=10)):
            _seen(call_arguments_for(SCHEMAS["one string"]), share=True)
    finally:
        config.end()
    assert not list(tmp_path.rglob("*.json"))


def test_hypothesis_statistics_say_what_each_check_ran_on(pytester: pytest.Pytester) -> None:
    plugin = PLUGINS / "python" / "conforming.py"
    result = pytester.runpytest_inprocess(
        f"--toolconformance-plugin={plugin}", "--hypothesis-show-statistics", "-p", "no:cacheprovider"
    )
    assert result.ret == 0, result.stdout.str()
    out = result.stdout.str()
    section = out[out.index("Hypothesis Statistics") :]
    # The first check generates the valid cases (or reads them kept from an earlier run of the same
    # kit); a later one checks the same ones, calling its own fresh instance of the plugin with them.
    reg_3 = section[section.index("test_valid_call_result[REG-3-conforming-MyTool]") :]
    first = reg_3.splitlines()[2]
    # The simplest valid call goes first, as a fixed case of the property.
    assert first in tuple(
        f"  - 50 cases of call_arguments_for(schema) ({how}) and 1 fixed one first"
        for how in ("generated in this run", "kept from an earlier run")
    ), first
    err_3 = section[section.index("test_transport_fault_thrown[ERR-3-conforming-MyTool]") :]
    assert "50 cases of call_arguments_for(schema) (the cases an earlier check of this run had)" in err_3
    assert (
        "51 calls of the plugin: 51 made, 0 answered with the record of the same call made earlier in this "
        "check" in err_3
    )


def test_no_statistics_unless_asked(pytester: pytest.Pytester) -> None:
    plugin = PLUGINS / "python" / "conforming.py"
    result = pytester.runpytest_inprocess(f"--toolconformance-plugin={plugin}", "-p", "no:cacheprovider")
    assert result.ret == 0
    assert "cases of call_arguments_for" not in result.stdout.str()


def test_the_kept_draws_stay_few(kit_run: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(profile, "_KEPT_ENTRIES", 3)
    with options.activated(options.Settings(seed=7, max_examples=5)):
        for n in range(6):
            schema = {"type": "object", "properties": {f"p{n}": {"type": "string"}}, "required": [f"p{n}"]}
            _seen(call_arguments_for(schema), share=True)
    assert len(list(kit_run.glob("*.json"))) == 3
    assert not list(kit_run.glob("*.tmp"))


def test_a_pytest_fail_in_a_shared_property_is_shrunk_and_a_skip_passes_through() -> None:
    schema = SCHEMAS["mixed, a path"]

    def fails(value: dict[str, Any]) -> None:
        if value.get("times", 0) >= 3:
            pytest.fail(f"times={value['times']}")

    with options.activated(options.Settings(seed=0, max_examples=60)):
        with pytest.raises(pytest.fail.Exception, match="^times=3\\b"):
            profile.run_property(call_arguments_for(schema), fails, share_draws=True)
        calls: list[int] = []

        def skips(value: dict[str, Any]) -> None:
            calls.append(1)
            pytest.skip("not applicable: nothing to check")

        with pytest.raises(pytest.skip.Exception):
            profile.run_property(call_arguments_for(schema), skips, share_draws=True)
    assert calls == [1]  # a skip is no failure: nothing ran again


def test_a_value_pickle_cannot_hold_is_still_shared_copied() -> None:
    from hypothesis import strategies as st

    strategy = st.tuples(st.integers(0, 10**6), st.just(lambda: "a function"))
    seen: list[Any] = []
    with options.activated(options.Settings(seed=0, max_examples=10)):
        profile.run_property(strategy, seen.append, share_draws=True)
        profile.run_property(strategy, seen.append, share_draws=True)
    assert len(seen) == 20 and [n for n, _ in seen[:10]] == [n for n, _ in seen[10:]]
    assert all(function() == "a function" for _, function in seen)


class _Shadowed:
    """A class its module no longer names (as after a test run re-imported the kit): pickle refuses it."""


def test_draws_pickle_cannot_keep_live_for_the_run_only(kit_run: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from hypothesis import strategies as st

    strategy = profile.name_strategy(st.builds(_Shadowed), "tests.kit.shadowed")
    monkeypatch.setattr(sys.modules[__name__], "_Shadowed", type("_Shadowed", (), {}))
    seen: list[Any] = []
    with options.activated(options.Settings(seed=7, max_examples=5)):
        profile.run_property(strategy, seen.append, share_draws=True)
    assert seen and not list(kit_run.glob("*.pickle")) and not list(kit_run.glob("*.tmp"))
