"""The curated override table ``data/catalog/overrides.csv``: corrections no rule can derive.

Every row names its evidence (``source_url``, a public page) and a ``reason``. Actions:

``alias``       subject (a checkpoint name as a source spells it) is the checkpoint ``target``;
                with ``field`` = ``variant``, its rows are that setting (``value``) of it (an API
                name such as 'deepseek-reasoner' that serves one mode).
``distinct``    subject keeps an id of its own (``target``, or its slug): no loose, undated or
                weights-link rule may merge it into another model.
``weights``     subject (a name ending in a mode word, e.g. 'Kimi K2 Thinking') is a checkpoint of
                its own, released as separate weights: the word is not a variant.
``set``         metadata of model ``subject``: ``field`` = ``value`` (release_date, organisation,
                active_params_b, total_params_b, open_weights, licence_raw, display_name).
``drop-score``  a known-bad row: scores of ``subject`` on ``benchmark_id`` whose source name
                contains ``source_name`` (every source when empty) are dropped and counted.
``move-score``  those scores belong to model ``target`` (e.g. a preview system's results that a
                source filed under the released checkpoint).
``same-name``   models ``subject`` and ``target`` may share a normalised name (really distinct).
``distinct-from`` checkpoints ``subject`` and ``target`` are different models: the identity audit
                (``python -m analytics audit identity``) lists the pair as kept apart, with the
                row's reason.
``unpublished`` no public source states ``field`` (release_date, total_params_b, organisation) of
                model ``subject``: the cell stays empty, shown as unknown, and the metadata audit
                (``python -m analytics audit metadata``) settles its line with the row's reason
                (``source_url``: the page that should state it and does not). Never a guess.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from analytics.core import paths
from analytics.core.schema import ID_PATTERN

OVERRIDES_CSV = paths.CATALOG_DIR / "overrides.csv"
COLUMNS = (
    "action",
    "subject",
    "target",
    "benchmark_id",
    "source_name",
    "field",
    "value",
    "source_url",
    "reason",
)
ACTIONS = (
    "alias", "distinct", "weights", "set", "drop-score", "move-score", "same-name", "distinct-from",
    "unpublished",
)
UNPUBLISHABLE = ("release_date", "total_params_b", "organisation")
"""The fields an ``unpublished`` row may name: the facts the metadata audit asks for."""
SETTABLE = {
    "release_date": re.compile(r"^\d{4}-\d{2}-\d{2}$"),
    "organisation": re.compile(r"^\S.*$"),
    "display_name": re.compile(r"^\S.*$"),
    "licence_raw": re.compile(r"^\S.*$"),
    "active_params_b": re.compile(r"^\d+(\.\d+)?$"),
    "total_params_b": re.compile(r"^\d+(\.\d+)?$"),
    "open_weights": re.compile(r"^(true|false)$"),
}
_ID = re.compile(ID_PATTERN)
_URL = re.compile(r"^https?://[^\s/]+\.[^\s/]+(/\S*)?$")


@dataclass
class Overrides:
    """The table, grouped by action (rows keep their line number for messages)."""

    aliases: dict[str, str] = field(default_factory=dict)
    alias_variants: dict[str, str] = field(default_factory=dict)
    """match key -> the variant an alias row names (``field`` = ``variant``)."""
    distinct: dict[str, str | None] = field(default_factory=dict)
    weights: set[str] = field(default_factory=set)
    sets: dict[str, dict[str, str]] = field(default_factory=dict)
    score_rules: list[dict] = field(default_factory=list)
    same_name: set[frozenset[str]] = field(default_factory=set)
    rows: list[tuple[int, dict]] = field(default_factory=list)
    """(line, row) of every row, for the checks after the build (:func:`unapplied`)."""
    path: Path = OVERRIDES_CSV
    apart: dict[frozenset[str], str] = field(default_factory=dict)
    """checkpoint pair -> reason (``distinct-from`` rows)."""
    unpublished: dict[str, dict[str, str]] = field(default_factory=dict)
    """model id -> field -> reason no public source states it (``unpublished`` rows)."""

    def score_action(self, model_id: str, benchmark_id: str, source_name: str) -> dict | None:
        """The drop-score / move-score row that applies to one score, if any."""
        for rule in self.score_rules:
            if (
                rule["subject"] == model_id
                and rule["benchmark_id"] == benchmark_id
                and rule["source_name"].lower() in source_name.lower()
            ):
                return rule
        return None


def _valid(row: dict) -> bool:
    """A set value that parses as what its field holds: a real calendar date, a positive
    finite count."""
    value = row["value"]
    if row["field"] == "release_date":
        try:
            date.fromisoformat(value)
        except ValueError:
            return False
    if row["field"] in ("active_params_b", "total_params_b"):
        return 0 < float(value) <= 1e5
    return True


def _fail(path: Path, lineno: int, what: str, fix: str) -> ValueError:
    return ValueError(f"{path}:{lineno}: {what}; fix: {fix}")


def load(path: Path = OVERRIDES_CSV, match_key=None) -> Overrides:
    """Parse and check the table; a bad row raises ValueError naming file, line and fix.

    ``match_key`` normalises subject names (identity.match_key); passed in to avoid a cycle.
    """
    out = Overrides(path=path)
    if not path.is_file():
        return out
    problems: list[str] = []
    with open(path, newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        if tuple(reader.fieldnames or ()) != COLUMNS:
            raise _fail(path, 1, f"header is {reader.fieldnames}", f"use {','.join(COLUMNS)}")
        for lineno, raw in enumerate(reader, start=2):
            if None in raw or None in raw.values():
                extra = len(raw.get(None) or [])
                what = f"row has {len(COLUMNS) + extra if extra else 'fewer'} cells" + (
                    f" but the header has {len(COLUMNS)}"
                )
                problems.append(str(_fail(path, lineno, what, "quote cells that hold commas")))
                continue
            row = {k: (v or "").strip() for k, v in raw.items()}
            try:
                _add(out, path, lineno, row, match_key)
            except ValueError as exc:
                problems.append(str(exc))
                continue
            out.rows.append((lineno, row))
    problems += _alias_cycles(out, path, match_key)
    if problems:  # every row is checked before any is applied
        raise ValueError("\n".join(problems))
    return out


def _alias_cycles(out: Overrides, path: Path, match_key) -> list[str]:
    """One line per alias row whose chain of targets comes back to itself."""
    problems = []
    key_of = match_key or (lambda s: s)
    for lineno, row in [(n, r) for n, r in out.rows if r["action"] == "alias"]:
        seen, target = {key_of(row["subject"])}, row["target"]
        while key_of(target) in out.aliases and key_of(target) not in seen:
            seen.add(key_of(target))
            target = out.aliases[key_of(target)]
        if key_of(target) in seen and key_of(target) in out.aliases:
            what = f"alias {row['subject']!r} -> {row['target']!r} comes back to itself"
            problems.append(str(_fail(path, lineno, what, "point every alias at a final id")))
    return problems


def unapplied(
    out: Overrides,
    model_ids: set[str],
    checkpoint_ids: set[str],
    filled: dict[str, set[str]] | None = None,
) -> list[str]:
    """One line per row that the built catalog leaves without effect: a ``set`` on no model, an
    ``alias`` / ``distinct-from`` / ``move-score`` naming an id the catalog does not hold, an
    ``unpublished`` row on no model or on a field a source now states (``filled``: model id ->
    the fields its row holds)."""
    known = model_ids | checkpoint_ids
    problems = []
    for lineno, row in out.rows:
        action, subject, target = row["action"], row["subject"], row["target"]
        missing = []
        if action in ("set", "unpublished") and subject not in known:
            missing.append(subject)
        elif action == "unpublished" and row["field"] in (filled or {}).get(subject, set()):
            what = f"unpublished {row['field']} of {subject!r}, but the catalog now states it"
            problems.append(str(_fail(out.path, lineno, what, "delete the row")))
        elif action in ("alias", "distinct-from") and target not in known:
            missing.append(target)
        if action == "distinct-from" and subject not in known:
            missing.append(subject)
        if action == "move-score" and target not in model_ids:
            missing.append(target)
        for mid in missing:
            what = f"{action} names {mid!r}, which no model of the built catalog has"
            fix = "correct the id (models.csv) or delete the row"
            problems.append(str(_fail(out.path, lineno, what, fix)))
    return problems


def filled_fields(rows) -> dict[str, set[str]]:
    """model id -> the :data:`UNPUBLISHABLE` fields its row states (rows: dicts or records)."""
    out: dict[str, set[str]] = {}
    for row in rows:
        out[str(row["model_id"])] = {
            f for f in UNPUBLISHABLE if str(row.get(f) if row.get(f) is not None else "").lower()
            not in ("", "nan", "none", "unknown")  # 'unknown': the organisation rule's blank
        }
    return out


def _add(out: Overrides, path: Path, lineno: int, row: dict, match_key) -> None:
    action, subject, target = row["action"], row["subject"], row["target"]
    if action not in ACTIONS:
        raise _fail(path, lineno, f"action {action!r} is unknown", f"use one of {ACTIONS}")
    if not subject:
        raise _fail(path, lineno, "subject is empty", "name the model or spelling")
    if not _URL.match(row["source_url"]) or not row["reason"]:
        raise _fail(path, lineno, "source_url or reason missing", "cite a public page and why")
    needs_target = action in ("alias", "move-score", "same-name", "distinct-from")
    if needs_target and not _ID.match(target):
        raise _fail(path, lineno, f"target {target!r} is not a model id", "give the model_id")
    key = match_key(subject) if match_key else subject
    if action == "alias":
        if out.aliases.get(key, target) != target:
            raise _fail(path, lineno, f"{subject!r} already maps to {out.aliases[key]!r}",
                        "keep one target per spelling")
        out.aliases[key] = target
        if row["field"] == "variant":
            if not re.match(r"^[a-z0-9-]+$", row["value"]):
                raise _fail(path, lineno, f"variant {row['value']!r} is not a setting",
                            "write one such as thinking, high or 16k")
            out.alias_variants[key] = row["value"]
    elif action == "distinct":
        out.distinct[key] = target or None
    elif action == "weights":
        out.weights.add(key)
    elif action == "set":
        pattern = SETTABLE.get(row["field"])
        if pattern is None or not pattern.match(row["value"]) or not _valid(row):
            raise _fail(path, lineno, f"field {row['field']!r} = {row['value']!r} is not settable",
                        f"use one of {sorted(SETTABLE)} with a valid value")
        out.sets.setdefault(subject, {})[row["field"]] = row["value"]
    elif action in ("drop-score", "move-score"):
        if not row["benchmark_id"]:
            raise _fail(path, lineno, "benchmark_id is empty", "name the benchmark")
        out.score_rules.append({**row, "line": lineno})
    elif action == "unpublished":
        if row["field"] not in UNPUBLISHABLE or row["value"] or not _ID.match(subject):
            raise _fail(path, lineno, f"unpublished {row['field']!r} of {subject!r} with value "
                        f"{row['value']!r}", f"name a model id, one of {UNPUBLISHABLE}, no value")
        out.unpublished.setdefault(subject, {})[row["field"]] = row["reason"]
    elif action == "distinct-from":
        if not _ID.match(subject) or subject == target:
            raise _fail(path, lineno, f"subject {subject!r} is not another model id",
                        "give two different checkpoint ids")
        out.apart[frozenset((subject, target))] = row["reason"]
    else:
        out.same_name.add(frozenset((subject, target)))
