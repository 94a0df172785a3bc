"""fovea.read_run and fovea.read_study on damaged and hostile folders (issue 42; docs/python.md,
"Runs and studies in pandas"): each either gives a DataFrame or raises fovea.ResultsError
naming the folder, never crashes Python, never hangs, and never reads a number cut short.

The named cases first (each once crashed, hung or read a cut value), then hypothesis'
generated folders: a small real run and study, damaged at random. A read that could crash
Python or block runs in a child process with a timeout, so that a regression fails the test
instead of ending or stalling pytest; the generated reads run under an alarm, and every test
under faulthandler's watchdog.

Run by ctest through tests/python/run_pytest.sh, from the source folder, with the built
module on the path and FOVEA_BINARY naming the fovea program built beside it.
"""

import faulthandler
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile

import pytest

import fovea

pandas = pytest.importorskip("pandas")
hypothesis = pytest.importorskip("hypothesis", reason="needs Debian's python3-hypothesis, which ./fovea installs")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.configuration import set_hypothesis_home_dir  # noqa: E402

# hypothesis keeps a cache (and by default its examples) in .hypothesis/ of the working folder,
# the source folder under ctest: kept out of it. The tests save no examples (database=None).
set_hypothesis_home_dir(os.path.join(tempfile.gettempdir(), "fovea-hypothesis"))

SOURCE = os.environ.get("FOVEA_SOURCE_DIR", os.getcwd())
PACKED = os.path.join(SOURCE, "configs", "studies", "packed500.yaml")

# The caps the readers keep (python/fovea/results.py, after framework/record/json_file.hpp and
# framework/core/file_read.hpp).
JSON_BYTES = 16 << 20
JSON_DEPTH = 64
TABLE_BYTES = 256 << 20
CONFIG_BYTES = 1 << 20


@pytest.fixture(autouse=True)
def watchdog():
    """A backstop for a read blocked where no alarm reaches it (in the compiled module): after
    300 s the process prints every thread's stack and ends, so the test fails, not stalls."""
    faulthandler.dump_traceback_later(int(os.environ.get("FOVEA_HOSTILE_WATCHDOG_S", "300")), exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


# ---------------------------------------------------------------------------------------------
# Folders: one small real run and one small real study, copied and then damaged.

STUDY = """\
name: hostile
base: {base}
set:
  frames: 3
  "world.entities[0].count": 20
factors:
  scheduler:
    key: schedule.kind
    values: [round_robin, priority_queues]
metrics:
  columns:
    p_est: [mean]
    sphere_tests: [max]
    budget_overshoot_us: [median]
"""


@pytest.fixture(scope="module")
def run_folder(tmp_path_factory):
    return fovea.run(PACKED, overrides={"world.entities[0].count": 20}, out=tmp_path_factory.mktemp("run") / "whole",
                     frames=3)


@pytest.fixture(scope="module")
def study_folder(tmp_path_factory):
    folder = tmp_path_factory.mktemp("study")
    (folder / "hostile.yaml").write_text(STUDY.format(base=PACKED))
    return fovea.sweep(folder / "hostile.yaml", out=folder / "out", jobs=2, figures=False)


def copy_folder(source, to):
    """The run's or study's folder copied to `to` (runs/ and its logs too, for a study)."""
    shutil.copytree(source, to, symlinks=True)
    return str(to)


# ---------------------------------------------------------------------------------------------
# Reads in a child process: what a read that crashes Python or blocks does, as a result.

CHILD = r"""
import json, sys
import fovea
for call, folder, kwargs in json.loads(sys.argv[1]):
    try:
        table = getattr(fovea, call)(folder, **kwargs)
    except fovea.ResultsError as error:
        result = {"raised": "ResultsError", "message": str(error)}
    except BaseException as error:
        result = {"raised": type(error).__name__, "message": str(error)[:2000]}
    else:
        result = {"raised": None, "rows": len(table), "columns": list(table.columns),
                  "dropped": table.attrs.get("dropped_unfinished_line"), "values": table.iloc[:, -1].tolist()}
    print(json.dumps(result), flush=True)
"""


def reads_in_child(*reads, timeout=120):
    """Each (call, folder, kwargs) of `reads`, fovea.<call>(folder, **kwargs), in one fresh
    Python, one after the other: a result each, {"raised": None, "rows": ...} for a table,
    {"raised": "ResultsError", "message": ...} for a refusal, and "timeout" or "signal N" for
    the read that blocked or ended Python and every read after it."""
    module_dir = os.path.dirname(os.path.dirname(os.path.abspath(fovea.__file__)))
    env = dict(os.environ, PYTHONPATH=module_dir + os.pathsep + os.environ.get("PYTHONPATH", ""))
    command = [sys.executable, "-c", CHILD, json.dumps([(call, str(folder), kwargs) for call, folder, kwargs in reads])]
    try:
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=timeout)
        stdout, ended = done.stdout, "signal %d" % -done.returncode if done.returncode < 0 else None
        assert done.returncode <= 0, done.stderr
    except subprocess.TimeoutExpired as expired:
        stdout, ended = (expired.stdout or b"").decode(), "timeout (%d s)" % timeout
    results = [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]
    return results + [{"raised": ended}] * (len(reads) - len(results))


