"""Federated ranked track: final and Protocol A/B/C scores per method and model, with points."""

from __future__ import annotations

import plotly.express as px
import streamlit as st

from analytics.fl import board as flb
from analytics.fl import review
from ui import fl
from ui import format as fmt
from ui.params import pick

KEYS = "fl_ranked"  # widget-key prefix of this page

SCORES = {
    "rank": fmt.count_column("Rank"),
    "method": "Method",
    **{
        p: fmt.number_column(f"Protocol {p}", 2, help=help_text)  # seed 001: two decimals
        for p, help_text in (
            ("A", "Checkpoint quality: accuracy and loss of the best checkpoint."),
            ("B", "Efficiency: simulated costs to reach each accuracy target."),
            ("C", "Robustness: the A-selected checkpoint under perturbed conditions."),
        )
    },
    "final": fmt.number_column("Final score", 2, help="(A + B + C) / 3"),
}
BREAKDOWN = {
    "protocol": "Protocol",
    "model": "Model",
    "dataset": "Dataset",
    "condition": st.column_config.TextColumn(
        "Condition", width="medium",
        help="What the comparison compares: A the nominal run's best checkpoint, B the first "
        "checkpoint reaching the accuracy target, C a perturbed run against the nominal one.",
    ),
    "metric": "Metric",
    "value": fmt.text_number_column("Value", help="In the metric's own unit (C: the absolute "
                                    "change from the nominal run)."),
    "n": fmt.count_column("Methods compared"),
    "rank": fmt.count_column("Rank"),
    "points": fmt.count_column("Points"),
}
COST_METRICS = ["accuracy", "loss", "time_s", "comm_bytes", "energy_j", "peak_mem_bytes"]


def breakdown_table(method: str, protocol: str):
    """Points per comparison of one method and protocol: human names, each value in its unit."""
    rows = flb.breakdown(board, method, protocol)
    pairs = zip(rows["metric"], rows["value"], strict=True)
    values = [fl.metric_value_text(m, v) for m, v in pairs]
    names = [fl.METRIC_NAMES.get(m, fmt.fallback_name(m)) for m in rows["metric"]]
    return fl.named_runs(rows).assign(metric=names, value=values)


board = fl.board()
st.title("Federated ranked track")
for line in board.reference_damage:  # our own results changed or gone: said first, never folded
    st.error(line)
st.caption(
    "Scores combine checkpoint quality with system costs from the common simulator "
    "(final = (A + B + C) / 3; a missing protocol counts 0). The API keeps four decimals; "
    "two are shown here, so equal-looking values can differ. Local Only and Centralized are "
    "references, shown apart and never ranked. Only our reference runs and uploads a "
    "maintainer accepted are scored; unverified uploads are listed at the bottom."
)

with st.container(key="fl_disclosures"):
    st.markdown(f"**What these reference runs are** (details: `{flb.DOCS}`, shown below)")
    for line in flb.disclosures(board):
        st.markdown(f"- {line}")
    with st.expander(f"{flb.DOCS}: {flb.DOCS_SECTION}"):
        st.markdown(flb.docs_section())

st.subheader("Overall ranking")
overall = flb.leaderboard(board)
fl.show_table(overall, "fl_overall", SCORES, csv="fl_ranking.csv")
long = overall.melt(id_vars="method", value_vars=["A", "B", "C", "final"], var_name="score")
long["score"] = long["score"].map({"A": "Protocol A", "B": "Protocol B", "C": "Protocol C",
                                   "final": "Final score"})
scores_chart = px.bar(
    long, x="method", y="value", color="score", barmode="group",
    labels={"method": "Method", "value": "Score (points, 0-10)", "score": ""},
)
st.plotly_chart(fmt.readable(scores_chart), key="fl_scores_chart")

st.subheader("Per model")
model = pick(
    "Model", list(board.policy.models), "model", key_prefix=KEYS, format_func=fmt.fl_model_name
)
fl.show_table(flb.leaderboard(board, model), "fl_per_model", SCORES, csv=f"fl_ranking_{model}.csv")

st.subheader("Points per comparison")
if board.methods:
    method = pick("Method", board.methods, "method", key_prefix=KEYS)
    protocol = pick(
        "Protocol", ["A", "B", "C"], "protocol", key_prefix=KEYS, format_func=fmt.protocol_name
    )
    fl.show_table(
        breakdown_table(method, protocol), "fl_breakdown", BREAKDOWN,
        columns=[c for c in BREAKDOWN if c != "protocol"],  # one protocol: chosen above
        csv=f"fl_points_{method}_{protocol}.csv",
    )

st.subheader("Reference baselines (not ranked)")
st.caption(
    "The Protocol A checkpoint of each reference method per model and dataset; costs are "
    "cumulative at that checkpoint, each column in one unit."
)
references, cost_config = fl.metric_table(fl.named_runs(board.scores.references), COST_METRICS)
fl.show_table(references, "fl_references", cost_config, csv="fl_references.csv")

st.subheader("Seed spread")
gaps = flb.gap_summary(board)
st.caption(
    f"Each score and value above comes from the first seed's runs. Over {len(board.seeds)} "
    f"seeds ({', '.join(str(s) for s in board.seeds)}), {gaps['gaps']} gaps between methods "
    f"next to each other in a comparison: {gaps['inside']} lie inside the seed spread (the "
    f"larger range of the two methods; {gaps['ties']} are exact ties), {gaps['exceed']} exceed "
    f"it; {gaps['one_seed']} more involve a value made with one seed only, so no spread. A gap "
    "inside the spread could flip with another seed."
)
fl.show_table(fl.score_spread_table(board), "fl_score_spread", fl.SPREAD_COLUMNS,
              csv="fl_score_spread.csv")
spread_protocol = pick(
    "Protocol", ["A", "B", "C"], "spread_protocol", key_prefix=KEYS,
    format_func=fmt.protocol_name,
)
spread, spread_config = fl.metric_spread_table(board, spread_protocol)
fl.show_table(spread, "fl_metric_spread", spread_config, csv=f"fl_spread_{spread_protocol}.csv")

st.subheader("Unverified uploads (not ranked)")
unverified = flb.uploads_table(board, (review.UNVERIFIED,))
if unverified.empty:
    st.caption("No uploads are waiting for a maintainer's review.")
else:
    st.caption("Received, awaiting a maintainer's review: self-reported, no rank, no points.")
    shown = fl.named_runs(unverified.drop(columns=["decided_by", "decided_utc"]))
    fl.show_table(shown, "fl_unverified")

if board.problems:
    with st.expander(f"{fmt.plural(len(board.problems), 'stored submission', 'were')} skipped"):
        for line in board.problems:
            st.text(line)
