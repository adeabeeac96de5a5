"""``python -m analytics fl-score`` / ``fl-run``: output, JSON, skipped ZIPs and exit codes."""

from __future__ import annotations

import json
import shutil
import zipfile

from analytics.__main__ import main
from analytics.fl import runner, store
from analytics.fl.policy import policy_path


def _copy(tmp_path, names):
    folder = tmp_path / "zips"
    folder.mkdir()
    for name in names:
        shutil.copy(store.reference_dir() / name, folder / name)
    return folder


def test_scores_committed_reference_runs(capsys):
    rc = main(["fl-score", str(store.reference_dir()), "--policy", str(policy_path()), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0 and out["skipped"] == []
    methods = [m["method"] for m in out["methods"]]
    assert sorted(methods) == sorted(runner.FED_METHODS)  # references never ranked
    assert [m["rank"] for m in out["methods"]] == list(range(1, len(runner.FED_METHODS) + 1))
    for m in out["methods"]:
        assert 0 <= m["final"] <= 10 and set(m["per_model"]) == {"cnn", "mlp"}
        assert (
            m["final"] == round((m["A"] + m["B"] + m["C"]) / 3, 4)
            or abs(m["final"] - (m["A"] + m["B"] + m["C"]) / 3) < 1e-4
        )


def test_invalid_zip_is_reported_once_and_skipped(tmp_path, capsys):
    folder = _copy(tmp_path, ["A_cnn_FedAvg.zip", "A_cnn_FedProx.zip"])
    with zipfile.ZipFile(folder / "evil.zip", "w") as zf:
        zf.writestr("../escape.txt", "x")
    rc = main(["fl-score", str(folder), "--policy", str(policy_path())])
    captured = capsys.readouterr()
    assert rc == 1
    lines = captured.err.strip().splitlines()
    assert lines == [
        "skipped: evil.zip: member '../escape.txt' has a path that leaves or bends the archive "
        "('..', '.', '\\' or an empty part); fix: repack it with the submission packer "
        "(docs/fl.md) and do not edit it by hand"
    ]
    assert "FedAvg" in captured.out and "FedProx" in captured.out


def test_bad_policy_is_one_line(tmp_path, capsys):
    bad = tmp_path / "policy.json"
    bad.write_text('{"models": ["m"]')
    rc = main(["fl-score", str(store.reference_dir()), "--policy", str(bad)])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and "policy.json" in err[0] and "invalid JSON" in err[0]


def test_empty_folder_is_an_error(tmp_path, capsys):
    rc = main(["fl-score", str(tmp_path), "--policy", str(policy_path())])
    assert rc == 1 and "no valid submission ZIP" in capsys.readouterr().err


def test_fl_run_subset_writes_zips_and_policy(tmp_path, capsys):
    out = tmp_path / "out"
    rc = main(
        [
            "fl-run",
            "--out",
            str(out),
            "--methods",
            "FedAvg",
            "Centralized",
            "--models",
            "cnn",
            "--datasets",
            "digits",
            "--perturbations",
            "--seeds",
            "2026",
            "2027",
            "--quiet",
        ]
    )
    assert rc == 0
    names = sorted(p.name for p in out.glob("*.zip"))
    assert names == [
        "A_cnn_Centralized.zip",
        "A_cnn_FedAvg.zip",
        "B_cnn_Centralized.zip",
        "B_cnn_FedAvg.zip",
        "C_cnn_FedAvg.zip",
    ]
    assert sorted(p.name for p in (out / "seeds" / "2027").glob("*.zip")) == names
    policy = json.loads((out / "policy.json").read_text())
    assert policy["datasets"] == ["digits"] and len(policy["targets"]["cnn"]["digits"]) == 3
    with (
        zipfile.ZipFile(out / "A_cnn_FedAvg.zip") as new,
        zipfile.ZipFile(store.reference_dir() / "A_cnn_FedAvg.zip") as committed,
    ):
        member = "runs/digits/nominal/checkpoints.csv"
        assert new.read(member) == committed.read(member)
    rc = main(["fl-score", str(out), "--policy", str(out / "policy.json")])
    assert rc == 0