def assert_refused(result, folder, *words):
    """`result` (reads_in_child's) is a ResultsError whose message names the folder and holds
    each of `words`."""
    assert result["raised"] == "ResultsError", result
    assert result["message"].startswith(str(folder) + ": "), result
    for word in words:
        assert word in result["message"], (word, result)


def nested(depth, leaf="1"):
    """JSON text of `depth` levels of arrays and objects, alternately, around `leaf`."""
    opens = "".join('{"k":' if level % 2 else "[" for level in range(depth))
    closes = "".join("}" if level % 2 else "]" for level in reversed(range(depth)))
    return opens + leaf + closes


# ---------------------------------------------------------------------------------------------
# Issue 42, 4: JSON nested 100,000 deep crashed Python (SIGSEGV) or raised RecursionError.

def test_json_nested_100000_deep_is_refused_naming_the_file(run_folder, study_folder, tmp_path):
    deep = nested(100000)
    manifest = copy_folder(run_folder, tmp_path / "manifest")
    with open(os.path.join(manifest, "manifest.json"), "w") as f:
        f.write('{"status": "completed", "frames_completed": 3, "deep": %s}' % deep)
    summary = copy_folder(run_folder, tmp_path / "summary")
    with open(os.path.join(summary, "summary.json"), "w") as f:
        f.write(deep)
    sweep = copy_folder(study_folder, tmp_path / "sweep")
    with open(os.path.join(sweep, "sweep.json")) as f:
        text = f.read()
    with open(os.path.join(sweep, "sweep.json"), "w") as f:
        f.write(text.replace("{", '{"deep": %s, ' % deep, 1))
    results = reads_in_child(("read_run", manifest, {}), ("read_run", manifest, {"allow_incomplete": True}),
                             ("read_run", summary, {}), ("read_study", sweep, {}))
    assert_refused(results[0], manifest, "manifest.json", "nested deeper than 64 levels")
    # As with any manifest that cannot be read: the frames, the manifest None, the problem said.
    assert results[1]["raised"] is None and results[1]["rows"] == 3, results[1]
    assert_refused(results[2], summary, "summary.json", "nested deeper than 64 levels")
    assert_refused(results[3], sweep, "sweep.json", "nested deeper than 64 levels")


def test_json_depth_cap_at_and_past_its_edge(run_folder, tmp_path):
    folder = copy_folder(run_folder, tmp_path / "edge")
    summary = os.path.join(folder, "summary.json")
    # 64 levels, the top-level object counted, is read; 65 is not. Brackets and backslashes
    # inside strings are text, not levels.
    with open(summary, "w") as f:
        f.write('{"s": "[[[[{{{{\\\\\\"[[", "k": %s}' % nested(JSON_DEPTH - 1))
    read = fovea.read_run(folder).attrs["summary"]
    assert read["s"] == '[[[[{{{{\\"[[' and isinstance(read["k"], list)
    with open(summary, "w") as f:
        f.write('{"s": "]]]]]", "k": %s}' % nested(JSON_DEPTH))
    with pytest.raises(fovea.ResultsError, match=r"^%s: its summary.json cannot be read \(.*summary.json: nested deeper "
                                                 r"than 64 levels" % folder):
        fovea.read_run(folder)


