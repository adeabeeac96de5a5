"""Reliability and forgery probes of the measuring harness: hung and noisy adapters, malformed
detections, forged records for `measure verify`, and fuzzed input to the record parser."""

from __future__ import annotations

import copy
import json
import queue
import shutil
import subprocess
import sys
import textwrap
import time
import tracemalloc
from pathlib import Path

import psutil
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analytics.core import paths, run_schema, run_unit
from analytics.core.run_schema import RecordError
from measure import env, runner, verify
from measure import record as rec
from measure.adapters.base import BadOutputError, check_detections
from measure.runner import RunRequest, run_measurement

FIXTURE = "tests/fixtures/measure/busy_adapter.py"
COMMITTED = sorted((paths.REPO_ROOT / "data" / "runs" / "records").glob("*.json"))
COMMITTED_V1 = [p for p in COMMITTED if json.loads(p.read_text()).get("record_version") == 1]


def _cli(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "measure", *args],
        cwd=paths.REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def _adapter_file(tmp_path: Path, body: str, name: str = "probe.py") -> Path:
    """A one-class adapter file ``Probe`` in ``tmp_path`` whose methods are ``body``."""
    head = """\
        import os, subprocess, sys, time
        from measure.adapters.base import Adapter


        class Probe(Adapter):
            name = "probe"
            task = "face-detection"
            precisions = ("fp32",)
    """
    path = tmp_path / name
    path.write_text(textwrap.dedent(head) + textwrap.indent(textwrap.dedent(body), "    "))
    return path


def _only_record(folder: Path) -> dict:
    (path,) = (folder / "records").glob("*.json")
    return json.loads(path.read_text())


# --- 4: timeouts and the progress channel ---------------------------------------------------


HANGS = """\
    def load(self, device, precision):
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])
        with open(os.environ["ATLAS_TEST_PID_FILE"], "w") as handle:
            handle.write(str(child.pid))

    def predict(self, image):
        time.sleep(3600)
"""


