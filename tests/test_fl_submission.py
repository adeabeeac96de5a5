"""Submission ZIP validation: a valid layout is accepted, each malformed ZIP rejected per line."""

from __future__ import annotations

import io
import json
import stat
import zipfile

import pytest

from analytics.fl.submission import (
    Submission,
    submission_files,
    validate_zip,
    zip_bytes,
)
from tests.fixtures.fl.builders import VERSION, consistent_run, policy

POLICY = policy()


def _files(protocol: str = "A", method: str = "Mine", runs=None) -> dict[str, bytes]:
    runs = runs if runs is not None else {("d1", "nominal"): consistent_run()}
    return submission_files(Submission(protocol, "m", method, VERSION, 7, runs))


def _problems(files: dict[str, bytes]) -> list[str]:
    result = validate_zip(zip_bytes(files), POLICY, name="s.zip")
    assert result.submission is None
    assert result.problems
    for line in result.problems:
        assert line.startswith("s.zip") and "; fix: " in line and "\n" not in line
    return result.problems


def test_valid_zip_round_trips():
    result = validate_zip(zip_bytes(_files()), POLICY, name="s.zip")
    assert result.ok, result.problems
    run = result.submission.runs[("d1", "nominal")]
    assert run.checkpoints["accuracy"].tolist() == [0.5, 0.8]
    assert result.submission.seed == 7


def test_status_run_is_accepted_and_missing_folder_is_a_missing_result():
    files = _files(runs={("d1", "nominal"): consistent_run()})
    files = {k: v for k, v in files.items() if not k.startswith("runs/")}
    files["runs/d1/nominal/status.json"] = b'{"status": "oom"}'
    result = validate_zip(zip_bytes(files), POLICY)
    assert result.ok and result.submission.runs[("d1", "nominal")].status == "oom"
    empty = {k: v for k, v in files.items() if not k.startswith("runs/")}
    assert validate_zip(zip_bytes(empty), POLICY).submission.runs == {}


def test_bad_status_value():
    files = {k: v for k, v in _files().items() if not k.startswith("runs/")}
    files["runs/d1/nominal/status.json"] = b'{"status": "crashed"}'
    (line,) = _problems(files)
    assert "status 'crashed'" in line


def _edit(name: str, change) -> dict[str, bytes]:
    files = _files()
    key = f"runs/d1/nominal/{name}"
    files[key] = change(files[key].decode()).encode()
    return files


def test_bad_csv():
    files = _edit("checkpoints.csv", lambda t: t + '3,"0.9,0.1\n')
    assert any("checkpoints.csv" in p for p in _problems(files))


def test_missing_columns():
    (line,) = _problems(_edit("checkpoints.csv", lambda t: t.replace("loss", "lost", 1)))
    assert "missing columns ['loss']" in line and "checkpoints.csv" in line


def test_non_monotone_steps():
    def swap(text: str) -> str:
        head, a, b = text.strip().split("\n")
        return "\n".join([head, b, a]) + "\n"

    problems = _problems(_edit("checkpoints.csv", swap))
    assert any("row 3: steps not strictly increasing" in p for p in problems)


def test_cost_that_does_not_recompute():
    problems = _problems(_edit("checkpoints.csv", lambda t: t.replace("8.0", "7.5")))
    assert any("does not recompute" in p and "time_s 7.5" in p for p in problems)


def test_non_numeric_and_out_of_range_values():
    problems = _problems(_edit("checkpoints.csv", lambda t: t.replace("0.8,", "1.8,", 1)))
    assert any("accuracy 1.8" in p for p in problems)
    problems = _problems(
        _edit(
            "workload.csv", lambda t: t.replace("rpi4", "rpi4", 1).replace("11889000000", "lots", 1)
        )
    )
    assert any("flops 'lots'" in p for p in problems)


def _raw_zip(members: list[tuple[zipfile.ZipInfo | str, bytes]]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for info, data in members:
            zf.writestr(info, data)
    return buffer.getvalue()


def _valid_members() -> list[tuple[str, bytes]]:
    return sorted(_files().items())


@pytest.mark.parametrize(
    "name, expected",
    [
        ("../evil.csv", "leaves or bends the archive"),
        ("/etc/passwd", "absolute path"),
        ("C:/x.csv", "absolute path"),
        ("runs\\d1\\x.csv", "leaves or bends the archive"),
    ],
)
def test_unsafe_paths(name, expected):
    data = _raw_zip([*_valid_members(), (name, b"x")])
    result = validate_zip(data, POLICY, name="s.zip")
    assert result.submission is None
    assert [p for p in result.problems if expected in p and repr(name) in p]


def test_symlink_member():
    info = zipfile.ZipInfo("runs/d1/nominal/link.csv")
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    result = validate_zip(_raw_zip([*_valid_members(), (info, b"/etc/passwd")]), POLICY)
    assert result.submission is None
    assert any("symbolic link" in p for p in result.problems)


def test_zip_bomb():
    bomb = b"0" * (8 * 2**20)  # 8 MiB of one byte compresses about 1000:1
    result = validate_zip(_raw_zip([*_valid_members(), ("runs/d1/nominal/x.csv", bomb)]), POLICY)
    assert result.submission is None
    assert any("fold" in p and "cap" in p for p in result.problems)


def test_not_a_zip():
    result = validate_zip(b"PK\x03\x04 nope", POLICY, name="junk.zip")
    assert result.problems == [
        "junk.zip: a ZIP whose end is missing or corrupt, probably truncated in transit "
        "(File is not a zip file); fix: repack it with the submission packer (docs/fl.md) and do "
        "not edit it by hand"
    ]


@pytest.mark.parametrize(
    "change, expected",
    [
        ({"protocol": "D"}, "protocol 'D'"),
        ({"model": "gpt"}, "model 'gpt' not in the policy"),
        ({"simulator_version": "0.9"}, "simulator_version '0.9'"),
        ({"seed": "x"}, "seed 'x'"),
    ],
)
def test_bad_manifest(change, expected):
    files = _files()
    manifest = json.loads(files["manifest.json"]) | change
    files["manifest.json"] = json.dumps(manifest).encode()
    (line,) = _problems(files)
    assert expected in line and "manifest.json" in line


def test_missing_manifest_and_stray_file():
    files = _files()
    del files["manifest.json"]
    files["notes.txt"] = b"hi"
    problems = _problems(files)
    assert any("notes.txt: unexpected member" in p for p in problems)
    assert any("manifest.json: missing" in p for p in problems)


def test_centralized_takes_no_part_in_c():
    files = _files(protocol="C", method="Centralized")
    assert any("Centralized takes part in A/B only" in p for p in _problems(files))


def test_condition_must_match_the_protocol():
    runs = {("d1", "nominal"): consistent_run(), ("d1", "p"): consistent_run()}
    (line,) = _problems(_files(protocol="A", runs=runs))
    assert "condition 'p' not allowed" in line
    assert validate_zip(zip_bytes(_files(protocol="C", runs=runs)), POLICY).ok


def test_zip_bytes_are_deterministic():
    assert zip_bytes(_files()) == zip_bytes(dict(reversed(list(_files().items()))))
