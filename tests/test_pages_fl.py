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
    "A_cnn_FedAvg.zip",
    "A_cnn_FedProx.zip",
    "A_cnn_Local-Only.zip",
    "B_cnn_FedAvg.zip",
    "A_mlp_FedAdam.zip",
]


@pytest.fixture()
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return fl_store(tmp_path, monkeypatch, SMALL_SET)


def _page(name: str, timeout: int = 60, **query: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "pages" / name), default_timeout=timeout)
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
    assert "Communication" in set(breakdown["metric"])  # B: system costs, labelled
    comm = breakdown[breakdown["metric"] == "Communication"]["value"]
    assert comm.str.fullmatch(r"[0-9,.]+ (bytes|KiB|MiB|GiB)|—").all()  # its unit, not 2,543.5
    assert len(at.get("download_button")) == 6  # ranking, per model, points, references, spreads
    assert at.query_params["model"] == "mlp"


def test_ranked_page_names_every_id_and_says_what_a_comparison_compares(store: Path) -> None:
    """Human names, not ids: models, datasets, conditions; A's condition is never
    blank, B names its accuracy target; each reference cost column is in one named unit."""
    at = _page("fl/ranked.py", model="cnn", method="FedAvg", protocol="A")
    assert not at.exception
    assert "CNN (LeNet-5)" in at.selectbox(key="fl_ranked_model").options
    assert at.selectbox(key="fl_ranked_protocol").options == [
        "A · Quality", "B · Efficiency", "C · Robustness"
    ]
    breakdown = at.dataframe[2].value  # overall, per model, points per comparison, references
    assert "Fashion-MNIST" in set(breakdown["dataset"])
    assert not set(breakdown["dataset"]) & {"fashion_mnist", "mnist", "digits"}
    assert set(breakdown["condition"]) == {"nominal run, best checkpoint"}  # not blank under A
    assert set(breakdown["model"]) == {"CNN (LeNet-5)", "MLP (2NN, 200-200)"}
    refs = at.dataframe[3]
    headers = [c.get("label") for c in json.loads(refs.proto.columns).values()]
    assert "Peak memory (MiB)" in headers and "Peak memory (bytes)" not in headers
    b = _page("fl/ranked.py", model="cnn", method="FedAvg", protocol="B")
    conditions = set(b.dataframe[2].value["condition"])
    assert conditions and all(c.startswith("first checkpoint at accuracy ≥ 0.") for c in conditions)


def test_run_detail_page_plots_a_run(store: Path) -> None:
    at = _page("fl/run_detail.py", method="FedProx", dataset="mnist")
    assert not at.exception
    assert [s.value for s in at.selectbox] == ["FedProx", "cnn", "A", "mnist", "nominal"]
    table = at.dataframe[0].value
    assert list(table.index) == list(range(1, 21))
    assert (table["accuracy"] <= 1).all()
    charts = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    titles = [c["layout"]["yaxis"]["title"]["text"] for c in charts]  # one chart per metric
    assert titles == [
        "Accuracy (0-1)", "Loss", "Simulated time (s)", "Communication (MiB)",
        "Simulated energy (J)", "Peak memory (MiB)",
    ]
    assert all(c["layout"]["height"] >= 300 for c in charts)  # never a sliver on a phone
    assert [b.label for b in at.get("download_button")] == ["Download CSV"]
    assert any(m.value.startswith("**How to read this.**") for m in at.markdown)


def test_run_detail_axes_show_bytes_in_kib_not_raw_counts(store: Path) -> None:
    """A byte axis is scaled to one binary unit named in its title (ticks like
    '2,543.5' on a bytes axis): LeNet-5's peak memory on digits, 247,968 bytes, is 242.2 KiB."""
    at = _page("fl/run_detail.py", method="FedAvg", dataset="digits")
    assert not at.exception
    options = at.selectbox(key="fl_detail_dataset").options
    assert "Digits (8×8, smoke set)" in options and "digits" not in options
    assert at.selectbox(key="fl_detail_condition").options == ["Nominal (no perturbation)"]
    memory = json.loads(at.get("plotly_chart")[5].proto.spec)
    assert memory["layout"]["yaxis"]["title"]["text"] == "Peak memory (KiB)"
    assert memory["layout"]["yaxis"]["rangemode"] == "tozero"
    y = memory["data"][0]["y"]
    values = _values(y)
    assert values == pytest.approx([247968 / 1024] * len(values))
    table = at.dataframe[0]
    config = json.loads(table.proto.columns)
    assert config["peak_mem_bytes"]["label"] == "Peak memory (KiB)"
    assert table.value["peak_mem_bytes"].iloc[0] == 242.2  # 247,968 / 1,024, rounded to 0.1


def _values(data) -> list[float]:
    """A plotly JSON array: a plain list, or the typed-array form (dtype + base64 bdata)."""
    if isinstance(data, dict) and "bdata" in data:
        import base64

        import numpy as np

        return np.frombuffer(base64.b64decode(data["bdata"]), dtype=data["dtype"]).tolist()
    return list(data)


def _renamed(method: str) -> bytes:
    with zipfile.ZipFile(REFERENCE / "A_cnn_FedAvg.zip") as zf:
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
    assert (store / "runs" / "fl_submissions" / "A_cnn_MyMethod.zip").is_file()
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


def test_ranked_page_discloses_the_reference_set_and_the_seed_spread(tmp_path, monkeypatch):
    """The page names its datasets, models, client split and seeds, says the B targets are ours
    (with docs/fl.md's section), and shows every score beside its spread over the seeds."""
    fl_store(tmp_path, monkeypatch, SMALL_SET, seeds=True)
    at = _page("fl/ranked.py", timeout=300)  # a cold store: 15 ZIPs validated first
    assert not at.exception
    text = " ".join(m.value for m in at.markdown)
    for needed in ("MNIST", "LeNet-5", "2NN", "Dirichlet(0.5)", "100", "2026, 2027, 2028",
                   "ours, not a paper's", "docs/fl.md", "clients 0-9"):
        assert needed in text, needed
    assert any(e.label == "docs/fl.md: Our reference runs and targets" for e in at.expander)
    scores = at.dataframe[4].value
    assert set(scores["score"]) == {"A · Quality", "B · Efficiency", "C · Robustness", "Final"}
    assert (scores["seeds"] == 3).all() and (scores["low"] <= scores["high"]).all()
    values = at.dataframe[5].value  # Protocol A values, each in its unit
    assert {"Accuracy (0-1)", "Loss"} == set(values["metric"])
    caption = " ".join(c.value for c in at.caption)
    assert "lie inside the seed spread" in caption and "exceed" in caption
