"""Security probe regressions of the federated track, and fuzzing of its untrusted inputs.

- uploads are self-reported: stored unverified, ranked only after a maintainer accepts them;
  accept/reject are appended to the review record (who, when, sha256).
- one bad ZIP is one skipped line, never an aborted run or a page traceback.
- a malicious policy is refused by shape and size before use, in one line.
- fuzzing: random bytes, random policy JSON and random manifests raise nothing but the
  project's own one-line errors, within a memory bound.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import shutil
import tracemalloc
import zipfile
from pathlib import Path

import pytest
import streamlit as st
from hypothesis import given, settings
from hypothesis import strategies as hs
from streamlit.testing.v1 import AppTest

from analytics.__main__ import main
from analytics.core import paths
from analytics.fl import board as flb
from analytics.fl import review, store, submission
from analytics.fl.policy import CAPS, PolicyError, load_policy, parse_policy, policy_path
from analytics.fl.submission import UNFORESEEN, validate_zip, zip_bytes
from measure.community import auth
from tests.fixtures.fl.store import fl_store as fl_store_copy

ROOT = paths.REPO_ROOT
REFERENCE = ROOT / "data" / "fl_reference" / "submissions"
SMALL_SET = ["A_cnn_FedAvg.zip", "A_cnn_FedProx.zip", "A_cnn_Local-Only.zip"]
LINE = re.compile(r"^[^\n\r]+: [^\n\r]+; fix: [^\n\r]+$")
MEMORY_CAP = 64 * 2**20  # peak Python allocations while checking one capped fuzz input
PASSWORD = "correct horse battery"


@pytest.fixture()
def fl_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private FL store: our policy and three reference ZIPs, no uploads yet."""
    monkeypatch.delenv(auth.ENV_MAINTAINERS, raising=False)
    return fl_store_copy(tmp_path, monkeypatch, SMALL_SET)


def _members(name: str = "A_cnn_FedAvg.zip") -> dict[str, bytes]:
    with zipfile.ZipFile(REFERENCE / name) as zf:
        return {n: zf.read(n) for n in zf.namelist()}


def _perfect(text: bytes) -> bytes:
    """A checkpoints.csv with accuracy 1.0 and loss 0 on every row (costs untouched)."""
    lines = text.decode().splitlines()
    header = lines[0].split(",")
    acc, loss = header.index("accuracy"), header.index("loss")
    out = [lines[0]]
    for row in lines[1:]:
        cells = row.split(",")
        cells[acc], cells[loss] = "1.0", "0.0"
        out.append(",".join(cells))
    return ("\n".join(out) + "\n").encode()


def tampered(method: str = "Tampered") -> bytes:
    """A copy of a reference ZIP claiming perfect accuracy: costs still recompute."""
    files = _members()
    for name in files:
        if name.endswith("checkpoints.csv"):
            files[name] = _perfect(files[name])
    files["manifest.json"] = json.dumps(
        json.loads(files["manifest.json"]) | {"method": method}
    ).encode()
    return zip_bytes(files)


def _ranked(board: flb.Board) -> list[str]:
    return flb.leaderboard(board)["method"].tolist()


# --- 3. self-reported uploads stay unverified until a maintainer accepts them ---------------


def test_tampered_copy_validates_but_is_stored_unverified_and_not_ranked(fl_store):
    data = tampered()
    assert validate_zip(data, load_policy()).ok  # nothing in the ZIP itself gives it away
    stored, problems = store.receive(data, "evil.zip", load_policy())
    assert problems == [] and stored == "A_cnn_Tampered.zip"
    board = flb.load_board()
    assert "Tampered" not in _ranked(board)
    assert "Tampered" not in set(board.scores.comparisons["method"])  # no points either
    pending = flb.uploads_table(board, (review.UNVERIFIED,))
    assert pending["method"].tolist() == ["Tampered"]
    assert pending["sha256"].tolist() == [hashlib.sha256(data).hexdigest()]


