"""Compare up to four LLMs on their category capability profiles (not a ranking)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

import ui.data
from analytics.core.labels import csv_text
from analytics.llm import benchmark_view, profiles
from ui import format as fmt
from ui import llm
from ui.params import multi_param


def shared_columns(result: benchmark_view.CompareTable, names: dict[str, str]) -> dict:
    """Human labels of the shared-benchmarks table: a score and a source column per model."""
    columns: dict = {
        "benchmark_name": "Benchmark",
        "page": st.column_config.LinkColumn("Page", display_text="open"),
        "category": "Category",
        "unit": "Unit",
        "better": "Better",
    }
    for m in result.model_ids:  # each row its benchmark's unit: scores as text, per row
        columns[benchmark_view.score_column(m)] = fmt.text_number_column(names.get(m, m))
        columns[benchmark_view.source_column(m)] = f"{names.get(m, m)}: source"
    return columns | {"winner_name": "Winner"}


WIN_COLUMNS = {"display_name": "Model", "shared": "Shared benchmarks", "wins": "Wins",
               "ties": "Ties"}
WIN_FORMATS = {label: fmt.count_column(label) for label in ("Shared benchmarks", "Wins", "Ties")}
PROFILE_COLUMNS = {"_index": "Category"}
RATING_COLUMNS = {
    "display_name": "Model",
    "rating": fmt.elo_column(),
    "rank": fmt.count_column("Overall rank"),
    "provenance": "Provenance",
}


def show_shared(result: benchmark_view.CompareTable, names: dict[str, str]) -> None:
    """The side-by-side table of benchmarks at least two chosen models share, and the wins."""
    st.subheader("Shared benchmarks, side by side")
    table = result.table
    if table.empty:
        st.caption("No benchmark has a headline score from two of these models.")
        return
    st.caption(
        "One row per benchmark that at least two of the chosen models have a headline score on "
        "(the score the leaderboard uses, with its source). Winner: the best score by the "
        "benchmark's direction; tie when the best is shared. Raw wins, not a rating."
    )
    scores = {
        col: [fmt.score_text(v, u) for v, u in zip(table[col], table["unit"], strict=True)]
        for col in map(benchmark_view.score_column, result.model_ids)
    }
    shown = table.assign(
        page="llm_benchmark?benchmark=" + table["benchmark"].astype(str),
        better=table["higher_is_better"].map({True: "higher", False: "lower"}),
        winner_name=table["winner"].map(lambda w: names.get(w, w)),
        category=[fmt.category_name(c) for c in table["category"]],
        **scores,
    )
    columns = shared_columns(result, names)
    st.dataframe(
        shown[list(columns)], column_config=columns, hide_index=True, key="cmp_shared",
        width="stretch", placeholder="—",
    )
    wins = result.wins.drop(columns="model_id").rename(columns=WIN_COLUMNS)
    llm.show_table(wins, "cmp_wins", WIN_FORMATS)
    summary = " · ".join(f"{n} {w}" for n, w in zip(wins["Model"], wins["Wins"], strict=True))
    n_ties = int((table["winner"] == benchmark_view.TIE).sum())
    st.caption(f"Wins: {summary} · tie {n_ties}, of {fmt.plural(len(table), 'shared benchmark')}.")
    st.download_button(
        "Download CSV", _csv(table, result, names), f"llm_compare_{version}.csv", "text/csv",
        key="cmp_csv",
    )


def _csv(table: pd.DataFrame, result: benchmark_view.CompareTable, names: dict[str, str]) -> str:
    labels = {}
    for m in result.model_ids:
        labels[benchmark_view.score_column(m)] = f"{names.get(m, m)} score"
        labels[benchmark_view.source_column(m)] = f"{names.get(m, m)} source"
    return csv_text(table, labels)


st.title("Compare models")
st.caption(
    f"{profiles.PROFILE_LABEL}. Each axis is the mean of the model's headline scores in that "
    "category, each placed between the benchmark's curated lower (0) and upper (100) bound; an "
    "empty axis means no score there, not zero. For the ranking, see the Elo leaderboard."
)
version = ui.data.snapshot_version()
llm.show_freshness(version)
board = llm.load_board(version)
names = dict(zip(board.table["model_id"], board.table["display_name"], strict=True))
ids = list(names)
wanted = multi_param("models", ids)
most = profiles.MAX_RADAR_MODELS
chosen = st.multiselect(
    f"Models (up to {most})", ids, default=wanted[:most] or ids[:2], max_selections=most,
    format_func=lambda m: names[m], key="cmp_models",
)
st.query_params["models"] = chosen
if not chosen:
    st.info("Pick at least one model.")
    st.stop()
radar = profiles.radar_data(board.profiles, chosen)
radar = radar.assign(category=[fmt.category_name(c) for c in radar["category"]])
st.plotly_chart(fmt.readable(profiles.radar_figure(radar, names), min_height=460), key="cmp_radar")
st.caption(
    "Reading a gap: an axis is the model's category profile, the mean of its headline scores in "
    "that category, each normalised against the benchmark's curated bounds (0 = lower, 100 = "
    "upper, flipped where lower is better). It is not a rating. A gap of 10 points (0.1 of the "
    "scale) means the two models sit, on average, 10 % of the benchmark range apart; the means "
    "may cover different benchmarks, so see the shared table below for like-for-like scores."
)
table = radar.pivot(index="category", columns="model", values="value")[chosen]
profile = {names[m]: fmt.number_column(f"{names[m]} (0-100)", 1) for m in chosen}
llm.show_table(
    table.rename(columns=names), "cmp_table", PROFILE_COLUMNS | profile, hide_index=False
)
ratings = board.table.set_index("model_id").loc[chosen].reset_index()
st.caption("Elo ratings of the same models, for reference (ranks are of the whole leaderboard):")
llm.show_table(ratings, "cmp_ratings", RATING_COLUMNS, columns=list(RATING_COLUMNS))
show_shared(benchmark_view.compare_table(board, chosen), names)
