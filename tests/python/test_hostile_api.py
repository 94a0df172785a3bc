"""Property tests of the Python API on generated hostile values (issue 42; docs/python.md,
"Exceptions"), with Debian's python3-hypothesis.

load_config on nested dicts and lists of hostile values (megabyte strings, NaN, infinities,
ints past 4300 digits, bytes, keys that are no strings, lone surrogates, deep nesting,
cycles): it returns a Config or raises fovea.ConfigError, nothing else, and quickly.
set_gaze on hostile samples (NaN, infinities, huge, negative, going back, far future): each
is accepted or refused with ValueError, and a good sample after them is always accepted and
used. Bounded so the file runs in well under a minute.
"""

import math
import os
import tempfile
import time

import pytest

hypothesis = pytest.importorskip(
    "hypothesis", reason="needs python3-hypothesis (apt install python3-hypothesis; ./fovea test installs it)")

from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402
from hypothesis.configuration import set_hypothesis_home_dir  # noqa: E402

# Hypothesis keeps a cache (its Unicode tables) in .hypothesis/ of the working folder, which
# is the source folder under ctest: the temporary folder's instead, as test_hostile_results.py.
set_hypothesis_home_dir(os.path.join(tempfile.gettempdir(), "fovea-hypothesis"))

import fovea  # noqa: E402

# A refusal or a load takes well under a second of CPU (a megabyte read back as YAML, about
# half of one): CPU seconds of this process, whatever else the machine runs.
QUICK_S = 2.0
# Each example's load may convert and read back megabytes: a bounded number of examples. No
# example database: the tests run from the source folder, which they leave as it was. The
# suite draws the same examples every run (derandomize), so a failure in ctest is one anyone
# can repeat; FOVEA_HYPOTHESIS_RANDOM=1 draws new ones, to look further (docs/python.md, Tests).
RANDOM = os.environ.get("FOVEA_HYPOTHESIS_RANDOM", "") not in ("", "0")
CONFIG_SETTINGS = settings(max_examples=100, deadline=None, database=None, derandomize=not RANDOM,
                           suppress_health_check=[HealthCheck.too_slow])
GAZE_SETTINGS = settings(max_examples=100, deadline=None, database=None, derandomize=not RANDOM,
                         suppress_health_check=[HealthCheck.too_slow])

KEYS = ["name", "seed", "frames", "world", "entities", "count", "schedule", "kind", "budget", "tests",
        "evaluate", "budgets", "gaze", "source", "x_px", "interrupt_policy", "perception", "model"]
PATHS = ["frames", "seed", "name", "schedule.kind", "budget.tests", "world.entities[0].count",
         "world.entities[0].model", "evaluate.budgets", "gaze.x_px", "interrupt_policy", "world",
         "world.entities[9].count", "a.b[0]", "x=y", "", ".", "[0]"]


def huge_text(char, length):
    return char * length


scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=0, max_value=6000).map(lambda e: -(10**e) if e % 2 else 10**e),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([math.nan, math.inf, -math.inf, 1e308, -1e308, 5e-324, 0.0, -0.0]),
    st.text(max_size=30),
    st.text(alphabet=st.characters(blacklist_categories=()), max_size=10),  # lone surrogates too
    st.builds(huge_text, st.sampled_from(["x", "\n", "\x00", "é", ": ", "[", "*a"]),
              st.sampled_from([1000, 20_000, 100_000, 1_000_000])),
    st.binary(max_size=10),
    st.sampled_from(["round_robin", "repulse", "external", "work", "[1, 2]", "{a: 1}", "&a x", "!!str 5",
                     "---", "~", ".nan", "1e999", "-0", "0x10"]),
)
keys = st.one_of(
    st.sampled_from(KEYS),
    st.text(max_size=20),
    st.builds(huge_text, st.sampled_from(["k", " ", "\n"]), st.sampled_from([1000, 1_000_000])),
    st.integers(),
    st.none(),
    st.binary(max_size=5),
    st.tuples(st.integers()),
    st.booleans(),
)
values = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.tuples(children, children),
        st.dictionaries(keys, children, max_size=4),
    ),
    max_leaves=12,
)


def nested(depth, leaf, as_list):
    value = leaf
    for _ in range(depth):
        value = [value] if as_list else {"world": value}
    return value


def with_cycle(value, where):
    """`value` inside a dict and a list that hold themselves at `where` (a choice of container)."""
    outer = {"name": "cycle", "world": value}
    containers = []

    def collect(v, depth=0):
        if depth > 20 or id(v) in {id(c) for c in containers}:
            return
        if isinstance(v, (dict, list)):
            containers.append(v)
            for child in (v.values() if isinstance(v, dict) else v):
                collect(child, depth + 1)

    collect(outer)
    target = containers[where % len(containers)]
    if isinstance(target, dict):
        target["again"] = outer if where % 2 else target
    else:
        target.append(outer if where % 2 else target)
    return outer


