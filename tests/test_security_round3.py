"""Security and reliability review, round 3: an upload's cost is bounded whatever it holds
(problem lines counted past a cap, CSV members streamed, the directory's entry count and each
entry's real extent checked before parsing, uploads limited per client and at once)."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import numpy as np
import pytest

from analytics.core import paths, safezip
from analytics.fl import submission
from analytics.fl.policy import load_policy
from analytics.fl.submission import validate_zip, zip_bytes

ROOT = paths.REPO_ROOT
REFERENCE = ROOT / "data" / "fl_reference" / "submissions" / "A_cnn_FedAvg.zip"
MIB = 2**20


def _members(path: Path = REFERENCE) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as zf:
        return {n: zf.read(n) for n in zf.namelist()}


def _negative_csv(size_bytes: int, seed: int = 7) -> bytes:
    """A checkpoints.csv of random negative numbers (every value a problem) of about
    ``size_bytes``, random enough to compress only about twofold."""
    rng = np.random.default_rng(seed)
    header = ",".join(submission.CHECKPOINT_COLUMNS) + "\n"
    rows = -rng.random((size_bytes // 70 + 1, len(submission.CHECKPOINT_COLUMNS)))
    body = "\n".join(",".join(f"{v:.9f}" for v in row) for row in rows)
    return (header + body + "\n").encode()[:size_bytes]


def _negative_zip(size_bytes: int = 16 * MIB) -> bytes:
    members = _members()
    first = sorted(n for n in members if n.endswith("checkpoints.csv"))[0]
    body = _negative_csv(size_bytes)
    members[first] = body[: body.rindex(b"\n") + 1]
    return zip_bytes(members)


MEASURE = textwrap.dedent(
    """
    import json, resource, sys, time
    from pathlib import Path
    resource.setrlimit(resource.RLIMIT_CPU, (120, 120))  # today's code ran for 577 s
    def high_water_mib():
        # this process's own peak (ru_maxrss would carry the forking parent's over exec)
        status = Path("/proc/self/status").read_text()
        return int(next(l for l in status.splitlines() if l.startswith("VmHWM")).split()[1]) / 1024
    from analytics.fl.policy import load_policy
    from analytics.fl.submission import validate_zip
    policy = load_policy()
    imported_mib = high_water_mib()
    before = resource.getrusage(resource.RUSAGE_SELF)
    result = validate_zip(Path(sys.argv[1]), policy)
    after = resource.getrusage(resource.RUSAGE_SELF)
    cpu_s = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    peak_mib = high_water_mib()
    print(json.dumps({"ok": result.ok, "lines": len(result.problems), "cpu_s": cpu_s,
                      "peak_mib": peak_mib, "growth_mib": peak_mib - imported_mib,
                      "first": result.problems[:1], "last": result.problems[-1:]}))
    """
)
"""Validates one ZIP in a fresh process and prints its figures. Memory is the process's high-water
mark (whole, and its growth past the imports): real memory, and no tracing that would multiply
the CPU time being bounded (``tracemalloc`` made this run six times slower)."""


@pytest.mark.slow
def test_a_problem_zip_of_millions_of_bad_values_is_refused_in_bounded_lines_memory_and_cpu(
    tmp_path,
):
    data = _negative_zip()
    assert 6 * MIB < len(data) < 9 * MIB  # the probe's 7.5 MB ZIP of one 16 MiB CSV
    path = tmp_path / "negative.zip"
    path.write_bytes(data)
    done = subprocess.run(
        [sys.executable, "-c", MEASURE, str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    assert not figures["ok"]
    assert figures["lines"] <= 1000
    assert figures["cpu_s"] < 60, figures
    assert figures["peak_mib"] < 600, figures  # the whole process, imports included
    assert figures["growth_mib"] < 100, figures  # what validating added to the peak
    assert "more problems not listed" in figures["last"][0]


def test_problem_lines_stop_at_the_cap_per_file_and_say_how_many_more():
    members = _members()
    first = sorted(n for n in members if n.endswith("checkpoints.csv"))[0]
    members[first] = _negative_csv(200_000)[: _negative_csv(200_000).rindex(b"\n") + 1]
    result = validate_zip(zip_bytes(members), load_policy(), name="neg.zip")
    rows = members[first].count(b"\n") - 1
    assert len(result.problems) == submission.MAX_LINES_PER_FILE + 1
    last = result.problems[-1]
    assert last.startswith(f"neg.zip: {first}: ")
    hidden = int(last.removeprefix(f"neg.zip: {first}: ").split()[0].replace(",", ""))
    per_row = len(submission.CHECKPOINT_COLUMNS) + 1  # each value negative, the step not whole
    assert hidden == rows * per_row - submission.MAX_LINES_PER_FILE


def _stored_zip(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as zf:
        for name, body in files.items():
            zf.writestr(name, body)
    return buffer.getvalue()


def test_a_directory_of_too_many_entries_is_refused_before_zipfile_parses_it(monkeypatch):
    data = _stored_zip({f"runs/d/c{i}/x.csv": b"" for i in range(6000)})
    parsed = []
    real = zipfile.ZipFile

    def counting(*args, **kwargs):
        parsed.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(safezip.zipfile, "ZipFile", counting)
    with pytest.raises(safezip.BundleError) as caught:
        safezip.read_members(data, "many.zip", "fl-submission")
    assert caught.value.code == "too-many-members"
    assert parsed == []  # refused from the end record and a structural count, no ZipInfo built
    result = validate_zip(data, load_policy(), name="many.zip")
    assert len(result.problems) == 1


def test_a_directory_lying_about_its_entry_count_is_still_counted():
    data = bytearray(_stored_zip({f"m{i}.csv": b"x" for i in range(40)}))
    end = data.rfind(b"PK\x05\x06")
    data[end + 8 : end + 12] = (1).to_bytes(2, "little") * 2  # declare one entry
    with pytest.raises(safezip.BundleError) as caught:
        safezip.read_members(bytes(data), "lie.zip", safezip.Limits(members=16))
    assert caught.value.code == "too-many-members"


def _shared_data_zip(copies: int, body: bytes) -> bytes:
    """A ZIP whose ``copies`` directory entries all point at one deflated member's bytes."""
    one = io.BytesIO()
    with zipfile.ZipFile(one, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("runs/d/c/a.csv", body)
    raw = one.getvalue()
    cd_at = raw.rfind(b"PK\x01\x02")
    end_at = raw.rfind(b"PK\x05\x06")
    entry = raw[cd_at:end_at]
    local = raw[:cd_at]
    entries = b""
    for i in range(copies):
        name = f"runs/d/c/{i:04d}.csv".encode()
        fixed = bytearray(entry[:46])
        fixed[28:30] = len(name).to_bytes(2, "little")
        entries += bytes(fixed) + name + entry[46 + 14 :]
    end = bytearray(raw[end_at:])
    end[8:10] = end[10:12] = copies.to_bytes(2, "little")
    end[12:16] = len(entries).to_bytes(4, "little")
    end[16:20] = len(local).to_bytes(4, "little")
    return local + entries + bytes(end)


def test_entries_sharing_compressed_data_are_refused_before_anything_is_inflated():
    body = np.random.default_rng(3).integers(0, 10, 400_000).astype(str).astype(object).sum()
    data = _shared_data_zip(50, body.encode())
    with pytest.raises(safezip.BundleError) as caught:
        safezip.read_members(data, "shared.zip", "fl-submission")
    assert caught.value.code == "overlapping-members"


# --- uploads: limited per client and at once, cost flat in what is stored, no lost upload --


@pytest.fixture()
def fl_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    from tests.fixtures.fl.store import fl_store as make

    return make(tmp_path, monkeypatch, ["A_cnn_FedAvg.zip", "A_cnn_Local-Only.zip"])


def _renamed(method: str, model: str = "cnn") -> bytes:
    members = _members()
    manifest = json.loads(members["manifest.json"]) | {"method": method, "model": model}
    members["manifest.json"] = json.dumps(manifest).encode()
    return zip_bytes(members)


def test_the_gate_admits_a_few_at_once_and_a_few_per_client():
    from analytics.core import gate as gate_mod

    gate = gate_mod.Gate("an upload", at_once=1, per_client=2, window_s=60)
    with gate.admit("web:a"):
        with pytest.raises(gate_mod.Busy) as busy:
            with gate.admit("web:b"):
                pass
        assert busy.value.fix == "try again in a minute"
    with gate.admit("web:a"):
        pass
    with pytest.raises(gate_mod.Busy):
        with gate.admit("web:a"):  # a third from one client within the window
            pass
    with gate.admit("web:b"):  # another client is not held up
        pass


def test_one_client_cannot_upload_without_end(fl_store):
    from analytics.fl import store

    answers = [
        store.receive(b"not a zip", "x.zip", load_policy(), "web:1.2.3.4")[1] for _ in range(12)
    ]
    assert all("not a readable ZIP" in a[0] or "not a ZIP" in a[0] for a in answers[:10])
    assert "uploads from you" in answers[10][0] and "try again in" in answers[10][0]
    assert (
        store.receive(b"not a zip", "x.zip", load_policy(), "web:5.6.7.8")[1][0] != answers[10][0]
    )


def test_checking_an_upload_reads_no_stored_upload(fl_store, monkeypatch):
    from analytics.fl import store

    for i in range(3):
        stored, problems = store.receive(_renamed(f"Mine{i}"), "u.zip", load_policy())
        assert stored and not problems
    from analytics.fl import cache

    read = []
    real = cache.validated
    monkeypatch.setattr(cache, "validated", lambda f, *a, **k: read.append(f) or real(f, *a, **k))
    stored, _ = store.receive(_renamed("Mine9"), "u.zip", load_policy())
    assert stored and not [f for f in read if f.parent == store.uploads_dir()]


def test_two_uploads_of_one_key_at_once_are_not_both_told_stored(fl_store, monkeypatch):
    from analytics.fl import store

    monkeypatch.setattr(store, "_taken", lambda sub: False)  # both passed the check together
    first = store.receive(_renamed("Same", "mlp"), "a.zip", load_policy())
    second = store.receive(_renamed("Same", "mlp"), "b.zip", load_policy())
    assert first[0] == "A_mlp_Same.zip" and not first[1]
    assert second[0] is None and "already stored" in second[1][0]


@pytest.mark.parametrize("method", ["centralized", "fedavg", "LOCAL_ONLY", "Fed Avg"])
def test_reference_method_names_are_refused_in_any_spelling(fl_store, method):
    from analytics.fl import store

    stored, problems = store.receive(_renamed(method, "mlp"), "u.zip", load_policy())
    assert stored is None and "reference methods" in problems[0]


def test_the_submit_page_draws_at_most_a_screenful(fl_store):
    from streamlit.testing.v1 import AppTest

    members = _members()
    for name in [n for n in members if n.endswith("checkpoints.csv")][:12]:
        members[name] = _negative_csv(4000)[: _negative_csv(4000).rindex(b"\n") + 1]
    at = AppTest.from_file(str(ROOT / "pages" / "fl" / "submit.py"), default_timeout=60).run()
    at.file_uploader[0].upload("neg.zip", zip_bytes(members), "application/zip").run()
    assert not at.exception and not at.success
    assert 20 < len(at.text) <= 30
    assert "more lines not shown" in at.caption[-1].value


# --- a catalog is one unit: a broken or mixed catalog never takes a page down ---------------


def _truncate(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2 + 7])  # cut inside a row, as a killed write leaves it


