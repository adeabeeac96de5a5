"""How far two third-party release-date copies agree with the release dates the catalog has.

``fidelity(shared) -> dict`` loads the models.dev maker dates (:mod:`models_dev`, the copy in
``models-dev-facet/2026-09-16``) and LiteLLM first-seen days (:mod:`litellm_first_seen`, the
llmledger snapshot in ``arena-2026-10/llmledger-2026-10-21``) and pairs each with a dated catalog
model (``data/catalog/models.csv``): the lowercased name equals the ``model_id`` or one of the
``;``-separated ``aliases``. A name that reaches models of different release dates is left out
(counted as ambiguous). models.dev states release days, so it is scored by agreement (same day,
within 7 days, the largest differences); a first-seen day is a proxy that should fall on or after
the release, so it is scored by its lag (median, the share before the release). ``describe``
writes the figures as a paragraph; ``python -m analytics.llm.ingest.date_fidelity`` prints it.
"""

from __future__ import annotations

import csv
import statistics
from collections import defaultdict
from datetime import date
from pathlib import Path

from analytics.core import paths
from analytics.llm.ingest import litellm_first_seen, models_dev
from analytics.llm.ingest.common import Drops, ModelObs

MODELS_DEV_DIR = Path("models-dev-facet/2026-09-16")
LEDGER_FILE = Path("arena-2026-10/llmledger-2026-10-21/snapshot.json.gz")
NEAR_DAYS = 7
LARGEST = 5


def catalog_dates(catalog_csv: Path) -> tuple[dict[str, set[str]], dict[str, str]]:
    """(lowercased model_id / alias -> model ids, model id -> release date) of dated models."""
    spellings: dict[str, set[str]] = defaultdict(set)
    released: dict[str, str] = {}
    with open(catalog_csv, newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            day = (row.get("release_date") or "").strip()
            if not day:
                continue
            model_id = row["model_id"]
            released[model_id] = day
            for spelling in [model_id, *(row.get("aliases") or "").split(";")]:
                if spelling.strip():
                    spellings[spelling.strip().lower()].add(model_id)
    return spellings, released


def pair(
    observed: list[ModelObs], spellings: dict[str, set[str]], released: dict[str, str]
) -> tuple[list[dict], int]:
    """Matched rows {name, model_id, source, catalog, days} (source minus catalog) and the
    number of names left out because they reach models of different release dates."""
    rows, ambiguous = [], 0
    for obs in observed:
        ids = spellings.get(obs.name.lower())
        if not ids or obs.release_date is None:
            continue
        if len({released[i] for i in ids}) > 1:
            ambiguous += 1
            continue
        model_id = min(ids)
        days = (date.fromisoformat(obs.release_date) - date.fromisoformat(released[model_id])).days
        rows.append(
            {
                "name": obs.name,
                "model_id": model_id,
                "source": obs.release_date,
                "catalog": released[model_id],
                "days": days,
            }
        )
    return rows, ambiguous


def _share(count: int, total: int) -> float | None:
    return round(count / total, 3) if total else None


def _largest(rows: list[dict]) -> list[dict]:
    return sorted(rows, key=lambda r: (-abs(r["days"]), r["name"]))[:LARGEST]


def stated_agreement(rows: list[dict], ambiguous: int) -> dict:
    """Agreement of stated release days with the catalog's."""
    n = len(rows)
    return {
        "shared": n,
        "catalog_models": len({r["model_id"] for r in rows}),
        "ambiguous": ambiguous,
        "share_equal": _share(sum(r["days"] == 0 for r in rows), n),
        f"share_within_{NEAR_DAYS}d": _share(sum(abs(r["days"]) <= NEAR_DAYS for r in rows), n),
        "median_days": statistics.median(r["days"] for r in rows) if rows else None,
        "largest": _largest(rows),
    }


def proxy_lag(rows: list[dict], ambiguous: int) -> dict:
    """Lag of first-seen days behind the catalog's release days (positive: after it)."""
    n = len(rows)
    return {
        "shared": n,
        "catalog_models": len({r["model_id"] for r in rows}),
        "ambiguous": ambiguous,
        "median_lag_days": statistics.median(r["days"] for r in rows) if rows else None,
        "share_before_release": _share(sum(r["days"] < 0 for r in rows), n),
        "share_same_day": _share(sum(r["days"] == 0 for r in rows), n),
        f"share_within_{NEAR_DAYS}d": _share(sum(0 <= r["days"] <= NEAR_DAYS for r in rows), n),
        "largest": _largest(rows),
    }


def fidelity(shared: Path, catalog_csv: Path | None = None) -> dict:
    """Both comparisons against the catalog (``data/catalog/models.csv`` unless given)."""
    catalog_csv = catalog_csv or paths.CATALOG_DIR / "models.csv"
    spellings, released = catalog_dates(catalog_csv)
    stated = models_dev.load(shared / MODELS_DEV_DIR, Drops())
    seen = litellm_first_seen.load(shared / LEDGER_FILE, Drops())
    return {
        "catalog": str(catalog_csv),
        "catalog_dated": len(released),
        "models_dev": {"kept": len(stated), **stated_agreement(*pair(stated, spellings, released))},
        "litellm_first_seen": {"kept": len(seen), **proxy_lag(*pair(seen, spellings, released))},
    }


def _diffs(rows: list[dict]) -> str:
    return "; ".join(
        f"{r['name']} {r['source']} vs {r['catalog']} ({r['days']:+d} d)" for r in rows
    )


def _num(value: float | None) -> str:
    return "n/a" if value is None else f"{value:g}"


def _pct(share: float | None) -> str:
    return "n/a" if share is None else f"{share:.1%}"


def describe(result: dict) -> str:
    """One paragraph with the figures of :func:`fidelity`."""
    md, fs = result["models_dev"], result["litellm_first_seen"]
    near = f"share_within_{NEAR_DAYS}d"
    return (
        f"Against the {result['catalog_dated']} dated catalog models: models.dev's maker rows "
        f"({md['kept']} dated models) share {md['shared']} names with the catalog "
        f"({md['catalog_models']} models; {md['ambiguous']} ambiguous names left out); "
        f"{_pct(md['share_equal'])} give the same day and {_pct(md[near])} are within "
        f"{NEAR_DAYS} days (median difference {_num(md['median_days'])} d). Largest differences: "
        f"{_diffs(md['largest']) or 'none'}. LiteLLM first-seen days ({fs['kept']} models) "
        f"share {fs['shared']} names ({fs['catalog_models']} models); the median lag behind the "
        f"release is {_num(fs['median_lag_days'])} days, {_pct(fs['share_same_day'])} fall on the "
        f"release day, {_pct(fs[near])} within {NEAR_DAYS} days after it, and "
        f"{_pct(fs['share_before_release'])} come BEFORE the catalog's release date (a wrong "
        f"catalog date, a preview listed early, or a name the catalog reuses). Largest gaps: "
        f"{_diffs(fs['largest']) or 'none'}."
    )


if __name__ == "__main__":
    print(describe(fidelity(paths.SHARED_DATA_DIR)))