def _gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def test_a_hanging_adapter_is_killed_at_timeout_and_recorded_as_failed(tmp_path, monkeypatch):
    adapter = _adapter_file(tmp_path, HANGS)
    pid_file = tmp_path / "child.pid"
    monkeypatch.setenv("ATLAS_TEST_PID_FILE", str(pid_file))
    started = time.monotonic()
    done = _cli(
        "run", "--adapter", f"{adapter}:Probe", "--timeout", "3", "--runs", "3",
        "--warmup", "0", "--calls", "2", "--out", str(tmp_path / "runs"), "--no-progress",
        timeout=120,
    )
    assert time.monotonic() - started < 60  # one worker, killed at 3 s; the rest not started
    assert done.returncode == 1 and "timeout after 3 s" in done.stderr
    record = _only_record(tmp_path / "runs")
    assert record["status"] == "failed" and record["error"] == "timeout after 3 s"
    assert len(record["runs"]) == 1 and record["median_ms"] is None
    child = int(pid_file.read_text())
    deadline = time.monotonic() + 5
    while not _gone(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _gone(child), "the worker's process group outlived the timeout"
    assert verify.main(["verify", str(next((tmp_path / "runs" / "records").glob("*.json")))]) == 0


PRINTS = """\
    def load(self, device, precision):
        print("loading weights 1 2", flush=True)
        os.write(1, b"progress x y\\n")

    def predict(self, image):
        print("3 4")
        sys.stdout.write("progress 1\\n")
        sys.stdout.flush()
        return [{"bbox": [1.0, 2.0, 3.0, 4.0], "score": 0.95, "category_id": 1}]
"""


def test_an_adapter_printing_to_stdout_still_measures(tmp_path):
    adapter = _adapter_file(tmp_path, PRINTS)
    progress = tmp_path / "progress.jsonl"
    done = _cli(
        "run", "--adapter", f"{adapter}:Probe", "--runs", "2", "--warmup", "1", "--calls", "5",
        "--out", str(tmp_path / "runs"), "--progress-file", str(progress), "--no-progress",
    )
    assert done.returncode == 0, done.stderr
    record = _only_record(tmp_path / "runs")
    assert record["status"] == "ok" and all(len(r["calls_ms"]) == 5 for r in record["runs"])
    last = json.loads(progress.read_text().splitlines()[-1])
    assert last["done"] == last["total"] == 6


def test_only_strict_progress_lines_are_relayed():
    lines: queue.Queue = queue.Queue()
    for line in ("progress x y\n", "3 4\n", "@measure-progress 1\n", "@measure-progress 2 9\n"):
        lines.put(line)
    lines.put(None)
    seen = []
    done = runner._relay(lines, time.monotonic() + 5, "run", lambda *a: seen.append(a))
    assert done and seen == [("run", 2, 9)]


def test_relay_gives_up_at_its_deadline():
    started = time.monotonic()
    assert runner._relay(queue.Queue(), time.monotonic() + 0.3, "run", None) is False
    assert time.monotonic() - started < 2


def test_timeout_option_is_documented_and_checked(tmp_path):
    assert "--timeout SECONDS" in _cli("run", "--help").stdout
    assert "--timeout SECONDS" in _cli("sweep", "--help").stdout
    done = _cli("run", "--adapter", f"{FIXTURE}:BusyWait2ms", "--timeout", "0", "--no-progress",
                "--out", str(tmp_path))
    assert done.returncode == 2 and "--timeout" in done.stderr


# --- 5: detections are validated ------------------------------------------------------------

GOOD = {"bbox": [1.0, 2.0, 3.0, 4.0], "score": 0.5, "category_id": 1}
BAD_DETECTIONS = [
    ({**GOOD, "bbox": "1,2,3,4"}, "bbox"),
    ({**GOOD, "bbox": [1.0, float("nan"), 3.0, 4.0]}, "finite"),
    ({**GOOD, "bbox": [1.0, 2.0, 3.0]}, "4 finite numbers"),
    ({k: v for k, v in GOOD.items() if k != "score"}, "lacks 'score'"),
    ({k: v for k, v in GOOD.items() if k != "bbox"}, "lacks 'bbox'"),
    ({**GOOD, "bbox": [1.0, 2.0, -3.0, 4.0]}, "negative width or height"),
    ({**GOOD, "score": 1.5}, "in [0, 1]"),
    ({**GOOD, "score": float("inf")}, "in [0, 1]"),
    ({**GOOD, "category_id": -1}, "non-negative integer"),
    ({**GOOD, "category_id": "person"}, "non-negative integer"),
    ("not a dict", "not an object"),
]


@pytest.mark.parametrize(("det", "fragment"), BAD_DETECTIONS)
def test_check_detections_names_image_index_and_problem(det, fragment):
    with pytest.raises(BadOutputError) as caught:
        check_detections([GOOD, det], "astronaut.png")
    assert caught.value.where == "image astronaut.png"
    assert caught.value.what.startswith("detection 1 ") and fragment in caught.value.what
    assert caught.value.fix.startswith("predict() must return") and "\n" not in str(caught.value)


BAD_OUTPUT = """\
    def load(self, device, precision):
        self.bad = json.loads(os.environ["ATLAS_TEST_BAD_DETECTION"])

    def predict(self, image):
        good = {"bbox": [1.0, 2.0, 3.0, 4.0], "score": 0.5, "category_id": 1}
        return [good, self.bad]
"""

BAD_KINDS = [
    ({**GOOD, "bbox": "1,2,3,4"}, "bbox"),
    ({**GOOD, "bbox": [1.0, "NaN", 3.0, 4.0]}, "4 finite numbers"),
    ({k: v for k, v in GOOD.items() if k != "category_id"}, "lacks 'category_id'"),
    ({**GOOD, "bbox": [1.0, 2.0, 3.0, -4.0]}, "negative width or height"),
    ({**GOOD, "score": 2.0}, "in [0, 1]"),
    ({**GOOD, "category_id": -3}, "non-negative integer"),
]


@pytest.mark.parametrize(("det", "fragment"), BAD_KINDS, ids=[f for _, f in BAD_KINDS])
def test_a_bad_detection_fails_the_run_and_stores_no_result(tmp_path, monkeypatch, det, fragment):
    adapter = _adapter_file(tmp_path, BAD_OUTPUT)
    adapter.write_text("import json\n" + adapter.read_text())
    monkeypatch.setenv("ATLAS_TEST_BAD_DETECTION", json.dumps(det))
    req = RunRequest(adapter=f"{adapter}:Probe", out=tmp_path / "runs", runs=1, warmup=0, calls=1)
    record = run_measurement(req)
    assert record["status"] == "failed"
    assert "image astronaut.png" in record["error"] and "detection 1" in record["error"]
    assert fragment in record["error"] and "\n" not in record["error"]
    assert record["outputs"] == [] and record["accuracy"] is None


def test_the_parent_refuses_a_payload_with_bad_detections():
    payload = {"calls_ms": [1.0], "outputs": [{**GOOD, "score": -1, "input_index": 0}]}
    assert "outputs[0] score" in runner._checked(payload)["error"]
    payload = {"accuracy_detections": [dict(GOOD)]}
    assert "lacks an integer image_id" in runner._checked(payload)["error"]


# --- 6: verify cannot be fooled --------------------------------------------------------------


@pytest.fixture(scope="module")
def fresh(tmp_path_factory) -> tuple[dict, Path]:
    """A version-2 record of the busy-wait adapter and its folder."""
    out = tmp_path_factory.mktemp("runs")
    req = RunRequest(adapter=f"{FIXTURE}:BusyWait2ms", out=out, runs=1, warmup=1, calls=21)
    record = run_measurement(req)
    return record, out / "records" / f"{record['run_id']}.json"


def _verify(tmp_path: Path, record: dict, *options: str, capsys) -> tuple[int, str, str]:
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(record))
    code = verify.main(["verify", str(path), *options])
    out, err = capsys.readouterr()
    return code, out, err


