"""One benchmark: every model's headline score on it, best first, with source and provenance."""

from __future__ import annotations

import streamlit as st

import ui.data
from analytics.core.labels import csv_text
from analytics.llm import benchmark_view
from ui import format as fmt
from ui import llm
from ui.params import choice

OTHERS = {
    "display_name": "Model",
    "score_text": fmt.text_number_column("Score"),
    "provenance": "Provenance",
    "source_name": "Source",
    "source_url": st.column_config.LinkColumn("Link"),
    "date": st.column_config.DateColumn("Date"),
}


def headline_columns(unit: str) -> dict:
    """Human labels of the headline table (the unit goes in the score header, its decimals in
    the score's format: ``ui.format.UNIT_DECIMALS``)."""
    score = f"Score ({unit})" if unit else "Score"
    return {
        "position": fmt.count_column("#"),
        "display_name": "Model",
        "score": fmt.number_column(score, fmt.unit_decimals(unit)),
        "provenance": "Provenance",
        "source_name": "Source",
        "source_url": st.column_config.LinkColumn("Link"),
        "date": st.column_config.DateColumn("Date"),
        "overall_rank": fmt.count_column("Overall rank"),
        "details": st.column_config.LinkColumn("Details", display_text="open"),
    }


st.title("Benchmark")
version = ui.data.snapshot_version()
llm.show_freshness(version)
benchmarks = llm.load_benchmarks(version).set_index("benchmark_id", drop=False)
if benchmarks.empty:
    st.info("This snapshot has no benchmarks.")
    st.stop()
ids = list(benchmarks.index)
benchmark_id = choice(
    "Benchmark", ids, "benchmark", ids[0], key_prefix="bm",
    format_func=lambda b: f"{benchmarks.loc[b, 'name']} "
    f"({fmt.category_name(benchmarks.loc[b, 'category'])})",
)
st.query_params["benchmark"] = benchmark_id
facts = benchmarks.loc[benchmark_id]
st.caption(benchmark_view.describe(facts))
view = llm.load_benchmark_view(version, benchmark_id)
rows = view.headline
st.subheader(f"Headline scores ({fmt.plural(len(rows), 'model')})")
st.caption(
    "One score per model: the headline pick by source precedence (independent > arena > "
    "admin-run > curated > self-reported, then newest). Best first; equal scores share a place. "
    "Overall rank is the model's place on the Elo leaderboard (empty: unrated)."
)
if rows.empty:
    st.caption("No stored score on this benchmark yet.")
else:
    unit = facts["unit"] if isinstance(facts["unit"], str) else ""
    columns = headline_columns(unit)
    shown = rows.assign(details="llm_model?model=" + rows["model_id"].astype(str))
    llm.show_table(
        shown, "bm_table", columns, columns=list(columns), width="stretch",
    )
    download = [c for c in columns if c != "details"]
    st.download_button(
        "Download CSV", csv_text(shown[download], {c: llm.header(columns[c], c) for c in download}),
        f"benchmark_{benchmark_id}_{version}.csv", "text/csv", key="bm_csv",
    )
others = view.others
if not others.empty:  # the same decimals as the headline scores (one rule: ui.format)
    pairs = zip(others["score"], others["unit"], strict=True)
    others = others.assign(score_text=[fmt.score_text(v, u) for v, u in pairs])
if not others.empty and st.toggle(
    f"Show the other sources' scores ({len(others)}, not headline)", key="bm_others"
):
    llm.show_table(
        others, "bm_others_table", OTHERS, columns=list(OTHERS), width="stretch",
        csv=f"benchmark_{benchmark_id}_other_sources_{version}.csv",
    )
