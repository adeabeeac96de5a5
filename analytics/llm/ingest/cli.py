"""``python -m analytics ingest [--shared DIR] [--out DIR]``: rebuild data/catalog.

Every file is written to a temp file beside its target, and only when all are complete are they
renamed into place (``analytics.core.atomic.write_all``); on any error while writing nothing in
the output folder changes. ``GENERATION.sha256`` (their hashes) is written last, so a kill
between two renames leaves a mix that validation refuses instead of building. Prints row
counts and every reason rows were dropped.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from analytics.core import atomic, dispatch, paths, schema
from analytics.core.snapshot import generation
from analytics.llm.ingest import crosslinks, litgpt, measured_speed
from analytics.llm.ingest.build import FINETUNE_TABLE, Catalog, build
from analytics.llm.ingest.common import write_csv

FINETUNE_COLUMNS = litgpt.COLUMNS  # one definition, owned by the importer that fills it


def table_columns(name: str) -> tuple[str, ...]:
    """Column order of one output table (schema.TABLES, or the fine-tune memory table)."""
    if name == FINETUNE_TABLE:
        return FINETUNE_COLUMNS
    return tuple(col.name for col in schema.TABLES[name])


def write_catalog(catalog: Catalog, out: Path) -> list[str]:
    """Write every table atomically into `out` (all complete before any is renamed), then the
    generation list of their hashes, last: a kill between the renames leaves files that do
    not match the list, which validation refuses (``analytics.core.snapshot.generation``)."""
    fills = {out / f"{name}.csv": _csv_filler(name, rows) for name, rows in catalog.tables.items()}
    # the cross-link graph's evidence, so tests rebuild the graph without ../shared
    evidence = out / crosslinks.EVIDENCE_CSV.relative_to(paths.CATALOG_DIR)
    evidence.parent.mkdir(parents=True, exist_ok=True)
    text = crosslinks.extract_text(catalog.evidence)
    fills[evidence] = lambda temp: temp.write_text(text, encoding="utf-8")
    refused = out / measured_speed.REFUSED_CSV.relative_to(paths.CATALOG_DIR)
    listed = [dict(zip(measured_speed.REFUSED_COLUMNS, item, strict=True))
              for item in sorted(catalog.drops.listed)]
    fills[refused] = lambda temp: write_csv(temp, measured_speed.REFUSED_COLUMNS, listed)
    atomic.write_all(fills)
    generation.seal(out, list(fills))
    return [path.name for path in fills]


def _csv_filler(name: str, rows: list[dict]):
    """What writes one table's temp file."""
    return lambda temp: write_csv(temp, table_columns(name), rows)


def summary(catalog: Catalog) -> list[str]:
    """Human-readable counts, categories and drop reasons."""
    tables = catalog.tables
    categories = sorted({b["category"] for b in tables["benchmarks"]})
    kinds: dict[str, int] = {}
    for row in tables["scores"]:
        kinds[row["source_kind"]] = kinds.get(row["source_kind"], 0) + 1
    lines = [f"  {name:<16} {len(rows):>6} rows" for name, rows in tables.items()]
    lines.append(f"  categories ({len(categories)}): {', '.join(categories)}")
    lines.append(
        "  scores by source_kind: " + ", ".join(f"{k}={v}" for k, v in sorted(kinds.items()))
    )
    speeds: dict[str, int] = {}
    for row in tables.get("throughput", []):  # measured speeds: each kind is never mixed
        key = f"{row.get('kind') or 'unknown'} {row.get('phase') or ''}".strip()
        speeds[key] = speeds.get(key, 0) + 1
    if speeds:
        lines.append(
            "  throughput by kind: " + ", ".join(f"{k}={v}" for k, v in sorted(speeds.items()))
        )
    for src in tables.get("sources", []):
        lines.append(
            f"  source {src['source_id']:<22} {src['scores']:>6} scores  {src['models']:>5} models"
            f"  as of {src['as_of'] or '-'}"
        )
    lines += [f"  note: {note}" for note in catalog.notes]
    lines.append(f"  dropped rows: {catalog.drops.total}")
    return lines + catalog.drops.lines()


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m analytics ingest", description=__doc__)
    parser.add_argument("--shared", type=Path, default=None, help="shared/data folder")
    parser.add_argument("--out", type=Path, default=None, help="catalog folder to write")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point; argv[0] is the command name ('ingest')."""
    args = _parser().parse_args(list(argv or [])[1:])
    shared = args.shared or paths.SHARED_DATA_DIR
    out = args.out or paths.CATALOG_DIR
    if not shared.is_dir():
        print(f"error: {shared}: shared data folder is missing; pass --shared DIR", file=sys.stderr)
        return 2
    try:  # a bad source file is an IngestError, printed by the dispatcher (dispatch.run)
        catalog = build(shared)
        written = write_catalog(catalog, out)
    except (ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"ingest: wrote {len(written)} files to {out}")
    print("\n".join(summary(catalog)))
    return 0


if __name__ == "__main__":
    sys.exit(dispatch.run(main, ["ingest", *sys.argv[1:]]))