def _error_line(err: str) -> str:
    (line,) = [x for x in err.splitlines() if x.startswith("error:")]
    return line


def test_a_fresh_record_verifies_and_is_version_2(fresh, tmp_path, capsys):
    record, path = fresh
    assert record["record_version"] == 2 and run_schema.is_hex64(record["runs_sha256"])
    code, out, err = _verify(tmp_path, record, capsys=capsys)
    assert code == 0, err
    assert "ok          runs_sha256" in out and "verified" in out


def test_an_absent_file_with_a_forged_hash_fails_unless_allowed(fresh, tmp_path, capsys):
    forged = copy.deepcopy(fresh[0])
    forged["weights"].append(
        {"file": "ghost.pt", "root": "external", "path": "ghost.pt", "sha256": "0" * 64}
    )
    code, _, err = _verify(tmp_path, forged, capsys=capsys)
    assert code == 1 and "weights ghost.pt not checked" in _error_line(err)
    code, out, _ = _verify(tmp_path, forged, "--allow-missing", capsys=capsys)
    assert code == 0 and "allowed by --allow-missing" in out


def _edit_call_leaving_figures(record: dict) -> dict:
    """The fastest call made faster still: median, p90 and per-run medians do not move."""
    forged = copy.deepcopy(record)
    calls = forged["runs"][0]["calls_ms"]
    fastest = calls.index(min(calls))
    calls[fastest] *= 0.5
    return forged


