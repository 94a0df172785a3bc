"""Hostile values through the Python module's configs (issue 42; docs/python.md, "Exceptions";
docs/formats.md, "What each reader refuses").

Every case here once killed Python: a dict or list that contains itself, or a dict nested
100,000 deep, recursed until the stack overflowed (SIGSEGV after 13 to 29 s); a message
quoting some 20 KB of input overflowed it in std::regex. Each is now a fovea.ConfigError
naming the key path, raised in well under a second, in a message of a few hundred bytes.
"""

import os
import time

import pytest

import fovea

SOURCE = os.environ.get("FOVEA_SOURCE_DIR", os.getcwd())
STUDY = os.path.join(SOURCE, "configs", "studies", "schedulers.yaml")

# config::kMaxNestingDepth (framework/config/config.hpp): lists and maps, the top map included.
MAX_DEPTH = 64
# kMaxPythonNodes (python/bindings/config_bindings.cpp): keys, values, lists and maps.
MAX_NODES = 100_000
# "Well under a second": CPU seconds of this process, what the call costs whatever else the
# machine runs (the tests run beside builds). A refusal before any YAML is made takes
# milliseconds; one that reads back a megabyte of YAML about half a second.
QUICK_S = 1.0
# The longest message a refusal may print: a few excerpts of at most 80 bytes of input each,
# and the names of the keys a config may have.
SHORT = 1000


def refused(call, *args, **kwargs):
    """The ConfigError `call` raises, and the CPU seconds it took to."""
    start = time.process_time()
    with pytest.raises(fovea.ConfigError) as error:
        call(*args, **kwargs)
    return error.value, time.process_time() - start


def nested(depth, inner=None):
    """A dict `depth` levels deep, the outermost included: {"x": {"x": ... inner}}."""
    value = inner
    for _ in range(depth):
        value = {"x": value}
    return value


def nested_list(depth):
    value = 1
    for _ in range(depth):
        value = [value]
    return value


def test_a_dict_that_contains_itself_is_refused_at_its_key():
    d = {"name": "loop"}
    d["world"] = d
    error, took = refused(fovea.load_config, d)
    assert took < QUICK_S
    assert str(error).startswith("config dict: world: contains itself (it is the whole config dict)")
    assert (error.where, error.key) == ("config dict", "world")

    inner = {"count": 3}
    inner["model"] = {"shape": inner}
    error, took = refused(fovea.load_config, {"world": {"entities": [inner]}})
    assert took < QUICK_S
    assert str(error).startswith("config dict: world.entities[0].model.shape: contains itself (it is world.entities[0])")


def test_a_list_that_contains_itself_is_refused_as_an_override_value_in_every_call():
    loop = [1, 2]
    loop.append(loop)
    message = "override: evaluate.budgets[2]: contains itself (it is evaluate.budgets)"
    for call, args in [(fovea.load_config, (None,)), (fovea.World, (None,)), (fovea.run, (None,)),
                       (fovea.sweep, (STUDY,))]:
        error, took = refused(call, *args, overrides={"evaluate.budgets": loop})
        assert took < QUICK_S, call
        assert str(error).startswith(message), call
    # A Config with overrides goes through the same conversion.
    error, _ = refused(fovea.load_config, fovea.load_config(None), overrides={"evaluate.budgets": loop})
    assert str(error).startswith(message)
    # A list of override strings that holds itself is no list of strings.
    strings = ["seed=2"]
    strings.append(strings)
    error, _ = refused(fovea.load_config, None, overrides=strings)
    assert str(error) == "override: expected \"key=value\" strings, got a value of type list"


def test_a_dict_nested_100000_deep_is_refused_at_64_levels_at_once():
    error, took = refused(fovea.load_config, nested(100_000))
    assert took < QUICK_S
    assert "nested deeper than 64 levels of lists and maps" in str(error)
    assert str(error).startswith("config dict: x.x.x.x.")
    error, took = refused(fovea.load_config, None, overrides={"evaluate.budgets": nested_list(100_000)})
    assert took < QUICK_S
    assert str(error).startswith("override: evaluate.budgets[0][0][0]")
    assert "nested deeper than 64 levels" in str(error)


def test_the_depth_limit_at_and_past_its_edge_as_the_yaml_reader_counts():
    # 64 levels pass the conversion (and the YAML reader, which counts the same way): refused
    # only for the unknown key. 65 are refused by the conversion, before any YAML is made.
    at, _ = refused(fovea.load_config, nested(MAX_DEPTH))
    assert "unknown key" in str(at) and "nested" not in str(at)
    past, _ = refused(fovea.load_config, nested(MAX_DEPTH + 1))
    # The path of 64 keys, x.x...x (127 bytes), quoted as any input is: an excerpt.
    assert str(past).startswith("config dict: x.x.x.x")
    assert "... (127 bytes): nested deeper than 64 levels" in str(past)
    # An override's value counts its own levels, as a --set value's text does.
    at, _ = refused(fovea.load_config, None, overrides={"evaluate.budgets": nested_list(MAX_DEPTH)})
    assert "nested" not in str(at)
    past, _ = refused(fovea.load_config, None, overrides={"evaluate.budgets": nested_list(MAX_DEPTH + 1)})
    assert "nested deeper than 64 levels" in str(past)