configs = st.one_of(
    st.dictionaries(keys, values, max_size=6),
    st.builds(nested, st.integers(min_value=55, max_value=3000), values, st.booleans()),
    st.builds(with_cycle, values, st.integers(min_value=0, max_value=50)),
    # A str is a path: the file reader's business (core/file_read.hpp), not a value's.
    values.filter(lambda v: not isinstance(v, str)),
)
overrides = st.one_of(
    st.none(),
    st.dictionaries(st.one_of(st.sampled_from(PATHS), keys), values, max_size=4),
    st.lists(st.one_of(st.sampled_from(PATHS).map(lambda p: p + "=1"), st.text(max_size=20), values), max_size=4),
    st.builds(lambda v, w: with_cycle(v, w)["world"], values, st.integers(min_value=0, max_value=50)),
    values,
)


def loads_or_refuses(config, sets):
    start = time.process_time()
    try:
        loaded = fovea.load_config(config, overrides=sets)
    except fovea.ConfigError as error:
        loaded = error
        # One line of bounded length, whatever the input quoted.
        assert "\n" not in str(error)
        assert len(str(error)) < 4000, str(error)[:200]
    took = time.process_time() - start
    assert took < QUICK_S, took
    return loaded


@CONFIG_SETTINGS
@given(configs)
def test_load_config_returns_a_config_or_raises_config_error(config):
    result = loads_or_refuses(config, None)
    assert isinstance(result, (fovea.Config, fovea.ConfigError))


@CONFIG_SETTINGS
@given(overrides)
def test_overrides_are_applied_or_refused_with_config_error(sets):
    result = loads_or_refuses(None, sets)
    assert isinstance(result, (fovea.Config, fovea.ConfigError))


@CONFIG_SETTINGS
@given(values, st.integers(min_value=0, max_value=50))
def test_a_value_that_holds_itself_is_always_refused_as_such(value, where):
    error = loads_or_refuses(with_cycle(value, where), None)
    assert isinstance(error, fovea.ConfigError)
    # A key that is no string, or a value with no YAML form, may be met first.
    assert "contains itself" in str(error) or "keys are strings" in str(error) or "no YAML form" in str(error) \
        or "Error: " in str(error)


times = st.one_of(
    st.none(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([math.nan, math.inf, -math.inf, 1e9, 1e308, -1e308, -1.0, 0.0, 2.0, 2.5, 1e-300]),
    st.floats(min_value=-0.5, max_value=3.0),  # near the clock: going back, ahead within and past the bound
)
coordinates = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([math.nan, math.inf, -1e308, 1e308, -5.0, 0.0, 960.0, 1e6]),
    st.floats(min_value=0, max_value=1920),
)
confidences = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([math.nan, -0.0, 0.0, 1.0, 1.0000001, -1e-300, 2.0]),
    st.floats(min_value=0, max_value=1),
)
samples = st.tuples(coordinates, coordinates, times, st.booleans(), confidences, st.integers(min_value=0, max_value=3))


def external_world():
    return fovea.World(None, overrides={"gaze.source": "external", "world.entities[0].count": 4,
                                        "world.entities[1].count": 4})


@GAZE_SETTINGS
@given(st.lists(samples, max_size=12))
def test_set_gaze_refuses_hostile_samples_with_value_error_and_keeps_taking_good_ones(pushes):
    world = external_world()
    accepted_s = -math.inf
    refused = 0
    for x, y, t, valid, confidence, steps in pushes:
        try:
            world.set_gaze(x, y, t_s=t, valid=valid, confidence=confidence)
            accepted_s = max(accepted_s, world.time_s if t is None else t)
        except ValueError as error:
            refused += 1
            assert str(error).startswith("set_gaze: ") and "\n" not in str(error)
        if steps:
            world.step(steps)
    # Every accepted time lies at most 2 s past the clock: never one that locks the source out.
    assert accepted_s <= world.time_s + 2.0
    # A good sample at the clock, or just after the newest accepted one, is taken ...
    good_s = max(world.time_s, accepted_s)
    world.set_gaze(123.0, 456.0, t_s=good_s)
    # ... and used once the world's clock reaches it (at most 2 s of 10 ms steps).
    while world.time_s < good_s - 1e-9:
        world.step()
    stats = world.step()
    assert stats["gaze_dropped"] == refused
    assert (stats["gaze_source"], stats["gaze_x_px"], stats["gaze_y_px"]) == ("external", 123.0, 456.0)
