"""Validated and scored FL submissions cached on disk in ``data/derived/fl/<key>/``;
``python -m analytics fl-derive [--check]`` regenerates or checks the committed entries.

What a ZIP validates to (its :class:`Submission` or its problem lines) depends only on its bytes,
its file name (the label of every line), the policy, the simulator profiles and the validating
code; the scores depend only on the scored submissions (in order), the policy and the scoring
code. So:

- ``<key>`` hashes :data:`FORMAT`, the code of :data:`CODE_FILES` (line endings normalised), the
  simulator profile file and the policy: other code or policy, other folder, never old results;
- one entry per ZIP, ``zip-<id>.entry`` with ``id`` = sha256 of (file name, sha256 of the ZIP
  bytes): a changed, added or renamed ZIP is a new entry and is validated in full first;
- one entry per scored set, ``scores-<id>.entry`` with ``id`` hashing the scored ZIP entries.

An entry is a JSON header line (what it is, the sha256 of the rest) and Parquet tables. It is
used only when the header names the expected id, ZIP name and ZIP sha256 and the rest hashes to
the recorded sha256; anything else (truncated, edited, unreadable) is ignored, recomputed and
rewritten. An entry is stored only when it decodes back identical to what was computed, and is
written atomically (``analytics.core.atomic``). Results of an unforeseen validation failure are
never stored. Nothing here imports streamlit.

``fl-derive`` (``analytics.fl.derive``) writes the entries of our reference ZIPs (and of their
scores) into ``<key>/`` with a ``MANIFEST.json`` (committed; a test fails when stale). Everything
else the app computes (uploads, scores with accepted uploads, references after an edit not yet
derived) goes to ``<key>/local/`` (git-ignored).
"""

from __future__ import annotations

import dataclasses
import io
import json
from pathlib import Path

import pandas as pd

from analytics.core import atomic, derived, paths
from analytics.core.hashing import sha256_hex
from analytics.fl import scoring, simulator
from analytics.fl.policy import Policy
from analytics.fl.submission import UNFORESEEN, Run, Submission, Validation, validate_zip

FORMAT = 1  # the entry layout; bump when it changes
CODE_FILES = (
    "analytics/fl/cache.py",
    "analytics/fl/policy.py",
    "analytics/fl/scoring.py",
    "analytics/fl/simulator.py",
    "analytics/fl/submission.py",
    "analytics/core/problems.py",
    "analytics/core/safejson.py",
    "analytics/core/safezip.py",
)
"""Files whose code decides what a ZIP validates to and how it scores (part of the key)."""
LOCAL = "local"
_PARTS = ("checkpoints", "workload")
_SCORE_PARTS = ("comparisons", "table", "per_model", "references")


def root() -> Path:
    """``data/derived/fl`` (resolved at call time)."""
    return paths.DATA_DIR / "derived" / "fl"


def key(policy: Policy) -> str:
    """Hash of the validating and scoring code (``derived.code_hash``, the one code hash of every
    cache), the format, the simulator profiles and ``policy``: the folder name of every entry
    computed under them."""
    profiles = simulator.profiles_path()
    extra = b"\0".join(
        (
            f"fl-cache-{FORMAT}".encode(),
            profiles.read_bytes() if profiles.is_file() else b"<missing>",
            json.dumps(dataclasses.asdict(policy), sort_keys=True).encode(),
        )
    )
    return derived.code_hash(CODE_FILES, extra=extra, digits=16)


def zip_id(name: str, zip_sha256: str) -> str:
    return sha256_hex(f"zip\0{name}\0{zip_sha256}")[:32]


def scores_id(zip_ids: list[str]) -> str:
    return sha256_hex("scores\0" + "\0".join(zip_ids))[:32]


# --- the entry format: header line + Parquet tables ------------------------------------------


