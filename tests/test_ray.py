"""Sweeps and FL batches on a local Ray instance equal the same jobs run without Ray."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pytest

from analytics.core import jobs, paths
from analytics.fl import cli as fl_cli
from analytics.fl import distributed as fl_distributed
from measure import cli as measure_cli
from measure.store import TABLES

ray = pytest.importorskip("ray", reason="ray is not installed (pip install 'ray==2.60.0')")
pytestmark = pytest.mark.ray

BUSY = "tests/fixtures/measure/busy_adapter.py:"
ADAPTERS = [BUSY + "BusyWait2ms", BUSY + "SlowSecondRun"]  # 2 ms per call each
TINY = ["--runs", "1", "--warmup", "1", "--calls", "5"]
FL_ARGS = ["--methods", "FedAvg", "Centralized", "--models", "mlp", "--datasets", "digits"]
FL_ARGS += ["--perturbations", "label_noise", "--seeds", "2026", "--quiet"]


@pytest.fixture(scope="module")
def ray_local():
    """A local Ray instance with 2 CPUs whose workers import this checkout."""
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = str(paths.REPO_ROOT)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()
    if old is None:
        os.environ.pop("PYTHONPATH", None)
    else:
        os.environ["PYTHONPATH"] = old


@pytest.fixture(autouse=True)
def _runs_tmp(tmp_path, monkeypatch):
    monkeypatch.setattr(paths, "RUNS_DIR", tmp_path / "runs_home")


def _markers(results: Path) -> dict[str, dict]:
    return {p.parent.name: json.loads(p.read_text()) for p in results.glob("jobs/*/job.json")}


def test_fl_batch_on_ray_writes_the_same_zips(ray_local, tmp_path):
    assert fl_cli.main(["fl-run", "--out", str(tmp_path / "local"), *FL_ARGS]) == 0
    results, out = tmp_path / "results", tmp_path / "ray"
    argv = ["fl-run", "--out", str(out), "--ray", "--results", str(results), *FL_ARGS]
    assert fl_cli.main(argv) == 0
    local = sorted(p.name for p in (tmp_path / "local").iterdir())
    assert local == sorted(p.name for p in out.iterdir())
    assert len(local) == 6  # A, B for 2 methods + C for FedAvg + policy.json
    for name in local:
        assert (tmp_path / "local" / name).read_bytes() == (out / name).read_bytes(), name
    status = jobs.read_status(results)
    assert (status["done"], status["failed"], status["total"]) == (3, 0, 3)


def test_fl_run_tables_equal_direct_runs(ray_local, tmp_path):
    from analytics.fl import runner

    conditions = ["label_noise", "stragglers"]
    batch = fl_distributed.run_jobs(["FedProx"], ["mlp"], ["digits"], conditions, [7])
    assert [j.spec["conditions"] for j in batch] == [["nominal", "stragglers"], ["label_noise"]]
    jobs.run_batch("fl", fl_distributed.fl_job, batch, tmp_path / "r", use_ray=True)
    for job in batch:
        s = job.spec
        stored = fl_distributed.load_runs(tmp_path / "r", job)
        for condition in s["conditions"]:
            direct = runner.run_one(s["method"], s["model"], s["dataset"], condition, s["seed"])
            assert stored[condition].status == direct.status
            pd.testing.assert_frame_equal(stored[condition].checkpoints, direct.checkpoints)
            pd.testing.assert_frame_equal(stored[condition].workload, direct.workload)


def test_fl_killed_worker_then_rerun_completes_missing_only(ray_local, tmp_path, monkeypatch):
    results, out = tmp_path / "results", tmp_path / "out"
    argv = ["fl-run", "--out", str(out), "--ray", "--results", str(results), *FL_ARGS]
    monkeypatch.setenv(jobs.FAULT_ENV, str(tmp_path / "fault.flag"))
    assert fl_cli.main(argv) == 1  # one task died; nothing written
    assert not out.exists()
    first = _markers(results)
    failed = [k for k, m in first.items() if m["status"] == "failed"]
    assert len(failed) == 1 and "WorkerCrashedError" in first[failed[0]]["reason"]
    assert list((results / "jobs" / failed[0]).iterdir()) == [
        results / "jobs" / failed[0] / "job.json"
    ]
    assert fl_cli.main(argv) == 0  # the flag file exists now: no second fault
    second = _markers(results)
    for job_id, marker in first.items():
        if job_id not in failed:
            assert second[job_id] == marker  # not run again
    assert second[failed[0]]["status"] == "ok"
    assert not any((results / ".staging").iterdir())
    assert len(list(out.glob("*.zip"))) == 5


def _tables(runs_dir: Path) -> dict[str, pd.DataFrame]:
    """Each vision table of a runs folder, with the run id replaced by the adapter name."""
    names = {
        p.stem: json.loads(p.read_text())["adapter"]["name"]
        for p in (runs_dir / "records").glob("*.json")
    }
    out = {}
    for table in TABLES:
        frames = [
            pd.read_parquet(f).assign(adapter_key=names[f.stem])
            for f in sorted((runs_dir / table).glob("*.parquet"))
        ]
        out[table] = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    return out


def _keys(frame: pd.DataFrame) -> pd.DataFrame:
    cols = [c for c in ("adapter_key", "run_index", "call_index", "input_index") if c in frame]
    return frame[cols].sort_values(cols).reset_index(drop=True)


def test_sweep_on_ray_fault_rerun_and_equal_to_local(ray_local, tmp_path, monkeypatch):
    local = tmp_path / "local"
    assert measure_cli.main(["sweep", "--only", *ADAPTERS, "--out", str(local), *TINY]) == 0
    results, out = tmp_path / "results", tmp_path / "ray"
    argv = ["sweep", "--only", *ADAPTERS, "--out", str(out), "--ray", "--results", str(results)]
    monkeypatch.setenv(jobs.FAULT_ENV, str(tmp_path / "fault.flag"))
    assert measure_cli.main([*argv, *TINY]) == 1
    assert len(list((out / "records").glob("*.json"))) == 1  # only the finished job is stored
    stored = {p.stem for p in (out / "records").glob("*.json")}
    for table in TABLES:  # no partial rows: every table holds exactly the stored runs
        assert {p.stem for p in (out / table).glob("*.parquet")} <= stored
    first = _markers(results)
    assert measure_cli.main([*argv, *TINY]) == 0
    second = _markers(results)
    assert [second[k] for k, m in first.items() if m["status"] == "ok"] == [
        m for m in first.values() if m["status"] == "ok"
    ]
    assert len(list((out / "records").glob("*.json"))) == 2  # no duplicate of the first run
    want, got = _tables(local), _tables(out)
    for table in TABLES:
        assert list(want[table].columns) == list(got[table].columns), table
        assert want[table].dtypes.equals(got[table].dtypes), table
        if table == "vision_memory":  # the number of 5 ms samples depends on timing
            key = ["adapter_key", "run_index"]
            want[table], got[table] = (
                want[table].drop_duplicates(key),
                got[table].drop_duplicates(key),
            )
        pd.testing.assert_frame_equal(_keys(want[table]), _keys(got[table]))
    # deterministic columns (timings, and "discarded" which depends on the CPU load, differ)
    cols = ["adapter_key", "status", "task", "device", "precision", "protocol_standard"]
    cols += ["runs", "warmup", "calls", "memory_kind", "ap", "ap50", "adapter_sha256"]
    pd.testing.assert_frame_equal(
        want["vision_runs"][cols].sort_values("adapter_key").reset_index(drop=True),
        got["vision_runs"][cols].sort_values("adapter_key").reset_index(drop=True),
    )
    assert set(got["vision_runs"]["status"]) == {"ok"}