def test_json_size_cap_at_and_past_its_edge(run_folder, tmp_path):
    folder = copy_folder(run_folder, tmp_path / "size")
    summary = os.path.join(folder, "summary.json")
    head = '{"padding": "'
    with open(summary, "w") as f:
        f.write(head + "x" * (JSON_BYTES - len(head) - 2) + '"}')
    assert os.path.getsize(summary) == JSON_BYTES
    assert len(fovea.read_run(folder).attrs["summary"]["padding"]) == JSON_BYTES - len(head) - 2
    with open(summary, "a") as f:
        f.write(" ")
    with pytest.raises(fovea.ResultsError, match=r"its summary.json cannot be read \(.*summary.json: it is 16777217 bytes, "
                                                 r"more than the 16 MiB"):
        fovea.read_run(folder)


# ---------------------------------------------------------------------------------------------
# Issue 42, 5: a FIFO in place of a file the readers read blocked them for ever.

def fifo_in_place_of(folder, name):
    path = os.path.join(folder, name)
    if os.path.exists(path):
        os.unlink(path)
    os.mkfifo(path)


def test_a_fifo_in_place_of_a_file_is_refused_at_once(run_folder, study_folder, tmp_path):
    reads, expected = [], []
    for name in ("frames.csv", "manifest.json", "summary.json", "config.yaml"):
        folder = copy_folder(run_folder, tmp_path / ("run-" + name))
        fifo_in_place_of(folder, name)
        # allow_incomplete: read_run would refuse the run before it reads its frames.csv.
        reads.append(("read_run", folder, {"allow_incomplete": name == "frames.csv"}))
        expected.append((folder, name))
    for name in ("table.csv", "sweep.json"):
        folder = copy_folder(study_folder, tmp_path / ("study-" + name))
        fifo_in_place_of(folder, name)
        for allow in (False, True):
            reads.append(("read_study", folder, {"allow_incomplete": allow}))
            expected.append((folder, name))
    # A manifest.json read_run cannot read, allowed, is as any other: the frames, the manifest None.
    reads.append(("read_run", tmp_path / "run-manifest.json", {"allow_incomplete": True}))
    results = reads_in_child(*reads)
    for result, (folder, name) in zip(results, expected):
        assert_refused(result, folder, name, "not a regular file (a device, a pipe or a socket)")
    assert results[-1]["raised"] is None and results[-1]["rows"] == 3, results[-1]


def test_folders_and_devices_in_place_of_files(run_folder, study_folder, tmp_path):
    run = copy_folder(run_folder, tmp_path / "run")
    for name in ("frames.csv", "summary.json", "config.yaml"):
        os.rename(os.path.join(run, name), os.path.join(run, name + ".kept"))
        os.mkdir(os.path.join(run, name))
        with pytest.raises(fovea.ResultsError, match=r"^%s: .*%s.*it is a folder, not a file" % (run, name)):
            fovea.read_run(run, allow_incomplete=True)
        os.rmdir(os.path.join(run, name))
        os.symlink("/dev/zero", os.path.join(run, name))
        with pytest.raises(fovea.ResultsError, match=r"^%s: .*%s.*not a regular file \(a device, a pipe or a socket\)"
                                                     % (run, name)):
            fovea.read_run(run, allow_incomplete=True)
        os.unlink(os.path.join(run, name))
        os.rename(os.path.join(run, name + ".kept"), os.path.join(run, name))
    assert len(fovea.read_run(run)) == 3
    study = copy_folder(study_folder, tmp_path / "study")
    os.unlink(os.path.join(study, "table.csv"))
    os.mkdir(os.path.join(study, "table.csv"))
    with pytest.raises(fovea.ResultsError, match=r"^%s: its table.csv cannot be read \(.*table.csv: it is a folder, not a file"
                                                 % study):
        fovea.read_study(study)


