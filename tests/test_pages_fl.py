"""AppTest runs of the three federated-track pages on a small copy of our reference store."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from analytics.core import paths
from analytics.fl.submission import zip_bytes
from tests.fixtures.fl.store import fl_store

ROOT = paths.REPO_ROOT
REFERENCE = ROOT / "data" / "fl_reference" / "submissions"
SMALL_SET = [
    "A_linear_FedAvg.zip",
    "A_linear_FedProx.zip",
    "A_linear_Local-Only.zip",
    "B_linear_FedAvg.zip",
    "A_mlp_FedAdam.zip",
]


@pytest.fixture()
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return fl_store(tmp_path, monkeypatch, SMALL_SET)


def _page(name: str, **query: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "pages" / name), default_timeout=60)
    at.query_params.update(query)
    return at.run()


def test_ranked_page_renders_scores_breakdown_and_references(store: Path) -> None:
    at = _page("fl/ranked.py", model="mlp", method="FedAvg", protocol="B")
    assert not at.exception
    overall = at.dataframe[0].value
    assert sorted(overall["method"]) == ["FedAdam", "FedAvg", "FedProx"]  # references apart
    assert overall["method"].iloc[0] == "FedAvg"  # the only method with A and B submissions
    assert overall["rank"].tolist() == [1, 2, 3]
    per_model = at.dataframe[1].value
    assert per_model["method"].iloc[0] == "FedAdam"  # only FedAdam has an mlp submission
    breakdown = at.dataframe[2].value
    assert set(breakdown["protocol"]) == {"B"} and (breakdown["points"] >= 0).all()
    references = at.dataframe[3].value
    assert set(references["method"]) == {"Local Only"}
    assert "Communication (bytes)" in set(breakdown["metric"])  # B: system costs, labelled
    assert len(at.get("download_button")) == 4  # ranking, per model, points, references
    assert at.query_params["model"] == "mlp"


def test_run_detail_page_plots_a_run(store: Path) -> None:
    at = _page("fl/run_detail.py", method="FedProx", dataset="iris")
    assert not at.exception
    assert [s.value for s in at.selectbox] == ["FedProx", "linear", "A", "iris", "nominal"]
    table = at.dataframe[0].value
    assert list(table.index) == list(range(1, 21))
    assert (table["accuracy"] <= 1).all()
    costs = json.loads(at.get("plotly_chart")[1].proto.spec)
    titles = sorted(a["text"] for a in costs["layout"]["annotations"])
    assert titles == [
        "Communication (bytes)", "Peak memory (bytes)", "Simulated energy (J)",
        "Simulated time (s)",
    ]  # fmt: skip
    assert [b.label for b in at.get("download_button")] == ["Download CSV"]


def _renamed(method: str) -> bytes:
    with zipfile.ZipFile(REFERENCE / "A_linear_FedAvg.zip") as zf:
        files = {n: zf.read(n) for n in zf.namelist()}
    manifest = json.loads(files["manifest.json"]) | {"method": method}
    files["manifest.json"] = json.dumps(manifest).encode()
    return zip_bytes(files)


def test_submit_page_stores_a_valid_zip_as_unverified(store: Path) -> None:
    at = _page("fl/submit.py")
    assert not at.exception and at.info
    at.file_uploader[0].upload("mine.zip", _renamed("MyMethod"), "application/zip")
    at.run()
    assert not at.exception
    assert at.success and at.success[0].value.startswith(
        "received — unverified until a maintainer reviews it"
    )
    assert "published" not in at.success[0].value
    assert (store / "runs" / "fl_submissions" / "A_linear_MyMethod.zip").is_file()
    st.cache_data.clear()
    ranked = _page("fl/ranked.py")
    assert "MyMethod" not in ranked.dataframe[0].value["method"].tolist()  # not ranked yet
    (unverified,) = [d.value for d in ranked.dataframe if "sha256" in d.value.columns]
    assert unverified["method"].tolist() == ["MyMethod"]
    assert set(unverified["status"]) == {"unverified"}


def test_submit_page_rejects_with_one_line_per_problem(store: Path) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        zf.writestr("/etc/passwd", "x")
        zf.writestr("../up.txt", "x")
    at = _page("fl/submit.py")
    at.file_uploader[0].upload("bad.zip", buffer.getvalue(), "application/zip")
    at.run()
    assert not at.exception and not at.success
    lines = [t.value for t in at.text]
    assert len(lines) == 2 and all(line.startswith("bad.zip: ") for line in lines)
    assert not (store / "runs" / "fl_submissions").exists()
