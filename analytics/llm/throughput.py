"""Measured speeds on the chosen hardware (seed 002, "Hardware fit": throughput is only ever a
measured catalog row, never interpolated). Kinds never mix: llama.cpp single-stream decode speed,
MLPerf server throughput, community runs, benchmarkers and vendors each have their own column, for
exactly the chosen GPU and count; a same-release checkpoint's run is labelled "measured on ...".
"""

from __future__ import annotations

import pandas as pd

from analytics.llm import checkpoints


def measured_throughput(
    throughput: pd.DataFrame,
    gpu_id: str,
    gpu_count: int,
    model_aliases: dict[str, list[str]] | None = None,
    phase: str = "generation",
) -> pd.DataFrame:
    """Measured tok/s per model on exactly this GPU and count (never interpolated).

    Returns columns model_id, tokens_per_s, quant, source_url: one row per model (a Q4 row when
    one exists, matching the Q4 fit verdict, else the fastest measured quantisation).
    ``model_aliases`` maps a catalog model_id to other labels a source used for it. Models
    without a measured row are absent.
    """
    cols = ["model_id", "tokens_per_s", "quant", "source_url"]
    if throughput is None or throughput.empty:
        return pd.DataFrame(columns=cols)
    rows = throughput[
        (throughput["gpu_id"].str.lower() == gpu_id.lower())
        & (throughput["gpu_count"].astype(int) == int(gpu_count))
        & (throughput["phase"] == phase)
    ]
    label_to_model = {}
    for model_id, labels in (model_aliases or {}).items():
        for label in [model_id, *labels]:
            label_to_model.setdefault(label.lower(), model_id)
    rows = rows.assign(model_id=[label_to_model.get(m.lower(), m) for m in rows["model_id"]])
    rows = rows.assign(_q4=rows["quant"].str.upper().str.startswith("Q4"))
    rows = rows.sort_values(["_q4", "tokens_per_s"], ascending=[False, False])
    best = rows.drop_duplicates("model_id")
    return best[cols].reset_index(drop=True)


SINGLE_STREAM, SERVER = "single-stream", "server"
COMMUNITY, BENCHMARKER, VENDOR = (
    "community-single-stream", "benchmarker-single-stream", "vendor-aggregate"
)
"""Issue 29 kinds: community runs (median of runs, with their count and range), a benchmarker's
runs, a vendor's offline aggregate per GPU (docs/calculators.md, "Measured speeds")."""
THROUGHPUT_KINDS = (SINGLE_STREAM, SERVER, COMMUNITY, BENCHMARKER, VENDOR)
ONE_STREAM_KINDS = (SINGLE_STREAM, COMMUNITY, BENCHMARKER)
LLAMA_CPP_SOURCE = "GPU-Benchmarks-on-LLM-Inference"  # the llama.cpp single-stream source repo
SCENARIO_ORDER = ("Offline", "Server", "Interactive")  # MLPerf scenario shown first, if measured
MEASURED = "measured"
SPEED_FIELDS = ("tokens_per_s", "quant", "scenario", "system", "measured_on", "applies",
                "source_url", "source_name", "engine", "n_runs", "tokens_per_s_min",
                "tokens_per_s_max", "date")
"""Per kind, :func:`measured_speeds` returns ``<kind prefix>_<field>`` for each of these."""
KIND_PREFIX = {SINGLE_STREAM: "single_stream", SERVER: "server", COMMUNITY: "community",
               BENCHMARKER: "benchmarker", VENDOR: "vendor"}


def throughput_kinds(throughput: pd.DataFrame) -> pd.Series:
    """Each row's kind: the ``kind`` column ("single-stream" / "server"); in a catalog without
    it (built before kinds were recorded) a row of the llama.cpp benchmark repository is
    single-stream, any other row's kind is unknown (empty) and it is never shown."""
    if "kind" in throughput:
        kind = throughput["kind"].fillna("").astype(str).str.strip().str.casefold()
    else:
        kind = pd.Series("", index=throughput.index)
    url = throughput.get("source_url", pd.Series("", index=throughput.index))
    llama_cpp = url.fillna("").astype(str).str.contains(LLAMA_CPP_SOURCE, regex=False)
    kind = kind.where(kind != "", llama_cpp.map({True: SINGLE_STREAM, False: ""}))
    return kind.where(kind.isin(THROUGHPUT_KINDS), "")