def test_table_and_config_size_caps(run_folder, study_folder, tmp_path):
    study = copy_folder(study_folder, tmp_path / "study")
    # Sparse: refused by its size before a byte is read.
    os.truncate(os.path.join(study, "table.csv"), TABLE_BYTES + 1)
    with pytest.raises(fovea.ResultsError, match=r"its table.csv cannot be read \(.*table.csv: it is 268435457 bytes, "
                                                 r"more than the 256 MiB"):
        fovea.read_study(study)
    run = copy_folder(run_folder, tmp_path / "run")
    config = os.path.join(run, "config.yaml")
    with open(config) as f:
        text = f.read()
    with open(config, "w") as f:
        f.write(text + "#" * (CONFIG_BYTES - len(text.encode()) - 1) + "\n")
    assert fovea.read_run(run).attrs["name"] == "packed500"
    with open(config, "a") as f:
        f.write("\n")
    with pytest.raises(fovea.ResultsError, match=r"its config.yaml cannot be read \(.*config.yaml: it is 1048577 bytes, "
                                                 r"more than the 1 MiB"):
        fovea.read_run(run)


# ---------------------------------------------------------------------------------------------
# Issue 42, 7: a CSV whose last line lost its end was read with its last number cut.

def test_a_table_cut_mid_number_is_not_read_as_a_shorter_number(study_folder, tmp_path):
    folder = copy_folder(study_folder, tmp_path / "cut")
    table_path = os.path.join(folder, "table.csv")
    with open(table_path) as f:
        lines = f.read().splitlines(keepends=True)
    # The last row's last cell the largest double, then the file cut inside it.
    last = lines[-1].rstrip("\n").split(",")
    last[-1] = "1.7976931348623157e+308"
    whole_row = ",".join(last)
    cut_row = whole_row[: whole_row.rindex(",") + len(",1.797693134862")]
    with open(table_path, "w") as f:
        f.write("".join(lines[:-1]) + cut_row)
    with pytest.raises(fovea.ResultsError) as caught:
        fovea.read_study(folder)
    assert str(caught.value).startswith(
        "%s: its table.csv is cut short or damaged (%s:%d: its last row has no line end; it was never finished); "
        % (folder, table_path, len(lines)))
    allowed = fovea.read_study(folder, allow_incomplete=True)
    assert len(allowed) == len(lines) - 2 and allowed.attrs["dropped_unfinished_line"]
    assert 1.797693134862 not in list(allowed.iloc[:, -1])

    # Whole, the largest double reads back as itself.
    with open(table_path, "w") as f:
        f.write("".join(lines[:-1]) + whole_row + "\n")
    table = fovea.read_study(folder)
    assert table.iloc[-1, -1] == 1.7976931348623157e+308 and not table.attrs["dropped_unfinished_line"]


def test_frames_csv_cut_keeps_its_rule(run_folder, tmp_path):
    # frames.csv under allow_incomplete: the cut line dropped and said; a file of nothing but a
    # cut header has no header row.
    folder = copy_folder(run_folder, tmp_path / "cut")
    frames_path = os.path.join(folder, "frames.csv")
    with open(frames_path) as f:
        text = f.read()
    with open(frames_path, "w") as f:
        f.write(text[:-3])
    frames = fovea.read_run(folder, allow_incomplete=True)
    assert len(frames) == 2 and frames.attrs["dropped_unfinished_line"]
    with open(frames_path, "w") as f:
        f.write(text[:10])
    with pytest.raises(fovea.ResultsError, match="its frames.csv has no header row"):
        fovea.read_run(folder, allow_incomplete=True)


# ---------------------------------------------------------------------------------------------
# Issue 42, 21: damaged folders raised RecursionError, TypeError, EmptyDataError and others.

def edit_json(path, **changes):
    with open(path) as f:
        value = json.load(f)
    value.update(changes)
    with open(path, "w") as f:
        json.dump(value, f)