def test_the_count_of_values_at_and_past_its_edge():
    # The dict, its key, the list and its items: MAX_NODES values pass the conversion.
    at, took = refused(fovea.load_config, {"a": [0] * (MAX_NODES - 3)})
    assert took < 3 * QUICK_S  # 100,000 values converted, and read back as YAML
    assert "unknown key" in str(at)
    past, took = refused(fovea.load_config, {"a": [0] * (MAX_NODES - 2)})
    assert took < QUICK_S
    assert str(past).startswith("config dict: a[99997]: more than 100000 values (keys, values, lists and maps)")
    # One list shared many times over: 10^8 values, no cycle and no depth to see.
    bomb = [0] * 10
    for _ in range(7):
        bomb = [bomb] * 10
    past, took = refused(fovea.load_config, None, overrides={"evaluate.budgets": bomb})
    assert took < QUICK_S and "more than 100000 values" in str(past)
    # All of a call's overrides are counted together.
    past, took = refused(fovea.load_config, None, overrides=["seed=1"] * (MAX_NODES + 1))
    assert took < QUICK_S
    assert str(past).startswith("override: [100000]: more than 100000 values")


def test_a_20000_character_override_gives_a_short_message_with_its_parts():
    # Before: std::regex over the message overflowed the stack: SIGSEGV.
    error, took = refused(fovea.load_config, None, overrides={"schedule.kind": "x" * 20_000})
    assert took < QUICK_S
    assert len(str(error)) < SHORT
    assert error.key == "schedule.kind"
    assert error.where.startswith('override schedule.kind="xxx') and error.where.endswith(" (20016 bytes)")
    assert error.detail.startswith("expected one of ")
    assert error.detail.endswith('found "' + "x" * 60 + '... (20000 bytes)"')
    assert (error.file, error.line, error.column) == (None, None, None)


def test_set_interrupt_policy_with_100000_characters_gives_a_short_message():
    world = fovea.World(None, overrides={"world.entities[0].count": 5, "world.entities[1].count": 5})
    error, took = refused(world.set_interrupt_policy, "x" * 100_000)
    assert took < QUICK_S
    assert len(str(error)) < SHORT
    assert error.key == "interrupt_policy"
    assert "(100000 bytes)" in error.detail
    world.set_interrupt_policy("interpenetrate")  # the world goes on
    assert "interrupt_policy: interpenetrate" in world.config.yaml


def test_a_one_megabyte_key_gives_a_short_message(tmp_path):
    key = "k" * 1_000_000
    error, took = refused(fovea.load_config, {key: 1})
    assert took < QUICK_S
    assert len(str(error)) < SHORT
    # Written as YAML's explicit key ("? key"), as yaml-cpp writes a key past 1024 bytes.
    assert str(error).startswith("config dict:1:3: " + "k" * 60 + "... (1000000 bytes): unknown key")
    error, _ = refused(fovea.load_config, None, overrides={key: 1})
    assert len(str(error)) < SHORT and "(1000000 bytes): unknown key" in str(error)
    error, _ = refused(fovea.load_config, None, overrides=[key + "=1"])
    assert len(str(error)) < SHORT
    big = tmp_path / "big.yaml"
    big.write_text("? " + key + "\n: 1\n")
    error, _ = refused(fovea.load_config, big)
    assert len(str(error)) < SHORT
    assert (error.file, error.line, error.column) == (str(big), 1, 3)
    assert error.key == "k" * 60 + "... (1000000 bytes)"  # the key as the message quotes it
    assert str(error).startswith("%s:1:3: %s... (1000000 bytes): unknown key; " % (big, "k" * 60))


def test_values_python_cannot_write_as_yaml_are_config_errors_at_their_key():
    cases = [
        ({1: 2}, "config dict: keys are strings; found a key that is a value of type int (1)"),
        ({"world": {None: 2}}, "config dict: world: keys are strings; found a key that is a value of type NoneType (None)"),
        ({"world": {(1, (2,)): 2}}, "config dict: world: keys are strings; found a key that is a value of type tuple"),
        ({b"name": 2}, "config dict: keys are strings; found a key that is a value of type bytes (b'name')"),
        ({"name": b"x"}, "config dict: name: a value of type bytes (b'x') has no YAML form"),
        ({"seed": 10**5000}, "config dict: seed: ValueError: Exceeds the limit (4300 digits)"),
        ({"name": "\ud800"}, "config dict: name: UnicodeEncodeError: "),
        ({"name": {1, 2}}, "config dict: name: a value of type set has no YAML form"),
    ]
    for value, message in cases:
        error, took = refused(fovea.load_config, value)
        assert took < QUICK_S
        assert str(error).startswith(message), (str(error), message)
    error, _ = refused(fovea.load_config, None, overrides={5: 1})
    assert str(error) == "override: keys are key paths, strings like \"schedule.kind\"; found a value of type int (5)"
    error, _ = refused(fovea.load_config, None, overrides=5)
    assert str(error).startswith("override: expected a dict {key: value} or a list of \"key=value\" strings, got a value "
                                 "of type int (5)")
    error, _ = refused(fovea.load_config, nested_list(100_000))
    assert str(error) == "load_config: expected a path, a dict of keys, a Config or None, got a value of type list"


def test_a_recorded_world_refuses_a_config_it_could_not_write_back(tmp_path):
    # Long names are allowed, but a recorded run writes config.yaml with every key: 256
    # groups named with 3.5 KB each write back more than the 1 MiB fovea reads again. fovea
    # run refuses such a config; fovea.World(record=...) once wrote it (issue 42).
    groups = [{"count": 0, "name": "a" * 3500 + str(g)} for g in range(256)]
    record = tmp_path / "runs"
    error, took = refused(fovea.World, {"world": {"entities": groups}}, None, str(record))
    assert "the config a run writes back (config.yaml: every key, paths made absolute) would be " in str(error)
    assert "bytes, more than the 1 MiB a config may be" in str(error)
    assert not record.exists() or not any(record.iterdir())  # nothing written
    # Without records nothing is written back: the same world steps.
    with fovea.World({"world": {"entities": groups}, "frames": 2}) as world:
        world.step()