def measured_speeds(
    throughput: pd.DataFrame,
    models: pd.DataFrame,
    gpu_id: str,
    gpu_count: int,
    phase: str = "generation",
) -> pd.DataFrame:
    """Measured tok/s per checkpoint on exactly ``gpu_count`` x ``gpu_id`` (seed 002: only a
    measured row, never interpolated), one column set per kind (never one number for both):
    ``single_stream_*`` (llama.cpp decode speed of one stream) and ``server_*`` (MLPerf
    aggregate throughput under its scenario's latency bound), each with ``SPEED_FIELDS``.

    A throughput row names a catalog model (``model_id``, else one of its ``aliases``; other
    labels match nothing). It applies to that model's checkpoint (``applies`` = "measured") and,
    labelled "measured on <that checkpoint's name>", to the checkpoints sharing both its
    non-empty ``weights_release`` and ``arch_key`` (the base and instruct checkpoints of one
    release); never to anything else. Per checkpoint and kind one row is shown: its own rows
    before a sibling's; single-stream: a Q4 quantisation first (the verdict's), then the fastest;
    server: the first of :data:`SCENARIO_ORDER` measured, then the highest figure. Returns one
    row per checkpoint that has any, indexed by ``checkpoint_id``.
    """
    cols = [f"{KIND_PREFIX[k]}_{f}" for k in THROUGHPUT_KINDS for f in SPEED_FIELDS]
    empty = pd.DataFrame(columns=cols, index=pd.Index([], name="checkpoint_id"))
    if throughput is None or throughput.empty or models is None or models.empty:
        return empty
    rows = throughput[
        (throughput["gpu_id"].astype(str).str.casefold() == str(gpu_id).casefold())
        & (pd.to_numeric(throughput["gpu_count"], errors="coerce") == int(gpu_count))
        & (throughput["phase"].astype(str) == phase)
    ].copy()
    rows["kind"] = throughput_kinds(rows)
    rows = rows[rows["kind"] != ""]
    if rows.empty:
        return empty
    needed = ["model_id", "checkpoint_id", "display_name", "variant", "weights_release", "arch_key"]
    ck = checkpoints.one_row_per_checkpoint(models[[c for c in needed if c in models]], None)
    ck = ck.set_index("checkpoint_id")  # only the fields _own_and_siblings reads: cheaper
    rows["_source_ck"] = rows["model_id"].astype(str).str.casefold().map(_label_checkpoints(models))
    rows = rows[rows["_source_ck"].notna()]
    applied = _own_and_siblings(rows, ck)
    if applied.empty:
        return empty
    parts = [_pick(applied[applied["kind"] == kind], kind) for kind in THROUGHPUT_KINDS]
    out = pd.concat(parts, axis=1)
    return out.reindex(columns=cols).rename_axis("checkpoint_id")


def _label_checkpoints(models: pd.DataFrame) -> dict[str, str]:
    """Lower-cased model_id, then alias -> checkpoint_id (an id wins over another's alias)."""
    keys = checkpoints.checkpoint_ids(models)
    out = dict(zip(models["model_id"].astype(str).str.casefold(), keys, strict=True))
    if "aliases" in models:
        for raw, key in zip(models["aliases"], keys, strict=True):
            text = raw if isinstance(raw, str) else ""
            for alias in (a.strip().casefold() for a in text.split(";")):
                if alias:
                    out.setdefault(alias, key)
    return out