SWEEP_DAMAGE = [
    # (sweep.json's fields changed, the field the message names)
    ({"status": "failed", "runs_failed": 5}, "runs_failed"),
    ({"runs_failed": {"a": 1}, "status": "failed"}, "runs_failed"),
    ({"factor_columns": 5}, "factor_columns"),
    ({"columns": 5}, "columns"),
    ({"columns": ["run", 7]}, "columns"),
    ({"status": ["completed"]}, "status"),
    ({"shard": {"index": "x", "count": "y"}}, "shard"),
    ({"shard": 5}, "shard"),
    ({"runs_completed": "4"}, "runs_completed"),
    ({"fingerprint": 5}, "fingerprint"),
    ({"merged_from": [], "runs_missing": 5}, "runs_missing"),
    ({"merged_from": [], "runs_missing": {"0": 1}}, "runs_missing"),
    ({"merged_from": [], "runs_missing": "abc"}, "runs_missing"),
    ({"study_file": {"a": 1}, "status": "interrupted"}, "study_file"),
]


@pytest.mark.parametrize("changes,field", SWEEP_DAMAGE)
def test_sweep_json_of_the_wrong_shape_is_refused(study_folder, tmp_path, changes, field):
    folder = copy_folder(study_folder, tmp_path / "shape")
    edit_json(os.path.join(folder, "sweep.json"), **changes)
    for allow in (False, True):
        with pytest.raises(fovea.ResultsError, match=r"^%s: its sweep.json is damaged \(.*sweep.json: %s: expected "
                                                     % (folder, field)):
            fovea.read_study(folder, allow_incomplete=allow)


TABLE_DAMAGE = [
    # (table.csv's text from the real one, what the message says)
    (lambda text: "", "its table.csv has no header row"),
    (lambda text: text.splitlines(keepends=True)[0], "its table.csv holds 0 of the 2 runs its sweep.json counts"),
    (lambda text: "".join(text.splitlines(keepends=True)[:2]), "its table.csv holds 1 of the 2 runs its sweep.json counts"),
    (lambda text: text.replace("p_est_mean", "p_est_max", 1), "its table.csv's columns are not those its sweep.json names"),
    (lambda text: text.replace(",p_est_mean", "", 1), "its table.csv is cut short or damaged"),
    (lambda text: text + "1,2,3,4,5,6,7,8,9,10,11\n", "its table.csv is cut short or damaged"),
    (lambda text: text.replace("\n", ',"\n', 1), "its table.csv is cut short or damaged"),
    (lambda text: "\x00\x01\x02\n\x03\n", "its table.csv"),
    (lambda text: text.encode("utf-8") + b"\xff\xfe\n", "its table.csv is damaged"),
]


@pytest.mark.parametrize("damage,words", TABLE_DAMAGE)
def test_a_damaged_table_is_refused(study_folder, tmp_path, damage, words):
    folder = copy_folder(study_folder, tmp_path / "table")
    table_path = os.path.join(folder, "table.csv")
    with open(table_path) as f:
        text = damage(f.read())
    with open(table_path, "wb") as f:
        f.write(text if isinstance(text, bytes) else text.encode())
    with pytest.raises(fovea.ResultsError, match="^%s: " % folder) as caught:
        fovea.read_study(folder)
    assert words in str(caught.value)


RUN_DAMAGE = [
    # (file, its new bytes, allow_incomplete, what the message says)
    ("summary.json", b"", False, "its summary.json is cut short or damaged"),
    ("summary.json", b"[1, 2]", False, "its summary.json is not a JSON object"),
    ("summary.json", b"\xff\xfe{}", False, "its summary.json is damaged"),
    ("summary.json", b"{\"a\": NaN", False, "its summary.json is cut short or damaged"),
    ("config.yaml", b"name: \xff\xfe\n", False, "its config.yaml is damaged"),
    ("frames.csv", b"", True, "its frames.csv has no header row"),
    ("frames.csv", b"a,b\n1,2,3\n", True, "its frames.csv is cut short or damaged"),
    ("frames.csv", b"a,b\n\xff,2\n", True, "its frames.csv is damaged"),
    ("frames.csv", b"a,\"b\n1,2\n", True, "its frames.csv is cut short or damaged"),
    ("manifest.json", b'{"status": "completed", "deep": ' + nested(JSON_DEPTH).encode() + b"}", False,
     "its manifest.json cannot be read"),
]


