"""One LLM: its rating, every stored score with its source, lineage and capability profile."""

from __future__ import annotations

from urllib.parse import quote

import streamlit as st

import ui.data
from analytics.llm import api_facts, leaderboard, profiles
from ui import format as fmt
from ui import llm, params

SCORE_COLUMNS = {
    "benchmark_name": st.column_config.TextColumn("Benchmark", width="large"),
    "category": st.column_config.TextColumn("Category", width="medium"),
    "score_text": fmt.text_number_column(
        "Score", width="small", help="With its unit's decimals: % and 0-100 scores to 0.1."
    ),
    "unit": st.column_config.TextColumn("Unit", width="small"),
    "is_headline": st.column_config.CheckboxColumn(
        "Headline", help="The score that enters the rating."
    ),
    "set_aside_for": st.column_config.TextColumn(
        "Set aside for", help="Another view of the same evaluation (same votes, a copy of the "
        "board, or a newer release of the suite) enters the rating instead: this benchmark.",
    ),
    "source": "Source kind",
    "source_name": "Source",
    "method": st.column_config.TextColumn(
        "Method", help="How the source says it ran the score (shots, chain of thought, subset)."
    ),
    "date": st.column_config.DateColumn("Date"),
    "source_url": st.column_config.LinkColumn("Link"),
}


def pick_model(board: leaderboard.Leaderboard) -> str:
    """Model picker bound to the ``model`` query parameter; a former or merged id opens the
    model it now belongs to with a notice, an unknown one says so and offers a search."""
    names = dict(zip(board.models["model_id"], board.models["display_name"], strict=True))
    ids = list(board.table["model_id"]) + sorted(set(names) - set(board.table["model_id"]))
    target = leaderboard.resolve_link(board, params.param("model", "") or None)
    if target.model_id is None and target.notice:
        closest = ", ".join(f"{names.get(m, m)} ({m})" for m in target.closest) or "none"
        st.warning(
            f"{target.notice} Closest: {closest}. Pick one below or [search the leaderboard]"
            f"(llm_leaderboard?q={quote(str(st.query_params.get('model', ''))[:100])}).",
            icon=":material/search:",
        )
    elif target.notice:
        st.info(target.notice, icon=":material/merge:")
    default = target.model_id or (ids[0] if ids else None)
    model_id = st.selectbox(
        "Model", ids, index=ids.index(default) if default in ids else 0, key="lm_model",
        format_func=lambda m: f"{names.get(m) or m} ({m})",
    )
    st.query_params["model"] = model_id
    return model_id


def show_summary(summary: leaderboard.ModelSummary, facts: api_facts.ModelApi) -> None:
    """Four short metrics (each value fits a quarter of the page at 1400 px; the long facts go
    in their help and in the lines below)."""
    st.header(summary.display_name)
    if facts.release_line():
        st.caption(facts.release_line())
    if facts.disagreement_line():
        st.caption(facts.disagreement_line())
    cols = st.columns(4)
    licence = f"Licence class: **{summary.licence_class}** (licence: {summary.licence_raw or '—'})."
    if summary.rating is None:
        cols[0].metric("Elo", "—", help="No stored scores, so no rating.")
        st.markdown(licence)
        return
    interval = summary.interval_text
    cols[0].metric("Elo", fmt.elo_text(summary.rating), help=f"95% interval {interval}")
    if summary.rank is None:
        label = "provisional" if summary.provisional else "unrated"
        cols[1].metric("Rank", label, help=summary.rank_text)
    else:
        cols[1].metric("Rank", str(summary.rank), help=f"bootstrap range: {summary.rank_text}")
    cols[2].metric("Benchmarks", f"{summary.n_benchmarks:,}", help="with a stored score")
    cols[3].metric("Categories", f"{summary.n_categories:,}", help="of those benchmarks")
    st.markdown(licence)
    st.caption(f"Provenance of headline scores: {summary.provenance}. 95% interval: {interval}.")
    st.caption(rank_line(summary))


def rank_line(summary: leaderboard.ModelSummary) -> str:
    """The rank with its range and LMArena's upper-bound rank, the same numbers as the
    leaderboard's row; or why there is no rank."""
    if summary.rank is None:
        return f"No rank: {summary.rank_text}."
    span = leaderboard.rank_range_text(summary.rank_low, summary.rank_high) or "—"
    ub = "—" if summary.rank_ub is None else str(summary.rank_ub)
    return (
        f"Rank {summary.rank} · rank range {span} (95% of bootstrap resamples) · Rank (LMArena) "
        f"{ub} (1 + the models whose whole interval lies above) · publishers: "
        f"{summary.publishers or '—'}."
    )