@pytest.mark.parametrize(
    ("forge", "check"),
    [
        (lambda r: r["lock"]["pip_freeze"].append("evil==6.6.6"), "lock pip freeze"),
        (lambda r: r["lock"].update(requirements_sha256="a" * 64), "lock requirements"),
        (lambda r: r["environment"].update(torch_version="9.9.9"), "lock torch"),
        (
            lambda r: r["environment"].update(
                device="cuda", device_kind="gpu", device_name="NVIDIA H100"
            ),
            "environment",
        ),
        (lambda r: r["environment"].update(device_name="Threadripper 9999"), "environment"),
        (lambda r: r["protocol"].update(batch_size=8), "protocol"),
        (lambda r: r["protocol"].update(timer="a stopwatch"), "protocol"),
        (lambda r: r["protocol"].update(sync="torch.cuda.synchronize"), "protocol"),
        (lambda r: r["protocol"].update(standard=True), "protocol"),
        (lambda r: r["tool"].update(git_commit="abcdef1"), "dates and tool commit"),
        (lambda r: r.update(created_utc="2020-01-01T00:00:00+00:00"), "dates and tool commit"),
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_each_forgery_is_a_one_line_mismatch(fresh, tmp_path, capsys, forge, check):
    forged = copy.deepcopy(fresh[0])
    forge(forged)
    code, _, err = _verify(tmp_path, forged, capsys=capsys)
    line = _error_line(err)
    assert code == 1 and f"{check} mismatch" in line, err
    assert "forged.json" in line and "; fix:" in line


def test_a_future_record_is_refused(fresh, tmp_path, capsys):
    forged = copy.deepcopy(fresh[0])
    stamp = forged["run_id"].split("-")[-2]
    forged["run_id"] = forged["run_id"].replace(stamp, "20990101T000000Z")
    forged["created_utc"] = "2099-01-01T00:00:00+00:00"
    code, _, err = _verify(tmp_path, forged, capsys=capsys)
    assert code == 1 and "in the future" in _error_line(err)


def test_one_changed_call_time_that_leaves_the_median_alone_is_caught(fresh, tmp_path, capsys):
    forged = _edit_call_leaving_figures(fresh[0])
    again = rec.recompute(forged)
    for key in ("median_ms", "p90_ms", "run_medians_ms", "run_spread"):
        assert again[key] == fresh[0][key]  # the edit moves no figure...
    code, _, err = _verify(tmp_path, forged, capsys=capsys)
    assert code == 1 and "runs_sha256 mismatch" in _error_line(err)  # ...but the hash


def test_figures_are_compared_exactly(fresh, tmp_path, capsys):
    forged = copy.deepcopy(fresh[0])
    forged["median_ms"] *= 1 + 1e-12  # within the old 1e-9 tolerance
    code, _, err = _verify(tmp_path, forged, capsys=capsys)
    assert code == 1 and "median_ms mismatch" in _error_line(err)


@pytest.mark.parametrize(
    ("forge", "fragment"),
    [
        (lambda r: r.update(runs={"0": r["runs"][0]}), "runs should be list"),
        (lambda r: r["runs"][0]["calls_ms"].__setitem__(0, "1.5"), "calls_ms should be"),
        (lambda r: r["runs"][0].update(calls_ms=[1.0]), "differ in length"),
        (lambda r: r.update(record_version=99), "record_version 99"),
        (lambda r: r["inputs"]["files"][0].update(name="../../etc/passwd"), "not a file name"),
        (lambda r: r["outputs"][0].update(bbox=[1, 2, 3, "x"]), "outputs[0] bbox"),
        (lambda r: r.update(accuracy={"detections": 3}), "accuracy."),
        (lambda r: r.update(outputs=[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]), "nested deeper"),
    ],
)
def test_malformed_structures_are_one_line_errors(fresh, tmp_path, capsys, forge, fragment):
    forged = copy.deepcopy(fresh[0])
    forge(forged)
    code, _, err = _verify(tmp_path, forged, capsys=capsys)
    assert code == 2 and fragment in err, err
    assert len(err.strip().splitlines()) == 1


def test_deep_nesting_and_huge_files_are_one_line_errors(tmp_path, capsys):
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 200_000 + "]" * 200_000)
    assert verify.main(["verify", str(deep)]) == 2
    _, err = capsys.readouterr()
    assert len(err.strip().splitlines()) == 1 and "deep.json" in err
    with pytest.raises(RecordError) as caught:
        verify.parse_record(b" " * (verify.MAX_RECORD_BYTES + 1))
    cap = verify.MAX_RECORD_BYTES
    assert caught.value.what == f"{cap + 1} bytes, over {cap}"
    assert caught.value.fix == rec.FIX and caught.value.exit_status == 2


def test_weights_are_stored_relative_to_a_declared_root():
    item = env.weights_entry(paths.REPO_ROOT / FIXTURE)
    assert item["root"] == "repo" and item["path"] == FIXTURE
    assert env.resolve_weights(item) == paths.REPO_ROOT / FIXTURE
    import numpy

    installed = Path(numpy.__file__)
    item = env.weights_entry(installed)
    assert item["root"] == "site-packages" and item["path"] == "numpy/__init__.py"
    outside = env.weights_entry(Path(sys.executable).resolve())
    assert outside["root"] == "external" and "/" not in outside["path"]


def test_old_absolute_weights_paths_still_resolve():
    import numpy

    moved = {"file": "__init__.py", "path": "/elsewhere/lib/site-packages/numpy/__init__.py"}
    assert env.resolve_weights(moved) == Path(numpy.__file__)
    assert env.resolve_weights({"file": "x", "path": "/nonexistent/x.pt"}) is None
    escape = {"file": "x", "root": "repo", "path": "../../etc/passwd"}
    assert env.resolve_weights(escape) is None


def test_a_version_1_record_is_checked_against_its_calls_table(tmp_path, capsys):
    source = COMMITTED_V1[-1]
    runs = tmp_path / "runs"
    (runs / "records").mkdir(parents=True)
    for name in run_unit.TABLES:  # the whole run, so its run manifest can list every file
        (runs / name).mkdir()
        shutil.copy(source.parent.parent / name / f"{source.stem}.parquet", runs / name)
    forged = _edit_call_leaving_figures(json.loads(source.read_text()))
    assert forged["record_version"] == 1 and "runs_sha256" not in forged
    (runs / "records" / source.name).write_text(json.dumps(forged))
    run_unit.seal(runs, source.stem)  # a manifest is a checksum, not a signature: resealed
    assert verify.main(["verify", str(runs / "records" / source.name)]) == 1
    said = capsys.readouterr()
    assert "ok          run files" in said.out  # the forgery got past the run manifest ...
    assert "calls table mismatch" in _error_line(said.err)  # ... and the calls table caught it


def test_committed_records_of_every_version_still_verify():
    assert COMMITTED_V1 and len(COMMITTED_V1) < len(COMMITTED)
    done = _cli("verify", *(str(p) for p in COMMITTED))
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("verified ") == len(COMMITTED)


# --- fuzz: the record parser and verify raise only RecordError, within a memory bound ---------

MEMORY_LIMIT_BYTES = 64 * 2**20
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=30)
)
KEYS = st.sampled_from([f.path.split(".")[-1] for f in run_schema.RECORD + run_schema.RUN])
JSON = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=6) | st.dictionaries(KEYS | st.text(max_size=8), inner, max_size=6)
    ),
    max_leaves=40,
)


