"""Security probes of the store: damaged snapshots (check, refuse, rebuild, fall back), strict
catalog validation (categories, ids, invisible characters, JSON depth, file size), temp folders
left by killed builds, snapshot file modes, and fuzzing of the catalog parsers."""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import stat
import subprocess
import tempfile
import time
import tracemalloc
from pathlib import Path

import pytest
import streamlit
from hypothesis import given, settings
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

from analytics.core import db, paths, schema, snapshot
from analytics.core.snapshot import cli, parse, verify
from tests.fixtures.catalogs import edit, read_rows, write_catalog

ROOT = paths.REPO_ROOT
LEGACY = "v07f40d9ba5"
"""A committed snapshot built before file hashes were recorded (its catalog is in git)."""


def small_catalog(root: Path) -> Path:
    """The small fixture catalog, its benchmark categories set to declared ones."""
    write_catalog(root)
    edit(root / "benchmarks.csv", 2, category="knowledge")
    edit(root / "benchmarks.csv", 3, category="chat-preference")
    return root


def edit_quoted(path: Path, line: int, **cells: str) -> None:
    """``edit`` writing every cell quoted (so a cell may hold a carriage return)."""
    header, rows = read_rows(path)
    rows[line - 2].update(cells)
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f, lineterminator="\n", quoting=csv.QUOTE_ALL)
        writer.writerows([header, *[[row[c] for c in header] for row in rows]])


def flip_byte(path: Path, offset: int | None = None) -> None:
    """Corrupt one byte of ``path`` (the middle one by default), keeping its size."""
    data = bytearray(path.read_bytes())
    pos = len(data) // 2 if offset is None else offset
    data[pos] ^= 0xFF
    path.write_bytes(bytes(data))


def set_built_at(folder: Path, when: str) -> None:
    """Rewrite a manifest's build time (not hashed) so the listing order is known."""
    manifest = json.loads((folder / "MANIFEST.json").read_text())
    manifest["built_at"] = when
    (folder / "MANIFEST.json").write_text(json.dumps(manifest))


@pytest.fixture()
def catalog(tmp_path: Path) -> Path:
    return small_catalog(tmp_path / "catalog")


@pytest.fixture()
def store(tmp_path: Path) -> dict[str, Path | str]:
    """Two older snapshots and the current one, built from versions of the small catalog."""
    current = small_catalog(tmp_path / "catalog")
    snaps = tmp_path / "snapshots"
    found: dict[str, Path | str] = {"catalog": current, "snapshots": snaps}
    for n, when in ((1, "2020-01-01T00:00:00Z"), (2, "2021-01-01T00:00:00Z")):
        older = tmp_path / f"catalog-{n}"
        shutil.copytree(current, older)
        edit(older / "models.csv", 2, display_name=f"Renamed {n}")
        built = snapshot.build(older, snaps)
        set_built_at(built.path, when)
        found[f"old{n}"] = built.version
    found["current"] = snapshot.build(current, snaps).version
    return found


def _check(capsys: pytest.CaptureFixture, *args: str) -> tuple[int, list[str]]:
    rc = cli.main(["check", *args])
    return rc, capsys.readouterr().out.splitlines()


# --- 9: damaged snapshots -------------------------------------------------------------------


def test_check_names_the_damaged_parquet_file(store: dict, capsys: pytest.CaptureFixture) -> None:
    snaps, current = store["snapshots"], store["current"]
    args = ("--snapshots", str(snaps), "--catalog", str(store["catalog"]))
    rc, out = _check(capsys, *args)
    assert rc == 0 and all("intact (checked against the manifest)" in line for line in out)
    flip_byte(snaps / current / "scores.parquet")
    rc, out = _check(capsys, *args)
    damaged = [line for line in out if "; fix: " in line]
    assert rc == 1 and len(damaged) == 1
    assert f"{current}/scores.parquet: is damaged" in damaged[0]
    assert "snapshot check --repair" in damaged[0]
    rc, out = _check(capsys, *args, store["old1"])  # only the versions named
    assert rc == 0 and len(out) == 1 and out[0].startswith(store["old1"])