def _own_and_siblings(rows: pd.DataFrame, ck: pd.DataFrame) -> pd.DataFrame:
    """Each row on its own checkpoint ("measured", order 0), and on every checkpoint sharing
    its weights_release and arch_key ("measured on <name>", order 1)."""
    release = _text_column(ck, "weights_release")
    arch = _text_column(ck, "arch_key")
    names = ck["display_name"].astype(str)
    own = rows.assign(checkpoint_id=rows["_source_ck"], applies=MEASURED, _order=0)
    siblings = []
    for source, group in rows.groupby("_source_ck"):
        if source not in ck.index or not release[source] or not arch[source]:
            continue
        same = ck.index[(release == release[source]) & (arch == arch[source])]
        label = f"measured on {names[source]}"
        siblings += [
            group.assign(checkpoint_id=other, applies=label, _order=1)
            for other in same
            if other != source
        ]
    return pd.concat([own, *siblings], ignore_index=True)


def _text_column(table: pd.DataFrame, column: str) -> pd.Series:
    if column not in table:
        return pd.Series("", index=table.index)
    return table[column].fillna("").astype(str).str.strip()


def _pick(rows: pd.DataFrame, kind: str) -> pd.DataFrame:
    """The one row shown per checkpoint for one kind, as ``<prefix>_<field>`` columns."""
    prefix = KIND_PREFIX[kind]
    if rows.empty:
        return pd.DataFrame(columns=[f"{prefix}_{f}" for f in SPEED_FIELDS])
    rows = rows.copy()
    for field in SPEED_FIELDS:
        if field not in rows:
            rows[field] = None
    rows["tokens_per_s"] = pd.to_numeric(rows["tokens_per_s"], errors="coerce")
    rows = rows[rows["tokens_per_s"].notna()]
    if kind in ONE_STREAM_KINDS:
        rows["_pref"] = ~rows["quant"].fillna("").astype(str).str.upper().str.startswith("Q4")
    else:
        rank = {s.casefold(): i for i, s in enumerate(SCENARIO_ORDER)}
        scen = rows["scenario"].fillna("").astype(str).str.casefold()
        rows["_pref"] = scen.map(rank).fillna(len(SCENARIO_ORDER))
    rows = rows.sort_values(
        ["checkpoint_id", "_order", "_pref", "tokens_per_s", "source_url"],
        ascending=[True, True, True, False, True],
    )
    best = rows.drop_duplicates("checkpoint_id").set_index("checkpoint_id")
    best = best[list(SPEED_FIELDS)]
    return best.rename(columns={f: f"{prefix}_{f}" for f in SPEED_FIELDS})


KIND_LABELS = {
    SINGLE_STREAM: "llama.cpp single stream", SERVER: "MLPerf server (aggregate)",
    COMMUNITY: "community single stream", BENCHMARKER: "benchmarker single stream",
    VENDOR: "vendor aggregate per GPU",
}
"""How each throughput kind is named wherever a speed is shown."""


def model_speeds(throughput: pd.DataFrame, models: pd.DataFrame, model_id: str) -> pd.DataFrame:
    """Every measured speed row of ``model_id``'s checkpoint (matched by id or alias, as on the
    hardware-fit page), on any GPU, with its kind named: kind, gpu_id, gpu_count, phase,
    tokens_per_s, n_runs, range, quant, engine, date, source_name, source_url."""
    cols = ["kind", "gpu_id", "gpu_count", "phase", "tokens_per_s", "n_runs", "tokens_per_s_min",
            "tokens_per_s_max", "quant", "engine", "scenario", "date", "source_name",
            "source_url"]
    if throughput is None or throughput.empty or models is None or models.empty:
        return pd.DataFrame(columns=cols)
    labels = _label_checkpoints(models)
    ids = models["model_id"].astype(str)
    keys = checkpoints.checkpoint_ids(models)
    checkpoint = dict(zip(ids, keys, strict=True)).get(model_id, model_id)
    rows = throughput.assign(kind=throughput_kinds(throughput))
    rows = rows[(rows["kind"] != "")
                & (rows["model_id"].astype(str).str.casefold().map(labels) == checkpoint)]
    rows = rows.assign(kind=rows["kind"].map(KIND_LABELS))
    rows = rows.reindex(columns=cols)
    return rows.sort_values(["phase", "kind", "gpu_id", "gpu_count"]).reset_index(drop=True)
