"""``python -m measure verify RECORD``: recompute every figure and check every hash.

Prints one line per check and exits 1 at the first mismatch (naming it), 2 on an unreadable
record. A file that is not on this machine (contributor's weights, say) is reported as
"not checked" and fails only with ``--strict``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from measure import record as rec
from measure.env import resolve_path, sha256_file


@dataclass(frozen=True)
class Check:
    """One verification: ``state`` is "ok", "mismatch" or "not checked"."""

    name: str
    state: str
    detail: str = ""


def _hash_check(name: str, path: Path, expected: str) -> Check:
    if not path.is_file():
        return Check(name, "not checked", f"{path} not found here")
    actual = sha256_file(path)
    if actual != expected:
        return Check(
            name, "mismatch", f"{path}: sha256 {actual[:12]}… != recorded {expected[:12]}…"
        )
    return Check(name, "ok")


def _figure_checks(record: dict[str, Any], again: dict[str, Any]) -> Iterator[Check]:
    if again["status"] != record.get("status"):
        yield Check("status", "mismatch", f"recomputed {again['status']!r}")
    for key in rec.figure_keys(record):
        if key not in record:
            yield Check(key, "mismatch", "missing from the record")
        elif not rec.same(record[key], again.get(key)):
            yield Check(
                key, "mismatch", f"recorded {record[key]!r} != recomputed {again.get(key)!r}"
            )
        else:
            yield Check(key, "ok")


def _accuracy_checks(record: dict[str, Any]) -> Iterator[Check]:
    acc = record.get("accuracy")
    if not acc:
        return
    gt_path = resolve_path(acc["ground_truth"])
    check = _hash_check("accuracy ground truth", gt_path, acc["ground_truth_sha256"])
    yield check
    if check.state != "ok":
        return
    again = rec.recompute(record, json.loads(gt_path.read_text()))["accuracy_stats"]
    if rec.same(again, acc["stats"]):
        yield Check("accuracy stats", "ok")
    else:
        yield Check("accuracy stats", "mismatch", f"recomputed {again} != recorded {acc['stats']}")


def checks(record: dict[str, Any], weights_dir: Path | None = None) -> Iterator[Check]:
    """Every check of a record, figures first, then hashes."""
    rec.validate(record)
    yield from _figure_checks(record, rec.recompute(record))
    yield from _accuracy_checks(record)
    adapter = record["adapter"]
    yield _hash_check(
        "adapter source", resolve_path(adapter["source_file"]), adapter["source_sha256"]
    )
    folder = resolve_path(record["inputs"]["dir"])
    for item in record["inputs"]["files"]:
        yield _hash_check(f"input {item['name']}", folder / item["name"], item["sha256"])
    for item in record.get("weights") or []:
        path = Path(item["path"])
        if weights_dir is not None:
            path = weights_dir / item["file"]
        yield _hash_check(f"weights {item['file']}", path, item["sha256"])


def load_record(path: Path) -> dict[str, Any]:
    """A record from disk, or a one-line error."""
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path}: not a readable JSON record ({exc})") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: a record is a JSON object")
    return data


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m measure verify")
    parser.add_argument("record", type=Path)
    parser.add_argument("--weights-dir", type=Path, help="where to find the weights files")
    parser.add_argument("--strict", action="store_true", help="fail on files not found here")
    args = parser.parse_args(argv[1:])
    try:
        record = load_record(args.record)
        results = checks(record, args.weights_dir)
        for check in results:
            failing = check.state == "mismatch" or (args.strict and check.state != "ok")
            line = f"{check.state:<11} {check.name}" + (f": {check.detail}" if check.detail else "")
            print(line, file=sys.stderr if failing else sys.stdout)
            if failing:
                print(
                    f"error: {args.record}: {check.name} {check.state}: {check.detail}",
                    file=sys.stderr,
                )
                return 1
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"verified {args.record}")
    return 0
