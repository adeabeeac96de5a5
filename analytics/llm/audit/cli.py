"""``python -m analytics audit {identity|protocols|metadata|all} [--catalog DIR] [--all]``:
the catalog audits. Each prints one line per unresolved finding (``--all``: the
resolved ones too, with why they are resolved) and a count; exit 1 when anything is
unresolved, 0 when the catalog is clean, 2 for bad arguments or an unreadable catalog.
``audit sample [--n 40] [--seed S]``: a random sample of models re-read fact by fact from their
makers' configs (``analytics.llm.audit.sample``); exit 1 when a fact is wrong."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import pandas as pd

from analytics.core import paths
from analytics.llm.audit import identity, metadata, organisations, protocols, sample
from analytics.llm.ingest import crosslinks, llmfit
from analytics.llm.ingest import overrides as ov
from analytics.llm.ingest.identity import match_key

AUDITS = ("identity", "protocols", "metadata")


def read_catalog(catalog: Path) -> dict[str, pd.DataFrame]:
    """The catalog tables the audits read (every cell as text, scores numeric)."""
    out = {}
    for name in ("models", "scores", "benchmarks", "disagreements"):
        path = catalog / f"{name}.csv"
        if not path.is_file() and name == "disagreements":
            continue  # a catalog built before the table: no disagreement is known
        if not path.is_file():
            raise FileNotFoundError(f"{path}: missing; fix: run python -m analytics ingest")
        out[name] = pd.read_csv(path, dtype=str, keep_default_na=False)
    out["scores"]["score"] = pd.to_numeric(out["scores"]["score"], errors="coerce")
    return out


def findings(name: str, tables: dict[str, pd.DataFrame], catalog: Path) -> list:
    """One audit's findings (objects with ``resolved`` and ``line()``)."""
    if name == "protocols":
        return protocols.audit(tables["scores"], tables["benchmarks"])
    table = ov.load(catalog / "overrides.csv", match_key=match_key)
    if name == "metadata":
        found = metadata.audit(tables["models"], tables["scores"], table.unpublished)
        hub_table = paths.SHARED_DATA_DIR / llmfit.CONFIGS_FILE
        hub = metadata.hub_configs(hub_table) if hub_table.is_file() else None
        return found + metadata.organisation_findings(tables["models"]) + organisations.audit(
            tables["models"]) + (
            metadata.disagreement_findings(
                tables["models"], tables["scores"], tables.get("disagreements"))) + (
            metadata.evidence_findings(tables["models"], tables["scores"], hub))
    apart = dict(table.apart)
    apart.update({pair: "same-name override" for pair in table.same_name})
    extract = catalog / "evidence" / crosslinks.EVIDENCE_CSV.name
    facts = crosslinks.read_extract(extract)[1] if extract.is_file() else None
    return identity.audit(tables["models"], tables["scores"], apart, facts)


def _sample(tables: dict[str, pd.DataFrame], n: int, seed: int) -> int:
    """``audit sample``: exit 2 without the Hub table, 1 when a fact is wrong, else 0."""
    hub_table = paths.SHARED_DATA_DIR / llmfit.CONFIGS_FILE
    if not hub_table.is_file():
        print(f"error: {hub_table} is absent; fix: the sample reads the makers' configs there "
              "(../shared/data, or set MODELATLAS_SHARED_DATA)", file=sys.stderr)
        return 2
    checked = sample.sample(tables["models"], sample.configs(hub_table), n, seed)
    lines = sample.report(checked)
    print("\n".join(lines))
    return 1 if any(c.outcome == sample.WRONG for checks in checked for c in checks) else 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m analytics audit", description=__doc__)
    parser.add_argument("audit", choices=(*AUDITS, "all", "sample"))
    parser.add_argument("--catalog", type=Path, default=paths.CATALOG_DIR)
    parser.add_argument("--all", action="store_true", help="list resolved findings too")
    parser.add_argument("--n", type=int, default=40, help="sample: how many models")
    parser.add_argument("--seed", type=int, default=0, help="sample: the draw's seed")
    args = parser.parse_args(argv[1:])
    try:
        tables = read_catalog(args.catalog)
    except (FileNotFoundError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.audit == "sample":
        return _sample(tables, args.n, args.seed)
    unresolved = 0
    for name in AUDITS if args.audit == "all" else (args.audit,):
        start = time.perf_counter()
        found = findings(name, tables, args.catalog)
        open_ = [f for f in found if not f.resolved]
        for item in found if args.all else open_:
            print(f"{name}: {item.line()}")
        seconds = time.perf_counter() - start
        print(
            f"audit {name}: {len(found)} findings, {len(found) - len(open_)} resolved, "
            f"{len(open_)} unresolved ({seconds:.1f} s)"
        )
        unresolved += len(open_)
    return 1 if unresolved else 0