def test_accept_ranks_the_upload_and_reject_removes_it_with_an_append_only_record(fl_store):
    data = tampered()
    stored, _ = store.receive(data, "evil.zip", load_policy())
    digest = hashlib.sha256(data).hexdigest()
    state = flb.decide_upload(stored, "accept", "maint", digest)
    assert state.status == review.ACCEPTED and state.decided_by == "maint"
    board = flb.load_board()
    assert _ranked(board)[0] == "Tampered"  # accepted: it takes a rank (here the first)
    first = review.log_path().read_bytes()
    with pytest.raises(review.ReviewError, match="already accepted by maint"):  # not seen so
        flb.decide_upload(stored, "reject", "other", digest, "copied reference, fake accuracy")
    review.decide(  # a withdrawal: rejected while seeing it accepted
        stored, "reject", "other", digest, "copied reference, fake accuracy", seen=review.ACCEPTED
    )
    assert review.log_path().read_bytes().startswith(first)  # appended, never rewritten
    board = flb.load_board()
    assert "Tampered" not in _ranked(board)
    assert flb.uploads_table(board, (review.UNVERIFIED, review.ACCEPTED)).empty
    events = [json.loads(x) for x in review.log_path().read_text().splitlines()]
    assert [e["event"] for e in events] == ["received", "accepted", "rejected"]
    assert {e["sha256"] for e in events} == {digest}
    assert [e.get("by") for e in events[1:]] == ["maint", "other"]
    assert all(re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$", e["at"]) for e in events)


def test_review_refuses_other_bytes_unknown_names_and_second_decisions(fl_store):
    stored, _ = store.receive(tampered(), "evil.zip", load_policy())
    for name, action, sha in [
        (stored, "accept", "0" * 64),  # not the bytes the maintainer saw
        ("../../etc/passwd.zip", "accept", None),
        ("missing.zip", "reject", None),
        (stored, "publish", None),
    ]:
        with pytest.raises(review.ReviewError) as err:
            flb.decide_upload(name, action, "maint", sha)
        assert LINE.match(str(err.value))
    flb.decide_upload(stored, "reject", "maint", reason="fake")
    with pytest.raises(review.ReviewError, match="already rejected"):
        flb.decide_upload(stored, "accept", "maint")
    assert "Tampered" not in _ranked(flb.load_board())


def test_a_replaced_file_is_unverified_again(fl_store):
    stored, _ = store.receive(tampered(), "evil.zip", load_policy())
    flb.decide_upload(stored, "accept", "maint")
    (store.uploads_dir() / stored).write_bytes(tampered())  # the same bytes: still accepted
    assert "Tampered" in _ranked(flb.load_board())
    files = _members()
    files["manifest.json"] = json.dumps(
        json.loads(files["manifest.json"]) | {"method": "Tampered", "seed": 7}
    ).encode()
    (store.uploads_dir() / stored).write_bytes(zip_bytes(files))  # swapped behind our back
    assert "Tampered" not in _ranked(flb.load_board())


def test_uploads_cannot_pose_as_our_reference_methods(fl_store):
    files = _members("A_cnn_Local-Only.zip")
    files["manifest.json"] = json.dumps(
        json.loads(files["manifest.json"]) | {"model": "mlp"}
    ).encode()
    stored, problems = store.receive(zip_bytes(files), "ref.zip", load_policy())
    assert stored is None and len(problems) == 1 and "reference method" in problems[0]


def test_fl_review_list_shows_unverified_uploads(fl_store, capsys):
    store.receive(tampered(), "evil.zip", load_policy())
    assert main(["fl-review", "list"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("unverified A_cnn_Tampered.zip  A cnn Tampered")


def _page(name: str) -> AppTest:
    return AppTest.from_file(str(ROOT / "pages" / name), default_timeout=60).run()


def _button(at: AppTest, label: str):
    return next(b for b in at.button if b.label == label)


def test_upload_page_says_unverified_never_published(fl_store):
    at = _page("fl/submit.py")
    at.file_uploader[0].upload("evil.zip", tampered(), "application/zip").run()
    assert not at.exception
    (message,) = [s.value for s in at.success]
    assert "received — unverified until a maintainer reviews it" in message
    assert "published" not in message.lower()
    assert all("published" not in m.value.lower() for m in at.markdown)


def test_review_control_needs_a_maintainer(fl_store):
    at = _page("fl/submit.py")
    at.toggle(key="fl_review_open").set_value(True).run()
    assert not at.exception
    assert "no maintainer is configured" in at.error[0].value
    assert not [b for b in at.button if b.label in ("Accept", "Reject")]


def test_maintainer_accepts_on_the_page_and_the_upload_ranks(fl_store, monkeypatch):
    monkeypatch.setenv(auth.ENV_MAINTAINERS, f"maint:{auth.hash_password(PASSWORD)}")
    store.receive(tampered(), "evil.zip", load_policy())
    at = _page("fl/submit.py")
    at.toggle(key="fl_review_open").set_value(True).run()
    at.text_input(key="fl_review_login_name").input("maint")
    at.text_input(key="fl_review_login_password").input(PASSWORD)
    _button(at, "Sign in").click().run()
    assert not at.exception
    assert at.selectbox(key="fl_review_pick").value == "A_cnn_Tampered.zip"
    assert at.button(key="fl_review_reject").disabled  # a rejection needs a reason
    at.button(key="fl_review_accept").click().run()
    assert not at.exception and "accepted by maint" in at.success[0].value
    events = [json.loads(x) for x in review.log_path().read_text().splitlines()]
    assert events[-1]["event"] == "accepted" and events[-1]["by"] == "maint"
    st.cache_data.clear()
    ranked = _page("fl/ranked.py")
    assert ranked.dataframe[0].value["method"].iloc[0] == "Tampered"


# --- 10. one bad ZIP is one skipped line; a malicious policy is one error line ---------------


def _deflate_corrupt() -> bytes:
    """A reference ZIP with one bit flipped inside a deflated member (zlib refuses it)."""
    data = bytearray((REFERENCE / "A_cnn_FedAvg.zip").read_bytes())
    with zipfile.ZipFile(io.BytesIO(bytes(data))) as zf:
        info = next(i for i in zf.infolist() if i.filename.endswith("checkpoints.csv"))
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    data[start + 2] ^= 0xFF
    return bytes(data)


def _stored_crc() -> bytes:
    """Members stored uncompressed, one content byte changed: only the CRC check catches it."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as zf:
        for name, body in _members().items():
            zf.writestr(name, body)
    data = bytearray(buffer.getvalue())
    data[data.find(b"step,accuracy") + 20] ^= 0x01
    return bytes(data)


def _manifest_zip(manifest: bytes, files: dict[str, bytes] | None = None) -> bytes:
    return zip_bytes((files or _members()) | {"manifest.json": manifest})


BAD_ZIPS = {
    "deflate.zip": _deflate_corrupt,
    "crc.zip": _stored_crc,
    "nested.zip": lambda: _manifest_zip(b"[" * 30000 + b"]" * 30000),
    "bigint.zip": lambda: _manifest_zip(b'{"seed": ' + b"9" * 5000 + b"}"),
    "huge.zip": lambda: _manifest_zip(b'{"x": "' + b"a" * 100_000 + b'"}'),
}


@pytest.mark.parametrize("name", ["deflate.zip", "crc.zip", "nested.zip", "bigint.zip"])
def test_each_bad_zip_is_refused_in_one_line(name):
    result = validate_zip(BAD_ZIPS[name](), load_policy(), name)
    assert not result.ok and len(result.problems) == 1
    assert LINE.match(result.problems[0]) and result.problems[0].startswith(f"{name}: ")
    assert UNFORESEEN not in result.problems[0]


def test_fl_score_skips_each_bad_zip_in_one_line_and_scores_the_rest(tmp_path, capsys):
    folder = tmp_path / "zips"
    folder.mkdir()
    for name in ("A_cnn_FedAvg.zip", "A_cnn_FedProx.zip"):
        shutil.copy(REFERENCE / name, folder / name)
    for name, make in BAD_ZIPS.items():
        (folder / name).write_bytes(make())
    (folder / "folder.zip").mkdir()  # not even a file
    rc = main(["fl-score", str(folder), "--policy", str(policy_path())])
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert rc == 1 and len(lines) == len(BAD_ZIPS) + 1
    for line in lines:
        assert line.startswith("skipped: ") and LINE.match(line.removeprefix("skipped: "))
    assert {line.split(":")[1].strip() for line in lines} == {*BAD_ZIPS, "folder.zip"}
    assert "FedAvg" in out and "FedProx" in out and "Traceback" not in err


def test_an_unforeseen_failure_is_still_one_skipped_line(tmp_path, monkeypatch, capsys):
    folder = tmp_path / "zips"
    folder.mkdir()
    shutil.copy(REFERENCE / "A_cnn_FedAvg.zip", folder / "A_cnn_FedAvg.zip")

    def boom(*args, **kwargs):
        raise KeyError("a check nobody wrote")

    monkeypatch.setattr(submission, "_runs", boom)
    rc = main(["fl-score", str(folder), "--policy", str(policy_path())])
    line, last = capsys.readouterr().err.strip().splitlines()
    assert rc == 1 and UNFORESEEN in line and LINE.match(line.removeprefix("skipped: "))
    assert last.startswith("error: ") and "no valid submission ZIP" in last


def test_upload_page_shows_the_one_line_for_a_corrupt_zip(fl_store):
    at = _page("fl/submit.py")
    at.file_uploader[0].upload("bad.zip", _deflate_corrupt(), "application/zip").run()
    assert not at.exception and not at.success
    (line,) = [t.value for t in at.text]
    assert line.startswith("bad.zip: ") and LINE.match(line)
    assert not list(store.uploads_dir().glob("*.zip"))


def _our_policy() -> dict:
    return json.loads(policy_path().read_text())


MALICIOUS_POLICIES = {
    "targets-list": lambda p: p | {"targets": [1, 2, 3]},
    "targets-model-list": lambda p: p | {"targets": {m: [0.5] for m in p["models"]}},
    "targets-dataset-dict": lambda p: (
        p | {"targets": {m: {d: {"a": 1} for d in p["datasets"]} for m in p["models"]}}
    ),
    "bool-levels": lambda p: (
        p | {"targets": {m: {d: [True, True, True] for d in p["datasets"]} for m in p["models"]}}
    ),
    "deep-nesting": lambda p: "[" * 50_000 + "]" * 50_000,
    "deep-about": lambda p: json.dumps(p)[:-1] + ', "x": ' + "[" * 5000 + "]" * 5000 + "}",
    "many-perturbations": lambda p: p | {"perturbations": [f"p{i}" for i in range(200)]},
    "path-name": lambda p: p | {"datasets": ["../../etc"]},
    "long-name": lambda p: p | {"models": ["m" * 500]},
    "about-object": lambda p: p | {"about": {"nested": [1, 2]}},
    "nominal-perturbation": lambda p: p | {"perturbations": ["nominal"]},
    "huge-int": lambda p: json.dumps(p)[:-1] + ', "x": ' + "9" * 5000 + "}",
    "not-utf8": lambda p: b"\xff\xfe{}",
}


@pytest.mark.parametrize("case", sorted(MALICIOUS_POLICIES))
def test_malicious_policy_is_one_error_line(case, tmp_path, capsys):
    made = MALICIOUS_POLICIES[case](_our_policy())
    path = tmp_path / "policy.json"
    if isinstance(made, bytes):
        path.write_bytes(made)
    else:
        path.write_text(made if isinstance(made, str) else json.dumps(made))
    folder = tmp_path / "empty"
    folder.mkdir()
    rc = main(["fl-score", str(folder), "--policy", str(path)])
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and line.startswith(f"error: {path}: ") and LINE.match(line)


def test_200k_perturbations_are_refused_before_use_within_a_memory_bound(tmp_path):
    raw = _our_policy() | {"perturbations": [f"p{i:06d}" for i in range(200_000)]}
    path = tmp_path / "policy.json"
    path.write_text(json.dumps(raw))
    tracemalloc.start()
    try:
        with pytest.raises(PolicyError) as err:
            load_policy(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert LINE.match(str(err.value)) and peak < 4 * CAPS["bytes"]
    with pytest.raises(PolicyError) as err:
        parse_policy(raw)  # the count cap holds for an already-parsed object too
    assert "over the cap of 64" in err.value.what and err.value.fix


# --- fuzzing: nothing raises but the project's own one-line error, within a memory bound ----


def _peak(call):
    """(result, peak bytes allocated) of ``call()``."""
    tracemalloc.start()
    try:
        result = call()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _assert_lines(problems: list[str]) -> None:
    for line in problems:
        assert LINE.match(line), line
        assert UNFORESEEN not in line, line


SMALL_ZIP = zip_bytes(
    {n: b for n, b in _members().items() if n == "manifest.json" or "/iris/" in n}
)
POLICY = load_policy()


@settings(max_examples=150)
@given(hs.binary(max_size=4096))
def test_fuzz_random_bytes_to_validate_zip(data):
    result, peak = _peak(lambda: validate_zip(data, POLICY, "fuzz.zip"))
    assert not result.ok and result.problems
    _assert_lines(result.problems)
    assert peak < MEMORY_CAP


@settings(max_examples=150)
@given(hs.lists(hs.tuples(hs.integers(0, len(SMALL_ZIP) - 1), hs.integers(1, 255)), max_size=6))
def test_fuzz_damaged_zips_to_validate_zip(flips):
    data = bytearray(SMALL_ZIP)
    for at, mask in flips:
        data[at] ^= mask
    result, peak = _peak(lambda: validate_zip(bytes(data), POLICY, "fuzz.zip"))
    assert result.ok or result.problems
    _assert_lines(result.problems)
    assert peak < MEMORY_CAP


JSON = hs.recursive(
    hs.none()
    | hs.booleans()
    | hs.integers()
    | hs.floats(allow_nan=True, allow_infinity=True)
    | hs.text(max_size=20),
    lambda inner: hs.lists(inner, max_size=4) | hs.dictionaries(hs.text(max_size=8), inner),
    max_leaves=20,
)
NAMES = hs.lists(hs.sampled_from(["linear", "mlp", "iris", "a b", "", "../x", "nominal"]))


def _policy_like():
    keys = ["models", "datasets", "perturbations", "targets", "reference_methods", "about"]
    return hs.dictionaries(hs.sampled_from(keys), NAMES | JSON, max_size=6)


@settings(max_examples=200)
@given(hs.one_of(JSON, _policy_like()))
def test_fuzz_policy_objects(raw):
    try:
        parse_policy(raw)
    except PolicyError as exc:
        _assert_lines([str(exc)])


@settings(max_examples=100)
@given(hs.one_of(hs.binary(max_size=2048), JSON.map(lambda v: json.dumps(v).encode())))
def test_fuzz_policy_files(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("policy") / "policy.json"
    path.write_bytes(data)
    try:
        _, peak = _peak(lambda: load_policy(path))
    except PolicyError as exc:
        _assert_lines([str(exc)])
    else:
        assert peak < MEMORY_CAP


MANIFEST_VALUES = hs.one_of(
    hs.sampled_from(["A", "B", "C", "linear", "mlp", "FedAvg", "Centralized", "1.0.0", 0, 1]),
    JSON,
)
MANIFESTS = hs.one_of(
    JSON,
    hs.fixed_dictionaries(
        {k: MANIFEST_VALUES for k in ("protocol", "model", "method", "simulator_version", "seed")}
    ),
)


@settings(max_examples=150)
@given(MANIFESTS)
def test_fuzz_manifests(manifest):
    with zipfile.ZipFile(io.BytesIO(SMALL_ZIP)) as zf:
        files = {n: zf.read(n) for n in zf.namelist()}
    data = _manifest_zip(json.dumps(manifest).encode(), files)
    result, peak = _peak(lambda: validate_zip(data, POLICY, "fuzz.zip"))
    assert result.ok or result.problems
    _assert_lines(result.problems)
    assert peak < MEMORY_CAP


def test_an_upload_name_never_breaks_the_one_line(fl_store):
    stored, problems = store.receive(b"not a zip", "evil\nname; fix: trust me.zip", load_policy())
    (line,) = problems
    assert stored is None and LINE.match(line) and line.startswith("evil_name__fix__trust_me.zip: ")
