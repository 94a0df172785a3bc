"""Hostile values through the Python module's configs (issue 42; docs/python.md, "Exceptions";
docs/formats.md, "What each reader refuses").

Every case here once killed Python: a message quoting some 20 KB of input overflowed the
stack in std::regex. Each is now a fovea.ConfigError with its parts, raised in well under a
second, in a message of a few hundred bytes.
"""

import time

import pytest

import fovea


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