def _links(urls: tuple[str, ...]) -> str:
    """' ([source](url))' for one URL, ' (sources: [1](u1), [2](u2))' for several, '' for none."""
    if not urls:
        return ""
    if len(urls) == 1:
        return f" ([source]({urls[0]}))"
    return " (sources: " + ", ".join(f"[{i}]({u})" for i, u in enumerate(urls, 1)) + ")"


def show_api(facts: api_facts.ModelApi) -> None:
    """The API price with the day it applies from and the API speed as served, each linked to
    its source; one quiet line when neither is known."""
    st.subheader("API")
    if facts.price is None and facts.speed is None:
        st.caption("No API price or API speed is recorded for this model.")
        return
    if facts.price is not None:
        line = facts.price.line().removesuffix(".").replace("$", r"\$")  # a bare $ opens LaTeX
        st.markdown(f"**Price:** {line}{_links(facts.price.source_urls)}.")
    else:
        st.caption("No API price is recorded for this model.")
    if facts.speed is not None:
        url = (facts.speed.source_url,) if facts.speed.source_url else ()
        st.markdown(f"**Speed:** {facts.speed.line().removesuffix('.')}{_links(url)}.")
        st.caption(
            "The API's speed as served, not a GPU's: the hardware-fit page shows measured GPU "
            "speeds (llama.cpp single stream, MLPerf server throughput)."
        )
    else:
        st.caption("No API speed is recorded for this model.")


SPEED_COLUMNS = {
    "kind": "Kind",
    "gpu_id": "GPU",
    "gpu_count": st.column_config.NumberColumn("GPUs", format="%d"),
    "phase": "Phase",
    "tokens_per_s": fmt.number_column("tok/s", 1),
    "n_runs": fmt.count_column("Runs"),
    "tokens_per_s_min": fmt.number_column("Slowest run (tok/s)", 1),
    "tokens_per_s_max": fmt.number_column("Fastest run (tok/s)", 1),
    "quant": "Quant",
    "engine": "Engine",
    "scenario": "Workload",
    "date": st.column_config.DateColumn("Date"),
    "source_name": "Source",
    "source_url": st.column_config.LinkColumn("Link"),
}

LINEAGE_COLUMNS = {
    "relation": "Relation",
    "display_name": "Model",
    "release_date": st.column_config.DateColumn("Released"),
    "rating": fmt.elo_column(),
    "details": st.column_config.LinkColumn("Details", display_text="open"),
}


def show_lineage(board: leaderboard.Leaderboard, model_id: str) -> None:
    st.subheader("Lineage")
    family = leaderboard.lineage_of(board, model_id)
    if family.empty:
        st.caption("No predecessor or successor in the catalog (same-day releases are variants).")
        return
    llm.show_table(
        family.assign(details="llm_model?model=" + family["model_id"]), "lm_lineage",
        LINEAGE_COLUMNS, columns=list(LINEAGE_COLUMNS), width="stretch",
    )


st.title("Model detail")
version = ui.data.snapshot_version()
llm.show_freshness(version)
board = llm.load_board(version)
model_id = pick_model(board)
facts = api_facts.model_api_of(board.api, model_id)
show_summary(leaderboard.model_summary(board, model_id), facts)
show_api(facts)
st.subheader("Every stored score")
st.caption("All sources are kept apart; the headline score per benchmark follows precedence.")
scores = leaderboard.model_scores(board, model_id)
scores = scores.assign(
    score_text=[fmt.score_text(v, u) for v, u in zip(scores["score"], scores["unit"], strict=True)],
    category=[fmt.category_name(c) for c in scores["category"]],
)
llm.show_table(
    scores, "lm_scores", SCORE_COLUMNS, columns=list(SCORE_COLUMNS),
    csv=f"llm_scores_{model_id}_{version}.csv", width="stretch",
    csv_frame=scores.assign(score_text=scores["score"]),  # the CSV keeps every digit
)
st.subheader("Measured speeds on GPUs")
speeds = llm.load_model_speeds(version, model_id)
if speeds.empty:
    st.caption("No measured GPU speed is recorded for this model (speeds are never estimated).")
else:
    st.caption("Each kind is its own measurement and is never compared with another: one "
               "stream (llama.cpp table, community runs as a median with their count and range, "
               "a benchmarker's runs) or an aggregate of many requests (vendor, MLPerf).")
    llm.show_table(speeds, "lm_speeds", SPEED_COLUMNS, columns=list(SPEED_COLUMNS),
                   width="stretch")
show_lineage(board, model_id)
st.subheader("Capability profile")
radar = profiles.radar_data(board.profiles, [model_id])
if radar.empty:
    st.caption("No scores against benchmarks with curated bounds.")
else:
    radar = radar.assign(category=[fmt.category_name(c) for c in radar["category"]])
    st.plotly_chart(fmt.readable(profiles.radar_figure(radar), min_height=420), key="lm_radar")