def _encode(header: dict, tables: dict[str, pd.DataFrame]) -> bytes:
    blobs = []
    for frame in tables.values():
        buffer = io.BytesIO()
        frame.to_parquet(buffer)
        blobs.append(buffer.getvalue())
    body = b"".join(blobs)
    header = header | {
        "format": FORMAT,
        "parts": [[name, len(blob)] for name, blob in zip(tables, blobs, strict=True)],
        "body_sha256": sha256_hex(body),
    }
    return json.dumps(header, sort_keys=True, allow_nan=False).encode() + b"\n" + body


def _decode(data: bytes, expect: dict) -> tuple[dict, dict[str, pd.DataFrame]] | None:
    """(header, tables) when ``data`` is a whole entry whose header holds ``expect``; else None."""
    head, sep, body = data.partition(b"\n")
    if not sep:
        return None
    try:
        header = json.loads(head)
        if not isinstance(header, dict) or header.get("format") != FORMAT:
            return None
        if any(header.get(k) != v for k, v in expect.items()):
            return None
        if header.get("body_sha256") != sha256_hex(body):
            return None
        tables, at = {}, 0
        for name, size in header["parts"]:
            tables[name] = pd.read_parquet(io.BytesIO(body[at : at + size]))
            at += size
        return (header, tables) if at == len(body) else None
    except Exception:  # an unreadable entry is a miss, recomputed
        return None


def _read(folder: Path, name: str, expect: dict) -> tuple[dict, dict[str, pd.DataFrame]] | None:
    for path in (folder / name, folder / LOCAL / name):
        try:
            data = path.read_bytes()
        except OSError:
            continue
        found = _decode(data, expect)
        if found is not None:
            return found
    return None


def _same_frame(a: pd.DataFrame | None, b: pd.DataFrame | None) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return (
        type(a.index) is type(b.index)
        and a.index.equals(b.index)
        and a.columns.equals(b.columns)
        and a.dtypes.equals(b.dtypes)
        and a.equals(b)
    )


def same_validation(a: Validation, b: Validation) -> bool:
    """Whether two validations are identical (problems, every field, every frame and dtype)."""
    if a.problems != b.problems or (a.submission is None) != (b.submission is None):
        return False
    if a.submission is None:
        return True
    sa, sb = a.submission, b.submission
    fields = ("protocol", "model", "method", "simulator_version", "seed", "name")
    if any(getattr(sa, f) != getattr(sb, f) for f in fields):
        return False
    if list(sa.runs) != list(sb.runs):
        return False
    return all(
        ra.status == rb.status
        and _same_frame(ra.checkpoints, rb.checkpoints)
        and _same_frame(ra.workload, rb.workload)
        for ra, rb in ((sa.runs[k], sb.runs[k]) for k in sa.runs)
    )


def same_scores(a: scoring.Scores, b: scoring.Scores) -> bool:
    return all(_same_frame(getattr(a, p), getattr(b, p)) for p in _SCORE_PARTS)


# --- ZIP entries -------------------------------------------------------------------------------


def _zip_entry(name: str, zip_sha256: str, result: Validation) -> bytes:
    header: dict = {"kind": "zip", "zip": name, "zip_sha256": zip_sha256}
    header["problems"] = list(result.problems)
    sub = result.submission
    tables: dict[str, pd.DataFrame] = {}
    if sub is not None:
        header["submission"] = {
            "protocol": sub.protocol,
            "model": sub.model,
            "method": sub.method,
            "simulator_version": sub.simulator_version,
            "seed": sub.seed,
            "name": sub.name,
            "runs": [[d, c, r.status] for (d, c), r in sub.runs.items()],
        }
        for part in _PARTS:
            frames = [getattr(r, part) for r in sub.runs.values() if r.status == "ok"]
            lengths = [len(f) for f in frames]
            header[f"{part}_rows"] = lengths
            if frames:
                tables[part] = pd.concat(frames, ignore_index=True)
    return _encode(header, tables)