def test_check_reports_every_damaged_missing_and_extra_file(
    store: dict, capsys: pytest.CaptureFixture
) -> None:
    folder = store["snapshots"] / store["current"]
    flip_byte(folder / "models.parquet", offset=0)
    (folder / "gpus.parquet").unlink()
    (folder / "injected.parquet").write_bytes((folder / "benchmarks.parquet").read_bytes())
    rc, out = _check(capsys, "--snapshots", str(store["snapshots"]), store["current"])
    assert rc == 1 and len(out) == 3
    assert [line.split(": ")[0].rsplit("/", 1)[1] for line in out] == [
        "gpus.parquet",
        "models.parquet",
        "injected.parquet",
    ]


def test_check_repair_rebuilds_the_same_bytes(store: dict, capsys: pytest.CaptureFixture) -> None:
    folder = store["snapshots"] / store["current"]
    before = (folder / "scores.parquet").read_bytes()
    flip_byte(folder / "scores.parquet")
    args = ("--snapshots", str(store["snapshots"]), "--catalog", str(store["catalog"]))
    rc, out = _check(capsys, *args, "--repair")
    assert rc == 0 and f"{store['current']}: rebuilt from" in "\n".join(out)
    assert (folder / "scores.parquet").read_bytes() == before
    assert not list(store["snapshots"].glob(".tmp-*"))


def _full_git_history() -> bool:
    """Whether this checkout is a git clone with its whole history (not a ZIP download or a
    shallow clone, which hold no older data/catalog to rebuild a snapshot from)."""
    try:
        done = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--is-shallow-repository"],
            capture_output=True, text=True, check=False,
        )
    except OSError:  # no git installed
        return False
    return done.returncode == 0 and done.stdout.strip() == "false"


