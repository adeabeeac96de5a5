"""AppTest of the community pages: submit, review (login refused/granted), model page section."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from analytics.core import db, paths
from measure.community import auth, inbox, status
from tests.fixtures.community.records import bundle_bytes, make_record, our_runs_table, tree_digest

PASSWORD = "page-test-password"
HASH = auth.hash_password(PASSWORD, salt=b"page-test-salt-1")
VERSION = "test-community-pages"


@pytest.fixture()
def store(tmp_path, monkeypatch) -> tuple[Path, Path]:
    """Empty inbox and runs (with one measurement of ours) in a temp folder; nobody configured."""
    root, runs = tmp_path / "inbox", tmp_path / "runs"
    snapshot = tmp_path / "snapshots" / VERSION
    snapshot.mkdir(parents=True)
    (snapshot / "MANIFEST.json").write_text(json.dumps({"version": VERSION}))
    monkeypatch.setattr(paths, "RUNS_DIR", runs)
    monkeypatch.setattr(paths, "SNAPSHOTS_DIR", tmp_path / "snapshots")
    monkeypatch.setattr(db, "ensure_snapshot", lambda *a, **k: VERSION)
    monkeypatch.setenv(inbox.ENV_INBOX, str(root))
    monkeypatch.delenv(auth.ENV_MAINTAINERS, raising=False)
    our_runs_table(runs, make_record(seed=100))
    return root, runs


def _app(page: str) -> AppTest:
    at = AppTest.from_file(str(paths.REPO_ROOT / page), default_timeout=60).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _frame_with(at: AppTest, column: str):
    """The first rendered dataframe that has ``column``."""
    return next(d.value for d in at.dataframe if column in d.value.columns)


def _button(at: AppTest, label: str):
    return next(b for b in at.button if b.label == label)


def test_submit_page_queues_a_good_bundle_and_names_its_id(store):
    root, _ = store
    at = _app("pages/vision/submit.py")
    assert at.title[0].value == "Submit a run"
    assert at.button(key="submit_send").disabled
    at.file_uploader(key="submit_bundle").set_value(
        ("run.zip", bundle_bytes(make_record(seed=5)), "application/zip")
    )
    at.run()
    at.button(key="submit_send").click().run()
    assert not at.exception
    [queued] = inbox.entries(root)
    assert f"review queue as **{queued['id']}**" in at.success[0].value
    assert not at.error


def test_submit_page_gives_the_one_line_reason_and_stores_nothing(store):
    root, runs = store
    before = tree_digest(runs)
    at = _app("pages/vision/submit.py")
    at.file_uploader(key="submit_bundle").set_value(("run.zip", b"PK\x03\x04oops", "a/zip"))
    at.run()
    at.button(key="submit_send").click().run()
    assert at.error[0].value.startswith("Not accepted: run.zip: a ZIP whose end is missing")
    assert not at.success and not root.exists() and tree_digest(runs) == before


def test_review_page_refuses_when_no_maintainer_is_configured(store):
    at = _app("pages/vision/review.py")
    assert "No maintainer is configured" in at.info[0].value and not at.error  # a note, no box
    assert any("hash-password" in c.value for c in at.code)
    assert not at.text_input and not at.dataframe and not at.button


def test_review_page_rejects_a_wrong_password(store, monkeypatch):
    monkeypatch.setenv(auth.ENV_MAINTAINERS, f"maint:{HASH}")
    at = _app("pages/vision/review.py")
    at.text_input(key="review_login_name").input("maint")
    at.text_input(key="review_login_password").input("not it")
    _button(at, "Sign in").click().run()
    assert "login failed" in at.error[0].value
    assert not at.dataframe


def _sign_in(at: AppTest) -> AppTest:
    at.text_input(key="review_login_name").input("maint")
    at.text_input(key="review_login_password").input(PASSWORD)
    _button(at, "Sign in").click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_review_page_accepts_after_login(store, monkeypatch):
    root, runs = store
    monkeypatch.setenv(auth.ENV_MAINTAINERS, f"maint:{HASH}")
    entry = inbox.add(bundle_bytes(make_record(seed=5), "alice"), "a.zip")
    at = _sign_in(_app("pages/vision/review.py"))
    assert at.selectbox(key="review_bundle").value == entry["id"]
    compare = _frame_with(at, "Recomputed from the calls")
    assert list(compare["Figure"]) == [
        "median latency (ms)",
        "p90 latency (ms)",
        "spread of run medians (fraction)",
        "VRAM peak above idle (MiB)",
    ]
    assert compare.loc[0, "Ours (same GPU and precision)"] == pytest.approx(
        make_record(seed=100)["median_ms"]
    )
    assert compare.loc[0, "Submitted"] == pytest.approx(compare.loc[0, "Recomputed from the calls"])
    at.button(key="review_accept").click().run()
    assert at.success[0].value == f"Accepted {entry['id']}."
    assert status.load_results(runs)["github"].tolist() == ["alice"]
    assert "No bundle is waiting" in at.info[0].value
    audit_log = _frame_with(at, "Maintainer")
    assert audit_log[["Maintainer", "Action", "Bundle"]].values.tolist() == [
        ["maint", "accept", entry["id"]]
    ]


def test_review_page_rejects_with_a_reason(store, monkeypatch):
    root, _ = store
    monkeypatch.setenv(auth.ENV_MAINTAINERS, f"maint:{HASH}")
    entry = inbox.add(bundle_bytes(make_record(seed=6), "bob"), "b.zip")
    at = _sign_in(_app("pages/vision/review.py"))
    assert at.button(key="review_reject").disabled
    at.text_input(key="review_reason").input("run spread looks edited").run()
    at.button(key="review_reject").click().run()
    assert at.success[0].value == f"Rejected {entry['id']}."
    assert inbox.entries(root)[0]["reason"] == "run spread looks edited"


def test_run_page_refuses_without_a_maintainer(store):
    at = _app("pages/vision/run.py")
    assert "No maintainer is configured" in at.info[0].value and not at.error  # a note, no box
    assert not at.button and not at.selectbox


def test_model_page_lists_accepted_community_results(store):
    root, runs = store
    entry = inbox.add(bundle_bytes(make_record(seed=5), "alice"), "a.zip")
    inbox.accept(entry["id"], auth.Maintainer("maint"))
    at = AppTest.from_file(str(paths.REPO_ROOT / "pages/vision/model.py"), default_timeout=60)
    at.query_params["model"] = "fasterrcnn-resnet50-fpn"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert "Community results" in [h.value for h in at.subheader]
    table = _frame_with(at, "contributor")
    assert table[["contributor", "GPU", "status"]].values.tolist() == [
        ["alice", "NVIDIA GeForce RTX 4090", "Unverified"]
    ]