def _slices(frame: pd.DataFrame | None, lengths: list[int]) -> list[pd.DataFrame]:
    """``frame`` cut back into the runs' tables (each with its own 0..n-1 index)."""
    if frame is None or sum(lengths) != len(frame):
        raise ValueError("row counts do not add up")
    out, at = [], 0
    for n in lengths:
        out.append(frame.iloc[at : at + n].reset_index(drop=True))
        at += n
    return out


def _zip_result(header: dict, tables: dict[str, pd.DataFrame]) -> Validation | None:
    try:
        meta = header.get("submission")
        if meta is None:
            return Validation(None, [str(p) for p in header["problems"]])
        frames = {
            p: iter(_slices(tables.get(p), header[f"{p}_rows"]) if header[f"{p}_rows"] else [])
            for p in _PARTS
        }
        runs = {}
        for dataset, condition, status in meta["runs"]:
            if status == "ok":
                runs[(dataset, condition)] = Run(
                    "ok", next(frames["checkpoints"]), next(frames["workload"])
                )
            else:
                runs[(dataset, condition)] = Run(status)
        if any(next(it, None) is not None for it in frames.values()):
            return None
        fields = ("protocol", "model", "method", "simulator_version", "seed")
        sub = Submission(*(meta[f] for f in fields), runs, meta["name"])
        return Validation(sub, [str(p) for p in header["problems"]])
    except Exception:  # a malformed entry is a miss
        return None


def validated(file: Path, policy: Policy, folder_key: str | None = None, *,
              local: bool = True) -> tuple[Validation, str | None]:
    """``validate_zip(file, policy)``, served from the cache when an entry of these exact bytes,
    this name and this key exists; returns (validation, entry id or None when not cached)."""
    try:
        data = file.read_bytes()
    except OSError:
        return validate_zip(file, policy), None  # its one 'unreadable' line
    folder = root() / (folder_key or key(policy))
    digest = sha256_hex(data)
    entry_id = zip_id(file.name, digest)
    name = f"zip-{entry_id}.entry"
    expect = {"kind": "zip", "zip": file.name, "zip_sha256": digest}
    found = _read(folder, name, expect)
    if found is not None:
        result = _zip_result(*found)
        if result is not None:
            return result, entry_id
    result = validate_zip(data, policy, name=file.name)  # the full validation, always first
    if any(UNFORESEEN in line for line in result.problems):
        return result, None  # may be transient: never stored
    entry = _zip_entry(file.name, digest, result)
    decoded = _decode(entry, expect)
    back = _zip_result(*decoded) if decoded else None
    if back is None or not same_validation(back, result):
        return result, None  # does not round-trip exactly: not stored, computed each time
    _write(folder / LOCAL / name if local else folder / name, entry)
    return result, entry_id


# --- scores entries ----------------------------------------------------------------------------


def scored(subs: list[Submission], ids: list[str | None], policy: Policy,
           folder_key: str | None = None, *, local: bool = True) -> scoring.Scores:
    """``scoring.score(subs, policy)``, cached when every submission came from a ZIP entry."""
    if len(ids) != len(subs) or any(i is None for i in ids):
        return scoring.score(subs, policy)
    folder = root() / (folder_key or key(policy))
    entry_id = scores_id([str(i) for i in ids])
    name = f"scores-{entry_id}.entry"
    expect = {"kind": "scores", "id": entry_id}
    found = _read(folder, name, expect)
    if found is not None and set(found[1]) == set(_SCORE_PARTS):
        return scoring.Scores(*(found[1][p] for p in _SCORE_PARTS))
    result = scoring.score(subs, policy)
    entry = _encode(expect, {p: getattr(result, p) for p in _SCORE_PARTS})
    decoded = _decode(entry, expect)
    if decoded is not None and same_scores(scoring.Scores(*(decoded[1][p] for p in _SCORE_PARTS)),
                                           result):
        _write(folder / LOCAL / name if local else folder / name, entry)
    return result


def _write(path: Path, data: bytes) -> None:
    try:
        atomic.write_bytes(path, data)
    except OSError:  # a read-only checkout still serves, only slower
        pass