@pytest.mark.parametrize("name,content,allow,words", RUN_DAMAGE)
def test_a_damaged_run_is_refused(run_folder, tmp_path, name, content, allow, words):
    folder = copy_folder(run_folder, tmp_path / "run")
    with open(os.path.join(folder, name), "wb") as f:
        f.write(content)
    with pytest.raises(fovea.ResultsError, match="^%s: " % folder) as caught:
        fovea.read_run(folder, allow_incomplete=allow)
    assert words in str(caught.value)


def test_a_header_only_frames_csv_of_a_killed_run_is_an_empty_table(run_folder, tmp_path):
    folder = copy_folder(run_folder, tmp_path / "run")
    frames_path = os.path.join(folder, "frames.csv")
    with open(frames_path) as f:
        header = f.readline()
    with open(frames_path, "w") as f:
        f.write(header)
    frames = fovea.read_run(folder, allow_incomplete=True)
    assert len(frames) == 0 and list(frames.columns) == header.rstrip("\n").split(",")


def test_long_values_are_quoted_as_an_excerpt(study_folder, tmp_path):
    folder = copy_folder(study_folder, tmp_path / "long")
    edit_json(os.path.join(folder, "sweep.json"), status="x" * 100000)
    with pytest.raises(fovea.ResultsError) as caught:
        fovea.read_study(folder)
    assert "... (100000 bytes)" in str(caught.value) and len(str(caught.value)) < 1000
    # A study file's path, however long a path may be, is quoted whole: the command is copied.
    path = "/" + "/".join(["a-long-folder-name"] * 12) + "/study.yaml"
    edit_json(os.path.join(folder, "sweep.json"), status="interrupted", study_file=path)
    with pytest.raises(fovea.ResultsError, match="`fovea sweep %s --out " % path):
        fovea.read_study(folder)
    edit_json(os.path.join(folder, "sweep.json"), study_file="y" * 100000)
    with pytest.raises(fovea.ResultsError, match=r"`fovea sweep y+\.\.\. \(100000 bytes\) --out "):
        fovea.read_study(folder)


# ---------------------------------------------------------------------------------------------
# Generated folders: a real run or study, damaged in one to three files at random.

class Hung(BaseException):
    """A read that took longer than the alarm allows (BaseException: no reader catches it)."""


def read_within(seconds, read, *args, **kwargs):
    """read(*args, **kwargs), raising Hung after `seconds` (a blocked open or read is interrupted)."""
    def alarm(signum, frame):
        raise Hung("%s%r took more than %d s" % (read.__name__, args, seconds))
    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return read(*args, **kwargs)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=20)


@st.composite
def deep_json(draw):
    return nested(draw(st.integers(min_value=1, max_value=300)), leaf=json.dumps(draw(json_values)))