@pytest.fixture()
def broken_catalog(store_paths) -> Path:
    """The tiny catalog built into a snapshot, then its scores.csv cut in the middle of a row."""
    from analytics.core import snapshot
    from tests.fixtures.catalogs import make_catalog

    catalog = make_catalog(store_paths.root)
    shutil.copytree(paths.CATALOG_DIR / "fl", catalog / "fl")  # the FL pages' policy
    store_paths.serve_catalog()
    snapshot.build(catalog, store_paths.snapshots)
    _truncate(catalog / "scores.csv")
    return catalog


def _page_files() -> list[str]:
    from ui import navigation

    return [p.file for p in navigation.PAGES]


@pytest.mark.slow
def test_every_page_stays_up_on_the_last_good_snapshot_when_the_catalog_does_not_build(
    broken_catalog, monkeypatch
):
    """Every page runs; every page that serves the catalog's snapshot says in one line that
    an older one is served (the FL pages and the upload and maintainer pages read no snapshot)."""
    from streamlit.testing.v1 import AppTest

    import ui.data
    from tests.fixtures.apptest import fresh_caches

    served: list[str] = []
    real = ui.data.snapshot_version
    monkeypatch.setattr(ui.data, "snapshot_version", lambda: served.append("x") or real())
    down, silent, readers = [], [], 0
    for page in _page_files():
        fresh_caches()
        served.clear()
        at = AppTest.from_file(str(ROOT / page), default_timeout=120).run()
        if at.exception:
            down.append((page, at.exception[0].value[:200]))
        elif served:
            readers += 1
            notices = [w.value for w in at.warning if "catalog does not build" in w.value]
            if len(notices) != 1 or "scores.csv" not in notices[0]:
                silent.append(page)
    assert (down, silent) == ([], [])
    assert readers >= 11  # the LLM, calculator, home and vision pages