def _only_record_errors(call) -> None:
    """Run ``call`` under tracemalloc: it returns or raises a one-line RecordError, and its
    peak allocation stays under MEMORY_LIMIT_BYTES."""
    tracemalloc.start()
    try:
        call()
    except RecordError as exc:
        assert "\n" not in str(exc) and str(exc)
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    assert peak < MEMORY_LIMIT_BYTES


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=4096))
def test_fuzz_random_bytes(data):
    _only_record_errors(lambda: list(verify.checks(verify.parse_record(data))))


@settings(max_examples=200, deadline=None)
@given(JSON)
def test_fuzz_random_json(doc):
    _only_record_errors(lambda: list(verify.checks(verify.parse_record(json.dumps(doc).encode()))))
    _only_record_errors(lambda: list(verify.checks(doc)))


def _paths(doc, prefix=(), depth=0):
    """Key paths into ``doc`` (dict keys, the first two list indices), at most 4 deep."""
    out = [prefix]
    if depth >= 4:
        return out
    items = (
        doc.items()
        if isinstance(doc, dict)
        else enumerate(doc[:2])
        if isinstance(doc, list)
        else []
    )
    for key, value in items:
        out += _paths(value, (*prefix, key), depth + 1)
    return out


@pytest.fixture(scope="module")
def fresh_paths(fresh) -> list[tuple]:
    return [p for p in _paths(fresh[0]) if p]


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_fuzz_mutated_records(fresh, fresh_paths, data):
    doc = copy.deepcopy(fresh[0])
    path = data.draw(st.sampled_from(fresh_paths))
    value = data.draw(JSON)
    target = doc
    for key in path[:-1]:
        target = target[key]
    if data.draw(st.booleans()) and isinstance(target, dict):
        del target[path[-1]]
    else:
        target[path[-1]] = value
    _only_record_errors(lambda: list(verify.checks(doc)))


def test_every_registered_adapters_metadata_passes_the_record_schema():
    """The writer may not produce what the validator refuses (PP-OCR's input size once held '_')."""
    from analytics.core import run_schema
    from measure.adapters import registry

    fields = {f.path: f for f in run_schema.RECORD if f.path.startswith("adapter.info.")}
    bad = []
    for name, cls in registry().items():
        info = cls.info.as_dict()
        for path, spec in fields.items():
            value = info.get(path.removeprefix("adapter.info."))
            if value not in (None, "") and not run_schema.KINDS[spec.kind](value):
                bad.append(f"{name}: {path} = {value!r}")
    assert bad == []