@st.composite
def damage(draw, original):
    """New bytes for a file whose real bytes are `original`; None for a FIFO, "folder" for a
    folder, "missing" for none."""
    kind = draw(st.sampled_from(["bytes", "json", "deep", "cut", "splice", "lines", "field", "fifo", "folder", "missing"]))
    if kind == "bytes":
        return draw(st.binary(max_size=300))
    if kind == "json":
        return json.dumps(draw(json_values)).encode()
    if kind == "deep":
        return draw(deep_json()).encode()
    if kind == "cut":
        return original[: draw(st.integers(min_value=0, max_value=len(original)))]
    if kind == "splice":
        start = draw(st.integers(min_value=0, max_value=len(original)))
        end = draw(st.integers(min_value=start, max_value=min(len(original), start + 20)))
        return original[:start] + draw(st.binary(max_size=20) | st.sampled_from([b",", b"\n", b'"', b"", b"\r\n"])) + original[end:]
    if kind == "lines":
        # A line dropped, repeated, moved, or a cell added or taken away: rows of other lengths.
        lines = original.split(b"\n")
        at = draw(st.integers(min_value=0, max_value=len(lines) - 1))
        edit = draw(st.sampled_from(["drop", "repeat", "move", "add cell", "take cell"]))
        if edit == "drop":
            del lines[at]
        elif edit == "repeat":
            lines.insert(at, lines[at])
        elif edit == "move":
            lines.insert(draw(st.integers(min_value=0, max_value=len(lines) - 1)), lines.pop(at))
        elif edit == "add cell":
            lines[at] += b"," + draw(st.sampled_from([b"", b"1", b"nan", b"x", b'"a,b"']))
        else:
            lines[at] = lines[at][: max(lines[at].rfind(b","), 0)]
        return b"\n".join(lines)
    if kind == "field":
        # A JSON file's value at a path of keys and indices replaced: the right file, a wrong field.
        try:
            value = json.loads(original)
        except ValueError:
            return original
        if not isinstance(value, dict) or not value:
            return original
        parent, key = value, draw(st.sampled_from(sorted(value)))
        while isinstance(parent[key], (dict, list)) and parent[key] and draw(st.booleans()):
            parent = parent[key]
            key = draw(st.sampled_from(sorted(parent) if isinstance(parent, dict) else range(len(parent))))
        parent[key] = draw(json_values | deep_json().map(json.loads))
        return json.dumps(value).encode()
    return {"fifo": None, "folder": "folder", "missing": "missing"}[kind]


def put(path, new):
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)
    elif os.path.lexists(path):
        os.unlink(path)
    if new is None:
        os.mkfifo(path)
    elif new == "folder":
        os.mkdir(path)
    elif new != "missing":
        with open(path, "wb") as f:
            f.write(new)


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    return str(tmp_path_factory.mktemp("hostile"))


def damaged_copy(source, scratch, names, draw):
    """A copy of the folder `source` in a new folder under `scratch`, one to three of its files
    `names` damaged."""
    folder = os.path.join(tempfile.mkdtemp(dir=scratch), "f")
    copy_folder(source, folder)
    for name in draw(st.lists(st.sampled_from(names), min_size=1, max_size=3)):
        # The real file's bytes, from the source: the copy's may be a FIFO by now.
        with open(os.path.join(source, name), "rb") as f:
            original = f.read()
        put(os.path.join(folder, name), draw(damage(original)))
    return folder


def assert_table_or_refusal(read, folder, **kwargs):
    try:
        table = read_within(20, read, folder, **kwargs)
    except fovea.ResultsError as error:
        # One line, the folder first; what it quotes of the files cut to an excerpt.
        message = str(error)
        assert message.startswith(folder + ": ") and "\n" not in message and len(message) < 2000, message[:2000]
    else:
        assert isinstance(table, pandas.DataFrame)
    finally:
        shutil.rmtree(os.path.dirname(folder))


# The same examples every suite run (derandomize), so a ctest failure repeats; set
# FOVEA_HYPOTHESIS_RANDOM=1 to draw new ones and FOVEA_HOSTILE_EXAMPLES to draw more.
RANDOM = os.environ.get("FOVEA_HYPOTHESIS_RANDOM", "") not in ("", "0")
HOSTILE = settings(max_examples=int(os.environ.get("FOVEA_HOSTILE_EXAMPLES", "150")), deadline=None, database=None,
                   derandomize=not RANDOM,
                   suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture])


@HOSTILE
@given(data=st.data(), allow=st.booleans())
def test_generated_run_folders(run_folder, scratch, data, allow):
    folder = damaged_copy(run_folder, scratch, ["manifest.json", "summary.json", "config.yaml", "frames.csv"], data.draw)
    assert_table_or_refusal(fovea.read_run, folder, allow_incomplete=allow)


@HOSTILE
@given(data=st.data(), allow=st.booleans())
def test_generated_study_folders(study_folder, scratch, data, allow):
    folder = damaged_copy(study_folder, scratch, ["sweep.json", "table.csv"], data.draw)
    assert_table_or_refusal(fovea.read_study, folder, allow_incomplete=allow)