def test_snapshot_check_fails_naming_the_truncated_file_and_row(broken_catalog, capsys):
    from analytics.__main__ import main

    assert main(["snapshot", "check"]) == 1
    out = capsys.readouterr().out
    assert any(line.startswith(f"{broken_catalog / 'scores.csv'}:") for line in out.splitlines())


def test_a_half_renamed_generation_is_never_built(tmp_path):
    from analytics.core import snapshot
    from analytics.core.snapshot import generation
    from tests.fixtures.catalogs import make_catalog

    catalog = make_catalog(tmp_path)
    written = [catalog / "models.csv", catalog / "scores.csv"]
    generation.seal(catalog, written)
    assert snapshot.validate(catalog) == []
    models = (catalog / "models.csv").read_text()
    (catalog / "models.csv").write_text(models.replace("\n", "\r\n"))  # new bytes, still valid
    with pytest.raises(snapshot.CatalogError) as refused:
        snapshot.build(catalog, tmp_path / "snapshots")
    assert refused.value.where.endswith("models.csv")
    assert not (tmp_path / "snapshots").exists() or not any((tmp_path / "snapshots").iterdir())


def test_ingest_writes_the_generation_list_after_its_tables(tmp_path, monkeypatch):
    from analytics.core.snapshot import generation
    from analytics.llm.ingest import cli
    from analytics.llm.ingest.build import Catalog

    order = []
    real_seal = generation.seal
    monkeypatch.setattr(
        cli.atomic,
        "write_all",
        lambda fills: order.append("tables") or [fill(path) for path, fill in fills.items()],
    )
    monkeypatch.setattr(generation, "seal", lambda *a: order.append("seal") or real_seal(*a))
    cli.write_catalog(Catalog(tables={"gpus": [], "benchmarks": []}), tmp_path)
    assert order == ["tables", "seal"]
    assert generation.problems(tmp_path) == []
    (tmp_path / "gpus.csv").write_text("gpu_id\nother\n")
    assert [p.split(":")[0] for p in generation.problems(tmp_path)] == [str(tmp_path / "gpus.csv")]


