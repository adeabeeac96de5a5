"""Home: what Model Atlas is, which snapshot is served, and what the catalog holds."""

from __future__ import annotations

import pandas as pd
import plotly.express as px
import streamlit as st
from streamlit.errors import StreamlitPageNotFoundError

import ui.data
from analytics.core.snapshot import CatalogError
from analytics.llm import overview
from ui import format as fmt
from ui import llm, navigation

INTRO = """
Model Atlas ranks AI models from numbers whose origin you can check, in three tracks that share
one store. **LLM leaderboard**: Elo ratings fitted over head-to-head benchmark results, with a
provenance badge on every score, plus calculators for what fits your GPU and what a fine-tune
needs and costs. **Verified vision**: detectors timed and scored under one protocol on one
machine, with community runs shown beside ours but never mixed in. **Federated track**: submitted
federated-learning runs scored per protocol (quality, efficiency, robustness) with system costs
from one calibrated simulator.
"""


def show_catalog_error(exc: CatalogError) -> None:
    lines = "\n".join(f"- `{line}`" for line in exc.problems[:20])
    more = len(exc.problems) - 20
    st.error(
        "The catalog does not validate, so no snapshot can be served. "
        "Run `python -m analytics snapshot validate` for the full list.\n\n"
        + lines
        + (f"\n- … and {more} more" if more > 0 else "")
    )


def show_counts(ov: overview.Overview) -> None:
    cols = st.columns(5)
    cols[0].metric("Models", f"{ov.models:,}", help=f"{ov.open_weight_models:,} open-weight")
    cols[1].metric("Benchmarks", f"{ov.benchmarks:,}")
    cols[2].metric("Categories", f"{ov.categories:,}")
    cols[3].metric("Scores", f"{ov.scores:,}", help=f"from {ov.sources:,} named sources")
    cols[4].metric("GPUs", f"{ov.gpus:,}", help=f"{ov.throughput_rows:,} measured throughput rows")


def _bar_chart(frame: pd.DataFrame, key: str, layout: dict, **bar: object) -> None:
    """One labelled plotly bar chart (counts printed beside the bars)."""
    fig = px.bar(frame, **bar)
    fig.update_traces(texttemplate="%{text:,}", textposition="outside", cliponaxis=False)
    fig.update_layout(height=380, **layout)
    st.plotly_chart(fmt.readable(fig), key=key)


def show_charts(ov: overview.Overview) -> None:
    left, right = st.columns(2)
    with left:
        st.subheader("Where the scores come from")
        _bar_chart(
            ov.provenance, "home_provenance", {"margin": {"t": 30}, "yaxis": {"tickformat": ","}},
            x="source_kind", y="score_rows", text="score_rows",
            labels={"source_kind": "source kind (headline precedence →)", "score_rows": "scores"},
        )
        st.caption(
            "Rows of each provenance are stored apart; where a model has several results on "
            "one benchmark, the headline uses the leftmost kind."
        )
    with right:
        st.subheader("Scores per benchmark category")
        named = [fmt.category_name(c) for c in ov.by_category["category"]]
        _bar_chart(
            ov.by_category.assign(category=named), "home_categories",
            {"margin": {"t": 30, "r": 50}, "yaxis": {"autorange": "reversed"},
             "xaxis": {"tickformat": ","}},
            x="score_rows", y="category", orientation="h", text="score_rows",
            hover_data=["benchmarks", "models"], labels={"score_rows": "scores", "category": ""},
        )


SOURCE_COLUMNS = {
    "name": "Source",
    "url": st.column_config.LinkColumn("Home page"),
    "licence": "Licence / terms",
    "scores": fmt.count_column("Scores"),
    "models": fmt.count_column("Models"),
    "as_of": st.column_config.DateColumn("Newest score dated"),
    "newest_release": st.column_config.DateColumn("Newest model it scores"),
}


def show_sources(ov: overview.Overview) -> None:
    st.subheader("Sources and how fresh they are", anchor="sources")
    st.caption(
        f"{ov.freshness.line()} Each source's own newest date is below; an older source is kept "
        "for the models and benchmarks only it covers, never to override a newer one."
    )
    llm.show_table(
        ov.source_table, "home_sources", SOURCE_COLUMNS, columns=list(SOURCE_COLUMNS),
        csv=f"sources_{version}.csv", width="stretch",
    )


COPY_COLUMNS = {
    "publisher": "Publisher",
    "used_for": "Used for",
    "data_date": st.column_config.DateColumn("Data of", help="The day the copied data is of."),
    "package": st.column_config.TextColumn(
        "Copied from", help="The third-party package the copy shipped in."
    ),
    "agreement": st.column_config.NumberColumn(
        "Agreement", format="percent",
        help="Share of the items in both that agree with the publisher's own file.",
    ),
    "fidelity": st.column_config.TextColumn(
        "How well it agrees", help="Checked against a file the publisher released itself."
    ),
}


def show_copies(ov: overview.Overview) -> None:
    """Newer data taken from third-party copies, each with its date, package and agreement;
    nothing when the snapshot records no copies."""
    if ov.copies.empty:
        return
    st.subheader("Newer data from third-party copies", anchor="copies")
    st.caption(
        "Where a publisher's own newest file is older, the catalog uses a third party's copy of "
        "newer data, trusted only as far as it agrees with a file the publisher released itself."
    )
    llm.show_table(
        ov.copies, "home_copies", COPY_COLUMNS, columns=list(COPY_COLUMNS),
        csv=f"copies_{version}.csv", width="stretch",
    )


def show_links() -> None:
    st.subheader("Start here")
    present = navigation.main_pages()
    if not present:
        st.caption("The track pages are not installed in this checkout yet.")
    for page in present:
        label = f"{page.section}: {page.title}"
        try:
            st.page_link(page.file, label=label, icon=page.icon)
        except StreamlitPageNotFoundError:  # page run on its own, outside app.py's navigation
            st.caption(f"{label} (open it through `streamlit run app.py`)")


st.title("Model Atlas")
st.markdown(INTRO)
try:
    version = ui.data.snapshot_version()
except CatalogError as exc:
    show_catalog_error(exc)
    st.stop()
ov = llm.load_overview(version)
st.caption(f"Catalog snapshot **{version}** · every figure below is computed from it.")
st.caption(ov.freshness.line())
show_counts(ov)
show_charts(ov)
show_sources(ov)
show_copies(ov)
show_links()
