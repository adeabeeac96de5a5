"""End to end: `python -m measure run/verify/sweep`, the record, its tables and failures."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analytics.core import paths
from measure import record as rec
from measure import verify
from measure.runner import RunRequest, run_measurement

FIXTURE = "tests/fixtures/measure/busy_adapter.py"
INPUTS = paths.REPO_ROOT / "data" / "catalog" / "vision" / "inputs" / "cc0"


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "measure", *args],
        cwd=paths.REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


def _measure(tmp_path: Path, cls: str = "BusyWait2ms", **kw) -> dict:
    req = RunRequest(adapter=f"{FIXTURE}:{cls}", out=tmp_path, **{"warmup": 2, "calls": 20, **kw})
    return run_measurement(req)


@pytest.fixture(scope="module")
def busy_record(tmp_path_factory) -> tuple[dict, Path]:
    out = tmp_path_factory.mktemp("runs")
    record = _measure(out)
    return record, out / "records" / f"{record['run_id']}.json"


def test_record_has_the_documented_keys(busy_record):
    record, path = busy_record
    for key in ("median_ms", "p90_ms", "discarded", "discard_reason", "runs", "ram_peak_mib"):
        assert key in record
    assert record["record_version"] == rec.RECORD_VERSION
    assert len(record["runs"]) == 3 and all(len(r["calls_ms"]) == 20 for r in record["runs"])
    assert record["protocol"]["standard"] is False  # 2/20 instead of 10/100
    assert "instead of 3/10/100" in record["protocol"]["nonstandard_reasons"][0]
    assert (
        record["protocol"]["precision"] == "fp32"
        and "cpu" in record["protocol"]["precision_reason"]
    )
    assert record["environment"]["device_kind"] == "cpu" and record["environment"]["cpu_model"]
    assert record["lock"]["requirements_sha256"] and record["adapter"]["source_sha256"]
    assert [f["name"] for f in record["inputs"]["files"]][0] == "astronaut.png"
    assert json.loads(path.read_text()) == record


def test_known_latency_is_reported_within_5_percent(tmp_path, monkeypatch):
    # 2 ms of CPU time per call: no recorded call is shorter, however loaded the machine, and
    # each run's median agrees within 5% with the adapter's own clock read inside predict().
    ref_file = tmp_path / "reference.txt"
    monkeypatch.setenv("ATLAS_TEST_REF_FILE", str(ref_file))
    record = _measure(tmp_path / "runs", "BusyCpu2ms", calls=40)
    by_pid: dict[str, list[float]] = {}
    for line in ref_file.read_text().splitlines():
        pid, ms = line.split()
        by_pid.setdefault(pid, []).append(float(ms))
    references = list(by_pid.values())  # one per worker, in run order
    assert record["status"] == "ok" and len(references) == len(record["runs"]) == 3
    for run, reference in zip(record["runs"], references, strict=True):
        timed = run["calls_ms"]
        assert min(timed) >= 2.0 * 0.999
        ratio = np.median(np.asarray(timed) / np.asarray(reference[2 : 2 + len(timed)]))
        assert ratio == pytest.approx(1.0, rel=0.05)
    assert record["median_ms"] >= 2.0 * 0.999


def test_tables_are_written_and_readable(busy_record):
    record, path = busy_record
    root = path.parent.parent
    run_id = record["run_id"]
    runs = pd.read_parquet(root / "vision_runs" / f"{run_id}.parquet")
    calls = pd.read_parquet(root / "vision_calls" / f"{run_id}.parquet")
    memory = pd.read_parquet(root / "vision_memory" / f"{run_id}.parquet")
    outputs = pd.read_parquet(root / "vision_outputs" / f"{run_id}.parquet")
    assert runs.loc[0, "median_ms"] == pytest.approx(record["median_ms"])
    assert len(calls) == 60 and set(calls["run_index"]) == {0, 1, 2}
    assert len(memory) > 0 and set(memory["kind"]) == {"ram"}
    assert len(outputs) == 5 and outputs["above_threshold"].all()


def test_verify_passes_then_catches_tampering(busy_record, tmp_path):
    record, path = busy_record
    assert _cli("verify", str(path)).returncode == 0

    edited = json.loads(path.read_text())
    edited["runs"][1]["calls_ms"][3] += 50.0  # an edited call time
    (tmp_path / "a.json").write_text(json.dumps(edited))
    done = _cli("verify", str(tmp_path / "a.json"))
    assert done.returncode == 1 and "mismatch" in done.stderr

    edited = json.loads(path.read_text())
    edited["median_ms"] *= 0.9  # an edited headline
    (tmp_path / "b.json").write_text(json.dumps(edited))
    done = _cli("verify", str(tmp_path / "b.json"))
    assert done.returncode == 1 and "median_ms" in done.stderr


def test_verify_catches_a_changed_input_file(tmp_path):
    inputs = tmp_path / "inputs"
    shutil.copytree(INPUTS, inputs)
    record = _measure(tmp_path / "runs", runs=1, inputs=inputs, calls=3)
    path = tmp_path / "runs" / "records" / f"{record['run_id']}.json"
    assert all(c.state == "ok" for c in verify.checks(record))
    with open(inputs / "coffee.png", "ab") as handle:
        handle.write(b"\0")
    done = _cli("verify", str(path))
    assert done.returncode == 1 and "input coffee.png" in done.stderr


def test_verify_rejects_unreadable_record(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    done = _cli("verify", str(bad))
    assert done.returncode == 2 and "bad.json" in done.stderr


def test_runs_that_disagree_are_kept_but_discarded(tmp_path, monkeypatch):
    monkeypatch.setenv("ATLAS_TEST_SLOW_FILE", str(tmp_path / "marker"))
    record = _measure(tmp_path / "runs", "SlowSecondRun", calls=10)
    assert record["discarded"] is True
    assert "differ by" in record["discard_reason"]
    stored = pd.read_parquet(tmp_path / "runs" / "vision_runs" / f"{record['run_id']}.parquet")
    assert bool(stored.loc[0, "discarded"]) and "differ by" in stored.loc[0, "discard_reason"]


def test_crash_in_a_model_is_a_failed_record(tmp_path):
    done = _cli(
        "run",
        "--adapter",
        f"{FIXTURE}:Crashing",
        "--runs",
        "3",
        "--calls",
        "2",
        "--out",
        str(tmp_path),
        "--no-progress",
    )
    assert done.returncode == 1 and "imaginary_backbone" in done.stderr
    (record_file,) = (tmp_path / "records").glob("*.json")
    record = json.loads(record_file.read_text())
    assert record["status"] == "failed" and len(record["runs"]) == 1
    assert record["listable"] is False and record["median_ms"] is None
    assert len(list((tmp_path / "vision_runs").glob("*.parquet"))) == 1


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--adapter", "no-such-model"], "is not registered"),
        (["--adapter", "missing.py:Thing"], "not found"),
        (["--adapter", f"{FIXTURE}:BusyWait2ms", "--device", "tpu"], "use cpu, cuda"),
        (["--adapter", f"{FIXTURE}:BusyWait2ms", "--inputs", "/nonexistent"], "not a folder"),
    ],
)
def test_bad_input_is_one_line_and_writes_nothing(tmp_path, args, fragment):
    done = _cli("run", *args, "--out", str(tmp_path), "--no-progress")
    assert done.returncode == 2
    assert fragment in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert not any(tmp_path.iterdir())


def test_dispatcher_lists_commands_and_reserves_submit():
    done = _cli("--help")
    assert done.returncode == 0
    for name in ("run", "verify", "sweep", "submit", "inbox"):
        assert name in done.stdout
    assert _cli("frobnicate").returncode == 2


def test_sweep_records_failures_and_continues(tmp_path):
    done = _cli(
        "sweep",
        "--only",
        "fasterrcnn-resnet50-fpn",
        "detr-resnet50",
        "--out",
        str(tmp_path),
        "--runs",
        "1",
        "--warmup",
        "0",
        "--calls",
        "1",
    )
    assert "fasterrcnn-resnet50-fpn: FAILED" in done.stdout
    assert "detr-resnet50: FAILED" in done.stdout  # both reached: the first did not stop it
    records = [json.loads(p.read_text()) for p in (tmp_path / "records").glob("*.json")]
    assert sorted(r["adapter"]["name"] for r in records) == [
        "detr-resnet50",
        "fasterrcnn-resnet50-fpn",
    ]
    # Each failure is recorded with its reason (a missing package here, or weights that cannot be
    # fetched offline where the package is installed) and the sweep went on.
    assert all(r["status"] == "failed" and r["error"].strip() for r in records)


COMMITTED = sorted((paths.REPO_ROOT / "data" / "runs" / "records").glob("*.json"))


@pytest.mark.parametrize("path", COMMITTED, ids=[p.stem for p in COMMITTED])
def test_committed_records_recompute_and_match_their_tables(path):
    record = verify.load_record(path)
    results = {c.name: c for c in verify.checks(record)}
    for key in rec.figure_keys(record):
        assert results[key].state == "ok", results[key]
    for item in record["inputs"]["files"]:
        assert results[f"input {item['name']}"].state == "ok"
    assert results.get("accuracy stats", verify.Check("", "ok")).state == "ok"
    row = pd.read_parquet(path.parent.parent / "vision_runs" / f"{record['run_id']}.parquet")
    assert row.loc[0, "median_ms"] == pytest.approx(record["median_ms"])
    assert bool(row.loc[0, "discarded"]) == record["discarded"]


def test_a_job_runs_in_background_with_progress(tmp_path):
    from measure import run_jobs

    job = run_jobs.start(f"{FIXTURE}:BusyWait2ms", "cpu", 1, 0, 5, owner="test", out=tmp_path)
    for _ in range(600):
        state = run_jobs.status(job)
        if state["finished"]:
            break
        time.sleep(0.1)
    assert state["status"] == run_jobs.FINISHED, state
    assert state["calls_done"] == state["calls_total"] == 5
    assert run_jobs.holder(tmp_path) is None  # the runs folder is free again
    assert len(list((tmp_path / "records").glob("*.json"))) == 1