# --- a vision run is one unit: record, tables and run manifest, or not served ---------------

VISION_VERSION = "test-round3-vision"


@pytest.fixture(scope="module")
def measured(tmp_path_factory) -> Path:
    """Two stored measurements of the busy-wait adapter (as `measure run` stores them)."""
    from measure.runner import RunRequest, run_measurement

    root = tmp_path_factory.mktemp("vision")
    for calls in (5, 6):
        run_measurement(
            RunRequest(
                adapter="tests/fixtures/measure/busy_adapter.py:BusyWait2ms",
                out=root / "runs",
                runs=1,
                warmup=0,
                calls=calls,
            )
        )
    return root


@pytest.fixture()
def runs_copy(measured, tmp_path, monkeypatch) -> Path:
    """A writable copy of the two runs, served as the app's runs and snapshot folders."""
    from analytics.core import db

    root = tmp_path / "store"
    shutil.copytree(measured, root)
    snapshot = root / "snapshots" / VISION_VERSION
    snapshot.mkdir(parents=True)
    (snapshot / "MANIFEST.json").write_text(json.dumps({"version": VISION_VERSION}))
    monkeypatch.setattr(paths, "SNAPSHOTS_DIR", root / "snapshots")
    monkeypatch.setattr(paths, "RUNS_DIR", root / "runs")
    monkeypatch.setattr(db, "ensure_snapshot", lambda *a, **k: VISION_VERSION)
    monkeypatch.setenv("MODELATLAS_INBOX_DIR", str(root / "inbox"))
    return root / "runs"