@pytest.mark.skipif(not _full_git_history(), reason="needs a git clone with its full history")
def test_check_of_a_snapshot_without_hashes_rebuilds_it_from_git(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    legacy = paths.REPO_ROOT / "data" / "snapshots" / LEGACY
    assert (legacy / "MANIFEST.json").is_file(), (
        f"data/snapshots/{LEGACY}: committed snapshot is missing; fix: restore it from git"
    )
    snaps = tmp_path / "snapshots"
    shutil.copytree(paths.REPO_ROOT / "data" / "snapshots" / LEGACY, snaps / LEGACY)
    assert "outputs" not in snapshot.read_manifest(snaps / LEGACY)
    missing = tmp_path / "no-catalog"
    rc, out = _check(capsys, "--snapshots", str(snaps), "--catalog", str(missing))
    assert rc == 0 and len(out) == 1
    assert out[0].startswith(f"{LEGACY}: intact (checked against a rebuild of data/catalog at git")
    flip_byte(snaps / LEGACY / "models.parquet")
    rc, out = _check(capsys, "--snapshots", str(snaps), "--catalog", str(missing))
    assert rc == 1 and len(out) == 1 and f"{LEGACY}/models.parquet: is damaged" in out[0]


def test_check_of_a_hand_made_snapshot_says_no_hashes_recorded(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    snaps = tmp_path / "snapshots"
    built = snapshot.build(small_catalog(tmp_path / "catalog"), tmp_path / "built")
    shutil.copytree(built.path, snaps / "vhandmade")
    (snaps / "vhandmade" / "MANIFEST.json").write_text('{"version": "vhandmade"}')
    rc, out = _check(capsys, "--snapshots", str(snaps), "--catalog", str(tmp_path / "none"))
    assert rc == 0 and len(out) == 1 and "no hashes recorded" in out[0]
    data = (snaps / "vhandmade" / "scores.parquet").read_bytes()
    (snaps / "vhandmade" / "scores.parquet").write_bytes(data[: len(data) - 9])
    rc, out = _check(capsys, "--snapshots", str(snaps), "--catalog", str(tmp_path / "none"))
    assert rc == 1 and len(out) == 1
    assert "scores.parquet: is damaged: it has no Parquet magic bytes" in out[0]


def test_the_git_history_is_hashed_once_per_process(
    tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A snapshot no commit of ``data/catalog`` matches walks the history; checking it again (or
    another such snapshot) extracts no commit again: a commit's catalog never changes."""
    from analytics.core.snapshot import verify

    extracted: list[str] = []
    real = verify._git_extract

    def counting(repo: Path, commit: str, into: Path) -> Path | None:
        extracted.append(commit)
        return real(repo, commit, into)

    newest = verify._git_catalogs(paths.REPO_ROOT)[:3]  # enough to count, cheap to hash
    monkeypatch.setattr(verify, "_git_catalogs", lambda repo: newest)
    monkeypatch.setattr(verify, "_git_extract", counting)
    monkeypatch.setattr(verify, "_HISTORY", {})
    snaps = tmp_path / "snapshots"
    built = snapshot.build(small_catalog(tmp_path / "catalog"), tmp_path / "built")
    shutil.copytree(built.path, snaps / "vhandmade")
    (snaps / "vhandmade" / "MANIFEST.json").write_text('{"version": "vhandmade"}')
    rc, out = _check(capsys, "--snapshots", str(snaps), "--catalog", str(tmp_path / "none"))
    assert rc == 0 and "no hashes recorded" in out[0]
    walked = len(extracted)
    assert sorted(extracted) == sorted(newest) and len(newest) == 3
    rc, again = _check(capsys, "--snapshots", str(snaps), "--catalog", str(tmp_path / "none"))
    assert (rc, again) == (0, out) and len(extracted) == walked


def test_connect_refuses_a_damaged_version(store: dict) -> None:
    snaps, current = store["snapshots"], store["current"]
    flip_byte(snaps / current / "scores.parquet")
    with pytest.raises(snapshot.DamagedSnapshot) as err:
        db.connect(current, snapshots_dir=snaps, catalog_dir=store["catalog"])
    assert "\n" not in str(err.value) and f"{current}/scores.parquet" in str(err.value)
    assert err.value.fix and isinstance(err.value, RuntimeError)  # a Problem, caught as before


def test_serving_falls_back_to_the_newest_intact_version(store: dict) -> None:
    snaps, catalog, current = store["snapshots"], store["catalog"], store["current"]
    flip_byte(snaps / current / "scores.parquet")
    served = db.serving_version(catalog, snaps, repair=False)
    assert served.version == store["old2"]  # newer than old1
    assert "\n" not in served.warning and "scores.parquet" in served.warning
    assert f"serving the older snapshot {store['old2']} instead; fix: " in served.warning
    flip_byte(snaps / store["old2"] / "models.parquet")
    assert db.serving_version(catalog, snaps, repair=False).version == store["old1"]


def test_connect_falls_back_when_the_rebuild_fails(
    store: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    snaps, catalog = store["snapshots"], store["catalog"]
    flip_byte(snaps / store["current"] / "scores.parquet")
    monkeypatch.setattr(verify, "repair", _failing_repair)
    with pytest.warns(RuntimeWarning, match="serving the older snapshot"):
        con = db.connect(snapshots_dir=snaps, catalog_dir=catalog)
    names = con.execute("SELECT display_name FROM models LIMIT 1").fetchall()
    assert names == [("Renamed 2",)]


def test_connect_rebuilds_a_damaged_current_version(store: dict) -> None:
    snaps, catalog, current = store["snapshots"], store["catalog"], store["current"]
    before = (snaps / current / "scores.parquet").read_bytes()
    flip_byte(snaps / current / "scores.parquet")
    with pytest.warns(RuntimeWarning, match=f"snapshot {current} was rebuilt"):
        con = db.connect(snapshots_dir=snaps, catalog_dir=catalog)
    assert con.execute("SELECT count(*) FROM scores").fetchone()[0] > 0
    assert (snaps / current / "scores.parquet").read_bytes() == before


def _failing_repair(*args: object, **kwargs: object) -> str:
    raise OSError("read-only file system")


@pytest.fixture()
def app_store(store: dict, monkeypatch: pytest.MonkeyPatch) -> dict:
    """The app pointed at the damaged store (current version's scores.parquet corrupted)."""
    monkeypatch.setattr(paths, "CATALOG_DIR", store["catalog"])
    monkeypatch.setattr(paths, "SNAPSHOTS_DIR", store["snapshots"])
    monkeypatch.setattr(paths, "RUNS_DIR", store["snapshots"].parent / "runs")
    flip_byte(store["snapshots"] / store["current"] / "scores.parquet")
    streamlit.cache_data.clear()
    streamlit.cache_resource.clear()
    return store


def _run_home() -> AppTest:
    return AppTest.from_file(str(ROOT / "pages" / "overview" / "home.py"), default_timeout=60).run()


def test_home_on_a_damaged_store_warns_and_serves_the_older_snapshot(
    app_store: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(verify, "repair", _failing_repair)
    at = _run_home()
    assert not at.exception and not at.error
    assert len(at.warning) == 1 and "\n" not in at.warning[0].value
    assert "scores.parquet" in at.warning[0].value
    assert f"serving the older snapshot {app_store['old2']}" in at.warning[0].value
    assert any(app_store["old2"] in c.value for c in at.caption)
    assert at.metric and len(at.get("plotly_chart")) == 2


def test_home_on_a_damaged_store_rebuilds_the_current_snapshot(app_store: dict) -> None:
    at = _run_home()
    assert not at.exception and not at.error
    assert len(at.warning) == 1 and f"snapshot {app_store['current']} was rebuilt" in (
        at.warning[0].value
    )
    assert any(app_store["current"] in c.value for c in at.caption)
    assert at.metric and len(at.get("plotly_chart")) == 2


def test_a_build_records_output_hashes_without_changing_the_version(catalog: Path, tmp_path):
    version = snapshot.catalog_version(catalog)
    built = snapshot.build(catalog, tmp_path / "snaps")
    manifest = snapshot.read_manifest(built.path)
    assert built.version == version and snapshot.BUILDER_FORMAT == 1
    assert manifest["outputs"] == snapshot.manifest.output_hashes(built.path)
    assert set(manifest["outputs"]) >= {"models.parquet", "scores.parquet", "extra/notes.json"}


def test_a_broken_manifest_is_one_line(store: dict, capsys: pytest.CaptureFixture) -> None:
    folder = store["snapshots"] / store["current"]
    (folder / "MANIFEST.json").write_text("{not json")
    assert store["current"] not in snapshot.list_versions(store["snapshots"])
    assert cli.main(["build", "--catalog", str(store["catalog"]),
                     "--snapshots", str(store["snapshots"])]) == 1
    err = capsys.readouterr().err.splitlines()
    assert "MANIFEST.json: does not parse as a snapshot manifest" in err[0]


# --- 11: killed builds and file modes ------------------------------------------------------


def test_stale_temp_folders_are_reported_and_cleaned(
    catalog: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    snaps = tmp_path / "snapshots"
    stale, fresh = snaps / ".tmp-v0123456789-killed", snaps / ".tmp-v0123456789-running"
    for folder in (stale, fresh):
        folder.mkdir(parents=True)
        (folder / "models.parquet").write_bytes(b"partial")
    hour_ago = time.time() - 3600
    os.utime(stale, (hour_ago, hour_ago))
    rc, out = _check(capsys, "--snapshots", str(snaps))
    assert rc == 1 and len(out) == 1 and ".tmp-v0123456789-killed: temporary folder" in out[0]
    snapshot.build(catalog, snaps)
    assert not stale.exists() and fresh.exists()


def test_snapshot_folders_and_files_are_world_readable(catalog: Path, tmp_path: Path) -> None:
    built = snapshot.build(catalog, tmp_path / "snaps")
    modes = {
        p.relative_to(built.path).as_posix(): stat.S_IMODE(p.stat().st_mode)
        for p in [built.path, *built.path.rglob("*")]
    }
    assert modes.pop(".") == 0o755 and modes.pop("extra") == 0o755
    assert set(modes.values()) == {0o644}


# --- 11: strict catalog validation ---------------------------------------------------------


def _problems(catalog: Path) -> list[str]:
    found = snapshot.validate(catalog)
    assert all("\n" not in line and "\r" not in line and "; fix: " in line for line in found)
    return found


def test_categories_are_a_declared_table(catalog: Path) -> None:
    assert len(schema.CATEGORIES) == 12 and len(set(schema.CATEGORIES)) == 12
    edit(catalog / "benchmarks.csv", 3, category="chat-prefrence")
    found = _problems(catalog)
    assert len(found) == 1 and found[0].startswith(f"{catalog}/benchmarks.csv:3: category ")
    assert "'chat-prefrence' is not one of: knowledge," in found[0]


def test_committed_catalog_categories_and_ids_are_declared() -> None:
    tables, problems = snapshot.load_catalog(paths.CATALOG_DIR)
    assert problems == []
    used = {row["category"] for row in tables["benchmarks"].rows}
    assert used == set(schema.CATEGORIES)


@pytest.mark.parametrize(
    "bad_id",
    [
        "alpha\n7b",
        "alpha-7b\r",
        "alpha\x07-7b",
        "<script>alert(1)</script>",
        "alpha\u200b-7b",  # zero-width space
        "\u0430lpha-7b",  # Cyrillic a
        "alpha\u20117b",  # non-breaking hyphen
        "Alpha-7B",
        "-alpha",
        "a" * 129,
    ],
)
def test_model_ids_must_match_the_declared_pattern(catalog: Path, bad_id: str) -> None:
    edit_quoted(catalog / "models.csv", 4, model_id=bad_id, checkpoint_id="gamma-pro")
    edit_quoted(catalog / "scores.csv", 5, model_id=bad_id)
    found = _problems(catalog)
    mine = [line for line in found if "is not a valid id" in line]
    assert {line.split(": ")[0].rsplit("/", 1)[1] for line in mine} == {
        "models.csv:4",
        "scores.csv:5",
    }
    assert all(repr(bad_id)[:20] in line for line in mine)


@pytest.mark.parametrize(
    ("name", "char"),
    [
        ("Alpha\u202e7B", "U+202E"),  # right-to-left override
        ("Alpha\u200d7B", "U+200D"),  # zero-width joiner
        ("Alpha\x1b[31m7B", "U+001B"),  # terminal escape
        ("Alpha\n7B", "U+000A"),
        ("\ufeffAlpha 7B", "U+FEFF"),
    ],
)
def test_display_names_reject_invisible_and_control_characters(
    catalog: Path, name: str, char: str
) -> None:
    edit_quoted(catalog / "models.csv", 2, display_name=name)
    found = _problems(catalog)
    assert len(found) == 1 and found[0].startswith(f"{catalog}/models.csv:2: display_name ")
    assert f"invisible or control character {char}" in found[0]


def test_unicode_display_names_are_allowed(catalog: Path) -> None:
    edit(catalog / "models.csv", 2, display_name="Qwen2.5 – Ünïcødé 模型 (ﬁne)")
    assert _problems(catalog) == []


def test_deeply_nested_json_is_one_line(catalog: Path) -> None:
    (catalog / "extra" / "notes.json").write_text("[" * 200_000 + "]" * 200_000)
    found = _problems(catalog)
    assert found == [f"{catalog}/extra/notes.json: JSON nests deeper than 32 levels; "
                     "fix: flatten the structure"]


def test_json_with_a_huge_integer_is_one_line(catalog: Path) -> None:
    (catalog / "extra" / "notes.json").write_text('{"n": ' + "9" * 5000 + "}")
    found = _problems(catalog)
    assert len(found) == 1 and "extra/notes.json: invalid JSON" in found[0]


def test_oversized_files_are_refused_unread(catalog: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parse, "MAX_FILE_BYTES", 2048)
    monkeypatch.setattr(parse, "MAX_JSON_BYTES", 16)
    with (catalog / "extra" / "sample.csv").open("a") as f:
        f.write("lora,2,x\n" * 400)
    found = _problems(catalog)
    assert len(found) == 2
    assert "extra/notes.json: file is 38 bytes, above the limit of 16; fix: " in found[0]
    assert "extra/sample.csv: file is 3,640 bytes, above the limit of 2,048; fix: " in found[1]


def test_integers_beyond_64_bits_are_one_line_not_a_crash(catalog: Path, tmp_path: Path):
    edit(catalog / "models.csv", 2, n_layers="9" * 30)
    found = _problems(catalog)
    assert len(found) == 1 and "n_layers '999" in found[0]
    assert "is outside the 64-bit integer range" in found[0]


# --- fuzzing the catalog parsers -----------------------------------------------------------

FUZZ_TARGETS = ("models.csv", "benchmarks.csv", "scores.csv", "extra/sample.csv")
MAX_INPUT = 4096
MEMORY_BOUND = 64 * 2**20


def _fuzz_one(target: str, data: bytes | None = None, append: str = "") -> None:
    """Write ``data`` over (or append ``append`` to) one file of a fresh small catalog; validate
    and build it: only one-line problems or ``CatalogError``, within the memory bound."""
    with tempfile.TemporaryDirectory() as tmp:
        catalog = small_catalog(Path(tmp) / "catalog")
        if data is not None:
            (catalog / target).write_bytes(data[:MAX_INPUT])
        with (catalog / target).open("a", encoding="utf-8", errors="surrogatepass") as f:
            f.write(append[:MAX_INPUT])
        tracemalloc.start()
        try:
            found = snapshot.validate(catalog)
            try:
                snapshot.build(catalog, Path(tmp) / "snapshots")
            except snapshot.CatalogError as exc:
                assert exc.problems
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert all(isinstance(line, str) and line.isprintable() for line in found)
    assert all("; fix: " in line for line in found)
    assert peak < MEMORY_BOUND


@settings(max_examples=40)
@given(st.sampled_from((*FUZZ_TARGETS, "extra/notes.json")), st.binary(max_size=MAX_INPUT))
def test_fuzz_random_bytes(target: str, data: bytes) -> None:
    _fuzz_one(target, data)


_cells = st.one_of(
    st.text(max_size=12),
    st.sampled_from(["", "true", "1e999", "-0", "2024-02-30", "9" * 25, "nan", "https://x.y/"]),
    st.sampled_from(["alpha-7b", "mmlu", "arena", "rtx-4090", "independent", "knowledge"]),
    st.text(alphabet="\"',;\n\r\t\x00\u200b\u202e\\", max_size=6),
)


def _width(target: str) -> int:
    return len(schema.TABLES.get(target.removesuffix(".csv"), "abc"))


@settings(max_examples=60)
@given(st.data())
def test_fuzz_structured_csv(data: st.DataObject) -> None:
    target = data.draw(st.sampled_from(FUZZ_TARGETS))
    width = _width(target)
    row = st.lists(_cells, min_size=width, max_size=width) | st.lists(_cells, max_size=width + 2)
    rows = data.draw(st.lists(row, min_size=1, max_size=8))
    text = io.StringIO()
    csv.writer(text, lineterminator="\n").writerows(rows)
    _fuzz_one(target, append=text.getvalue())


_json = st.recursive(
    st.none() | st.booleans() | st.floats() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=30,
)


@settings(max_examples=30)
@given(_json, st.sampled_from([0, 1, 31, 33, 999, 1500, 4000]), st.sampled_from(["[", '{"a":']))
def test_fuzz_structured_json(value: object, depth: int, opener: str) -> None:
    text = opener * depth + json.dumps(value)
    _fuzz_one("extra/notes.json", text.encode("utf-8", "surrogatepass"))


def test_check_names_unknown_versions_and_refuses_paths(
    store: dict, capsys: pytest.CaptureFixture
) -> None:
    rc, out = _check(capsys, "--snapshots", str(store["snapshots"]), "--repair", "v0", "../catalog")
    assert rc == 1 and len(out) == 2
    assert all(line.endswith("no such snapshot; fix: run `python -m analytics snapshot list` "
                             "for the built versions") for line in out)


def test_a_current_folder_without_manifest_is_rebuilt(store: dict) -> None:
    folder = store["snapshots"] / store["current"]
    (folder / "MANIFEST.json").unlink()
    assert db.ensure_snapshot(store["catalog"], store["snapshots"]) == store["current"]
    assert verify.check_snapshot(folder).ok and not list(store["snapshots"].glob(".tmp-*"))


def test_home_with_no_intact_snapshot_is_one_line_error(
    app_store: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(verify, "repair", _failing_repair)
    for old in ("old1", "old2"):
        flip_byte(app_store["snapshots"] / app_store[old] / "scores.parquet")
    at = _run_home()
    assert not at.exception and len(at.error) == 1 and "\n" not in at.error[0].value
    assert "scores.parquet: is damaged" in at.error[0].value and not at.metric