def _run_ids(runs: Path) -> list[str]:
    return sorted(p.stem for p in (runs / "records").glob("*.json"))


def _served(runs: Path) -> list[str]:
    import duckdb

    from analytics.core import db

    con = duckdb.connect(":memory:")
    db._add_run_views(con, runs)
    if not db.has_table(con, "vision_runs"):
        return []
    return sorted(con.execute("SELECT run_id FROM vision_runs").df()["run_id"])


def _measure(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "measure", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_run_cut_short_before_its_manifest_is_neither_served_nor_verified(runs_copy):
    from analytics.core import run_unit

    first, second = _run_ids(runs_copy)
    run_unit.manifest_path(runs_copy, first).unlink()  # killed after its renames, before sealing
    (runs_copy / "vision_calls" / f"{second}.parquet").unlink()  # killed between two renames
    assert _served(runs_copy) == []
    done = _measure("verify", "--allow-missing", str(runs_copy / "records" / f"{first}.json"))
    assert done.returncode == 1 and "run files" in done.stderr
    done = _measure("check", "--runs", str(runs_copy))
    assert done.returncode == 1
    assert first in done.stderr and f"vision_calls/{second}.parquet" in done.stderr


@pytest.mark.parametrize("table", ["vision_runs", "vision_calls", "vision_memory"])
def test_a_truncated_or_bit_flipped_table_is_skipped_and_named(runs_copy, table):
    first, second = _run_ids(runs_copy)
    path = runs_copy / table / f"{first}.parquet"
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x10
    path.write_bytes(bytes(data))
    other = runs_copy / table / f"{second}.parquet"
    other.write_bytes(other.read_bytes()[:100])
    assert _served(runs_copy) == []
    done = _measure("check", "--runs", str(runs_copy))
    assert done.returncode == 1
    assert f"{table}/{first}.parquet" in done.stderr and f"{table}/{second}.parquet" in done.stderr


def test_vision_pages_skip_and_name_a_damaged_run(runs_copy):
    from streamlit.testing.v1 import AppTest

    from tests.fixtures.apptest import fresh_caches

    first, _second = _run_ids(runs_copy)
    path = runs_copy / "vision_calls" / f"{first}.parquet"
    path.write_bytes(path.read_bytes()[:64])
    for page in ("pages/vision/leaderboard.py", "pages/vision/model.py"):
        fresh_caches()
        at = AppTest.from_file(str(ROOT / page), default_timeout=60).run()
        assert not at.exception, page
        assert any(first in w.value and "Skipped" in w.value for w in at.warning), page


def test_stale_temp_files_are_reported_and_removed_safely(runs_copy):
    import os
    import time

    from analytics.core import run_unit

    old = runs_copy / "vision_calls" / ".x.parquet.abc123.tmp"
    young = runs_copy / "vision_calls" / ".y.parquet.def456.tmp"
    for path in (old, young):
        path.write_bytes(b"partial")
    past = time.time() - run_unit.STALE_TEMP_S - 60
    os.utime(old, (past, past))
    done = _measure("check", "--runs", str(runs_copy))
    assert done.returncode == 1 and old.name in done.stderr and young.name not in done.stderr
    done = _measure("check", "--runs", str(runs_copy), "--clean")
    assert not old.exists() and young.exists() and done.returncode == 0


# --- logs: the audit log's first write recovers; the FL review record is hash-chained ------


def test_the_audit_logs_first_write_cut_between_head_and_anchor_recovers_by_itself(tmp_path):
    from analytics.core import hashlog
    from measure.community import audit

    log = tmp_path / "audit.jsonl"
    hashlog._write_anchors(log, 0, audit.GENESIS)  # the first write's head and anchor
    audit.anchor_path(log).unlink()  # killed after the head's rename, before the anchor's
    assert audit.verify(log).lines == 0
    audit.append(log, "alice", "accept", "b1", "ok")
    assert audit.verify(log).lines == 1 and audit.anchor_path(log).exists()
    audit.anchor_path(log).unlink()  # once a line is chained, a missing anchor is damage
    with pytest.raises(audit.AuditError):
        audit.verify(log)


def test_an_edited_fl_review_record_ranks_no_upload(fl_store):
    from analytics.fl import review, store

    stored, _ = store.receive(_renamed("Mine"), "u.zip", load_policy())
    review.decide(stored, "reject", "alice", reason="self-reported figures do not hold")
    log = review.log_path()
    log.write_text(log.read_text().replace('"rejected"', '"accepted"'))  # one sed
    found, problems = review.states()
    assert found[stored].status == review.UNVERIFIED
    assert problems and "reviews.jsonl" in problems[0]
    with pytest.raises(review.ReviewError):
        review.decide(stored, "accept", "bob")


# --- sign-in: equal work for every name, the client from a trusted header only, no lockout --


def test_every_sign_in_costs_one_scrypt_per_configured_cost_whatever_the_name(monkeypatch):
    from measure.community import auth

    cheap = auth.hash_password("right one")
    n, r, p = auth.SCRYPT_N * 2, auth.SCRYPT_R, auth.SCRYPT_P
    salt = b"0123456789abcdef"
    dear_key = auth._scrypt("other one", salt, n, r, p)
    dear = f"{auth.SCHEME}${n}${r}${p}${salt.hex()}${dear_key.hex()}"
    maintainers = {"alice": cheap, "bob": dear}
    for cost in ((auth.SCRYPT_N, r, p), (n, r, p)):
        auth._dummy_hash(cost)
    work = []
    real = auth._scrypt
    monkeypatch.setattr(auth, "_scrypt", lambda *a: work.append(a[2:]) or real(*a))
    for name in ("alice", "bob", "nobody"):
        work.clear()
        with pytest.raises(auth.AuthError):
            auth.authenticate(name, "wrong", maintainers)
        assert sorted(work) == sorted([(auth.SCRYPT_N, r, p), (n, r, p)]), name
    assert auth.authenticate("bob", "other one", maintainers).name == "bob"


def test_the_client_is_read_from_a_header_only_when_one_is_configured():
    from ui.community import client_from

    headers = {"X-Forwarded-For": "203.0.113.9, 198.51.100.7", "X-Real-IP": "198.51.100.8"}
    assert client_from("127.0.0.1", headers, None) == "web:127.0.0.1"
    assert client_from("127.0.0.1", headers, "x-forwarded-for") == "web:198.51.100.7"
    assert client_from("127.0.0.1", headers, "X-Real-IP") == "web:198.51.100.8"
    assert client_from("127.0.0.1", {}, "X-Real-IP") == "web:127.0.0.1"


def test_no_number_of_guesses_locks_out_every_maintainer(tmp_path):
    from measure.community import auth

    throttle = auth.Throttle(tmp_path / auth.THROTTLE_FILE)
    names = ["alice", "bob", "carol"]
    homes = {name: f"web:198.51.100.{i}" for i, name in enumerate(names)}
    for name in names:  # each maintainer has signed in from their own address before
        throttle.finish(throttle.begin(name, homes[name]), ok=True)
    for i in range(60):  # guesses for every name, from many addresses (or one proxy)
        for name in names:
            try:
                throttle.finish(throttle.begin(name, f"web:203.0.113.{i % 7}"), ok=False)
            except auth.AuthError:
                pass
    for name in names:  # every maintainer still signs in where they always do
        throttle.finish(throttle.begin(name, homes[name]), ok=True)
    with pytest.raises(auth.AuthError):  # while a new address shares the name's count
        throttle.begin("alice", "web:192.0.2.1")


# --- the smaller items: display names, devices and FIFOs, /dev/null as an inbox -------------


@pytest.mark.parametrize(
    "name", ["NVIDIA H100\u202e001A", "RTX\u200b4090", "A100\u2028x", "L4\x7f"]
)
def test_a_gpu_name_with_invisible_or_reordering_characters_is_refused(name):
    from analytics.core import run_schema

    assert not run_schema.KINDS["text"](name)
    assert run_schema.KINDS["text"]("NVIDIA H100 80GB HBM3")


@pytest.mark.parametrize("kind", ["device", "fifo", "folder"])
def test_inbox_add_refuses_anything_but_a_regular_file_in_one_line(tmp_path, kind):
    import os

    if kind == "device":
        path = Path("/dev/zero")
    elif kind == "fifo":
        path = tmp_path / "bundle.zip"
        os.mkfifo(path)
    else:
        path = tmp_path
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "measure",
            "inbox",
            "--inbox-dir",
            str(tmp_path / "in"),
            "add",
            str(path),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "regular file" in done.stderr


def test_audit_verify_refuses_a_non_folder_inbox(tmp_path):
    done = _measure("audit", "verify", "--inbox", "/dev/null")
    assert done.returncode == 1 and "/dev/null" not in done.stdout
    assert "is not a folder" in done.stderr
    trail = paths.RUNS_DIR / "review_trail" / "audit.jsonl"  # checked too; its line may say so
    assert all(x.startswith(f"{trail}: ") for x in done.stdout.splitlines() if "intact" in x)


def test_elo_refuses_a_fifo_in_one_line(tmp_path):
    import os

    fifo = tmp_path / "scores.csv"
    os.mkfifo(fifo)
    done = subprocess.run(
        [sys.executable, "-m", "analytics", "elo", str(fifo)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "regular file" in done.stderr


def _ranked_page():
    from streamlit.testing.v1 import AppTest

    from tests.fixtures.apptest import fresh_caches

    fresh_caches()
    return AppTest.from_file(str(ROOT / "pages" / "fl" / "ranked.py"), default_timeout=120).run()


@pytest.mark.parametrize("damage", ["flipped", "deleted"])
def test_a_damaged_or_missing_reference_is_shown_as_such_on_the_ranked_page(fl_store, damage):
    from analytics.fl import store

    target = store.reference_dir() / "A_cnn_FedAvg.zip"
    if damage == "flipped":
        data = bytearray(target.read_bytes())
        data[len(data) // 2] ^= 0x01
        target.write_bytes(bytes(data))
    else:
        target.unlink()
    at = _ranked_page()
    assert not at.exception
    errors = [e.value for e in at.error]
    assert any("A_cnn_FedAvg.zip" in e and ("damaged" in e or "missing" in e) for e in errors)
    assert "FedAvg" not in at.dataframe[0].value["method"].tolist()


def test_the_reference_list_names_every_committed_reference_zip():
    from analytics.fl import store

    assert store.reference_damage() == ([], set())


def test_vision_runs_rows_are_written_and_read_through_the_declared_schema():
    import pandas as pd

    from analytics.core import run_schema
    from analytics.core.run_schema import RecordError

    records = sorted((paths.RUNS_DIR / "records").glob("*.json"))
    assert records
    for path in records:  # every committed run's table holds exactly the declared columns
        stored = pd.read_parquet(paths.RUNS_DIR / "vision_runs" / f"{path.stem}.parquet")
        assert tuple(stored.columns) == run_schema.VISION_RUNS_COLUMNS
    from measure import record as rec

    row = rec.run_row(json.loads(records[0].read_text()))
    with pytest.raises(RecordError) as undeclared:
        run_schema.vision_runs_row({**row, "shown_on_page": 1}, "r")
    assert "shown_on_page" in undeclared.value.what
    with pytest.raises(RecordError):
        run_schema.vision_runs_row({**row, "calls": "100"}, "r")
    source = (ROOT / "analytics" / "vision" / "runs.py").read_text()
    assert "SELECT * FROM vision_runs" not in source
