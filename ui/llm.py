"""The LLM track's cached loaders (and the home page's), one place for every ``st.cache_data``,
and the labelled-table helper every page's tables go through (:func:`show_table`).

Each loader is keyed by a snapshot version and reads that version's store (a cursor of
``ui.data``'s cached connection), never whatever snapshot is current, so a cached entry always
matches its key.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TypeVar

import duckdb
import pandas as pd
import streamlit as st

import ui.data
import ui.format
from analytics.core import labels, paths
from analytics.core.snapshot import CatalogError
from analytics.llm import (
    benchmark_view,
    catalog,
    category_columns,
    charts,
    diff_inputs,
    finetune_view,
    fit_view,
    leaderboard,
    overview,
    planner_inputs,
    ratings,
    throughput,
)

T = TypeVar("T")
FITTING = "Fitting Elo ratings for this snapshot…"


def _read(version: str, read: Callable[[duckdb.DuckDBPyConnection], T]) -> T:
    """``read`` on a cursor of the version's cached connection (``ui.data``; opening a new
    one costs ~0.1 s of views and checks), closed afterwards. The LLM track reads snapshot
    tables only, so its connection lists no measured run."""
    con = ui.data.version_cursor(version, runs=False)
    try:
        return read(con)
    finally:
        con.close()


def column_config(frame: pd.DataFrame, config: dict | None = None) -> dict:
    """A column config for every column of ``frame`` (and its named index): ``config``'s entry,
    else a date column for datetimes (dates, never '00:00:00'), else the human label of
    ``analytics.core.labels``. So no raw column name reaches a page."""
    given = config or {}
    out: dict = {}
    for col in frame.columns:
        name = str(col)
        if name in given:
            out[name] = given[name]
        elif pd.api.types.is_datetime64_any_dtype(frame[col]):
            out[name] = st.column_config.DateColumn(labels.human(name))
        else:
            out[name] = labels.human(name)
    if frame.index.name is not None:
        out["_index"] = given.get("_index", labels.human(frame.index.name))
    return out


ROW_HEIGHT_PX = 35  # st.dataframe's row (and header) height at the default font size
TABLE_MAX_HEIGHT_PX = 760  # about the viewport a laptop screen leaves a table below the header


def table_height(rows: int) -> int:
    """A table's height in px: every row (and the header) up to about the viewport, then it
    scrolls; Streamlit's default shows about 10 rows however tall the page is."""
    return min(ROW_HEIGHT_PX * (max(rows, 1) + 1) + 3, TABLE_MAX_HEIGHT_PX)


def show_table(
    frame: pd.DataFrame,
    key: str,
    config: dict | None = None,
    *,
    csv: str | None = None,
    columns: list[str] | None = None,
    hide_index: bool = True,
    csv_frame: pd.DataFrame | None = None,
    **kwargs: object,
) -> None:
    """``st.dataframe`` with human labels on every column (:func:`column_config`); ``columns``
    picks and orders the visible ones (the frame keeps the rest); ``csv`` names a download of
    exactly what is shown (visible columns, human headers, dates as dates), taken from
    ``csv_frame`` when given (the same rows and columns without display marks)."""
    frame = labels.shown_flags(frame)
    csv_frame = None if csv_frame is None else labels.shown_flags(csv_frame)
    conf = column_config(frame, config)
    kwargs.setdefault("height", table_height(len(frame)))
    st.dataframe(  # rounded first: a number column's step truncates (ui.format.rounded)
        ui.format.rounded(frame, conf), column_config=conf, column_order=columns,
        hide_index=hide_index, key=key, placeholder="—", **kwargs,
    )
    if csv:
        frame = frame if csv_frame is None else csv_frame
        shown = frame[columns] if columns is not None else frame
        if not hide_index and frame.index.name is not None:
            shown = shown.reset_index()
        names = {c: header(conf.get(c), c) for c in map(str, shown.columns)}
        st.download_button(  # the text is made on click: most visits download nothing
            "Download CSV", lambda: labels.csv_text(shown, names), csv, "text/csv",
            key=f"{key}_csv", help="The rows and columns shown, as CSV.",
        )


PHONE_MAX_WIDTH_PX = 640  # Streamlit's own narrow-screen breakpoint (columns stack below it)
PHONE_KEY = "-phone-table"
"""Suffix of the key of a table's phone rendering (:func:`show_responsive_table`)."""
_RESPONSIVE_CSS = f"""<style>
@media (max-width: {PHONE_MAX_WIDTH_PX}px) {{ div[class*="-wide-table"] {{ display: none; }} }}
@media (min-width: {PHONE_MAX_WIDTH_PX + 1}px) {{ div[class*="{PHONE_KEY}"] {{ display: none; }} }}
</style>"""


def show_responsive_table(
    frame: pd.DataFrame,
    key: str,
    config: dict | None,
    *,
    columns: list[str],
    phone_columns: list[str],
    **kwargs: object,
) -> None:
    """:func:`show_table` twice: with ``columns`` on wide screens and ``phone_columns`` (the same
    columns, essentials first) at phone width, the other hidden by a CSS media query on their
    keyed containers. The browser draws only one; the phone one's key ends in
    :data:`PHONE_KEY`."""
    st.html(_RESPONSIVE_CSS)
    with st.container(key=f"{key}-wide-table"):
        show_table(frame, key, config, columns=columns, **kwargs)
    with st.container(key=f"{key}{PHONE_KEY}"):
        show_table(frame, f"{key}{PHONE_KEY}", config, columns=phone_columns, **kwargs)


GOOD, CAUTION, POOR, BAD, UNKNOWN = "#2e9e4f66", "#e0b00066", "#f07c0066", "#e0383866", "#8a8a8a40"
"""Verdict badge colours, best to worst (and unknown): translucent, so the badge text keeps the
theme's own text colour and contrast in the light and the dark theme alike."""


def verdict_badges(frame: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """A display copy of ``frame`` whose verdict ``columns`` hold one-item lists, the form
    :func:`badge_column` draws as a coloured badge (no pandas Styler: styling a table of ~900
    rows cost 0.3 s of every rerun). Empty cells stay empty."""
    out = frame.copy()
    for col in columns:
        if col in out:
            out[col] = [None if pd.isna(v) else [str(v)] for v in out[col]]
    return out


def badge_column(label: str, colours: dict[str, str], help: str | None = None) -> object:
    """Column config drawing a :func:`verdict_badges` column: each verdict in its colour."""
    return st.column_config.MultiselectColumn(
        label, options=list(colours), color=list(colours.values()), help=help, disabled=True
    )


def number_columns(formats: dict[str, str], help: dict[str, str] | None = None) -> dict:
    """Column configs of numeric columns: shown label -> printf-style format ("%.1f", or
    "localized" for thousands separators), with the column's help text where ``help`` has one."""
    notes = help or {}
    return {
        label: st.column_config.NumberColumn(label, format=fmt, help=notes.get(label))
        for label, fmt in formats.items()
    }


def header(conf: object, column: str) -> str:
    """The header a column config entry gives ``column`` (its label, else the human label)."""
    if isinstance(conf, str):
        return conf
    label = conf.get("label") if isinstance(conf, dict) else None
    return label or labels.human(column)


@st.cache_data(show_spinner=False)
def load_model_speeds(version: str, model_id: str) -> pd.DataFrame:
    """Every measured GPU speed of one model's checkpoint (model page), kinds named."""
    tables = catalog.of_version(version)
    return throughput.model_speeds(tables.throughput, tables.models, model_id)


@st.cache_data(show_spinner=False)
def load_overview(version: str) -> overview.Overview:
    """Catalog figures of one snapshot version (home page)."""
    return _read(version, overview.catalog_overview)


@st.cache_data(show_spinner=False)
def load_freshness(version: str) -> overview.Freshness:
    """How far one snapshot's data reaches (every LLM page states it): its derived file's row
    (``diff_inputs``), else read from the store."""
    stored = diff_inputs.freshness(version).get(version)
    return stored if stored is not None else _read(version, overview.freshness)


@st.cache_data(show_spinner=False)
def load_snapshot_labels(versions: tuple[str, ...], served: str) -> dict[str, str]:
    """The snapshot picker's option of every built snapshot (``overview.snapshot_labels``);
    ``versions`` (the built ones) keys the cache, so a new build gets its label. Dates come from
    the ``served`` version's derived file where it holds them (one store connection per
    snapshot otherwise)."""
    known = diff_inputs.freshness(served)
    found = overview.snapshot_labels(
        paths.SNAPSHOTS_DIR,
        lambda version: (known.get(version) or load_freshness(version)).data_through,
    )
    return {version: found.get(version, version) for version in versions}


def show_freshness(version: str) -> None:
    """The page's data line: newest model release and newest source date of the snapshot."""
    st.caption(f"{load_freshness(version).line()} Each source and its date: the home page.")


@st.cache_data(show_spinner=FITTING)
def load_board(version: str) -> leaderboard.Leaderboard:
    """The leaderboard of one snapshot version, with bootstrap intervals (all leaderboard pages)."""
    return _read(version, lambda con: leaderboard.build(con, version))


@st.cache_data(show_spinner=False)
def load_benchmarks(version: str) -> pd.DataFrame:
    """The benchmarks table of one snapshot version (names, categories, bounds; benchmark page)."""
    return _read(version, benchmark_view.benchmark_catalog)


@st.cache_data(show_spinner=False)
def load_benchmark_view(version: str, benchmark_id: str) -> benchmark_view.BenchmarkTable:
    """One benchmark's headline and other-source scores of one snapshot version (benchmark
    page; cached so a rerun does not scan every score again)."""
    return benchmark_view.benchmark_table(load_board(version), benchmark_id)


@st.cache_data(show_spinner=False)
def load_prices(version: str) -> pd.DataFrame:
    """API list prices with their source and date, active parameters and the release date's
    basis of one snapshot version's models (charts page)."""
    return _read(version, charts.model_prices)


@st.cache_data(show_spinner=False)
def load_charts(version: str, ranked_only: bool) -> charts.Charts:
    """The charts page's three frames of one snapshot version (built once per version and
    scope: the hover texts are the slow part, so a rerun must not rebuild them)."""
    return charts.build(load_board(version).table, load_prices(version), ranked_only=ranked_only)


@st.cache_data(show_spinner="Fitting category ratings for this snapshot…")
def load_category_ratings(version: str) -> pd.DataFrame:
    """Every category's Elo ratings with intervals of one snapshot version (category view)."""
    return ratings.categories_of_version(version)


@st.cache_data(show_spinner=False, max_entries=64)
def load_board_rows(
    version: str, flt: leaderboard.LeaderboardFilter, every_variant: bool, text: str
) -> pd.DataFrame:
    """The leaderboard rows a filter, the variants toggle and a name search leave, with their
    interval text and API columns (leaderboard page); category ratings are read only when a
    category is chosen."""
    board = load_board(version)
    by_category = load_category_ratings(version) if flt.category else None
    rows = leaderboard.filter_table(board, flt, by_category)
    rows = rows if every_variant else leaderboard.group_variants(rows)
    rows = leaderboard.search(board, rows, text)
    return leaderboard.with_interval(leaderboard.with_api(board, rows))


@st.cache_data(show_spinner=False, max_entries=64)
def load_side_by_side(
    version: str, flt: leaderboard.LeaderboardFilter, every_variant: bool, text: str
) -> pd.DataFrame:
    """The overall rows (``flt`` without its category) with one rating column per category
    (``category_columns.categories_side_by_side``; leaderboard page's side-by-side view)."""
    rows = load_board_rows(version, replace(flt, category=None), every_variant, text)
    return category_columns.categories_side_by_side(
        load_board(version), rows, load_category_ratings(version)
    )


@st.cache_data(show_spinner="Comparing snapshots…")
def load_diff(old: str, new: str) -> pd.DataFrame:
    """Rating and rank changes between two snapshot versions (``new``'s derived file when it
    holds that pair, ``diff_inputs.changes``)."""
    return diff_inputs.changes(old, new)


@st.cache_data(show_spinner=False)
def load_catalog(version: str) -> catalog.Catalog:
    """The calculators' catalog tables of one snapshot version."""
    return _read(version, catalog.load_catalog)


@st.cache_data(show_spinner="Fitting Elo ratings…")
def load_ratings(version: str) -> pd.DataFrame:
    """Elo ratings (no bootstrap) of one snapshot version, shown beside each model."""
    return ratings.of_version(version)


@st.cache_data(show_spinner=False)
def load_fit_view(
    version: str,
    gpu_id: str,
    count: int,
    context: int,
    flt: catalog.ModelFilter,
    show_all: bool,
) -> pd.DataFrame:
    """The hardware-fit table for one hardware choice and filter set."""
    cat = load_catalog(version)
    target = catalog.hardware(cat.gpus, gpu_id, count)
    return fit_view.hardware_fit_view(cat, load_ratings(version), target, context, flt, show_all)


@st.cache_data(show_spinner=False)
def load_plan(
    version: str, model_id: str, gpu_id: str, count: int, recipe: str, method: str, samples: int
) -> finetune_view.FinetuneView:
    """Fine-tune plan and rough cost for one model on one hardware choice."""
    cat = load_catalog(version)
    target = catalog.hardware(cat.gpus, gpu_id, count)
    measured = load_measured_ids(version)
    return finetune_view.plan_view(cat, model_id, target, recipe, method, samples, measured)


@st.cache_data(show_spinner=False)
def load_finetune_list(
    version: str,
    gpu_id: str,
    count: int,
    recipe: str,
    method: str,
    axes: tuple[str, ...],
    show_all: bool,
) -> pd.DataFrame:
    """Fine-tune discovery list: one row per checkpoint, models that fit first."""
    cat = load_catalog(version)
    target = catalog.hardware(cat.gpus, gpu_id, count)
    rated = load_ratings(version)
    return finetune_view.discovery_view(
        cat, target, recipe, method, axes, show_all=show_all, ratings=rated,
        axis_values=load_axis_values(version),
    )


@st.cache_data(show_spinner=False)
def load_axis_values(version: str) -> pd.DataFrame:
    """Quality-axis values of every model of one snapshot version (any hardware choice)."""
    return planner_inputs.axis_values(version, lambda: load_catalog(version))


@st.cache_data(show_spinner=False)
def load_measured_ids(version: str) -> list[str | None]:
    """The catalog model of each measured fine-tune memory row of one snapshot version."""
    return planner_inputs.measured_ids(version, lambda: load_catalog(version))


@st.cache_data(show_spinner=False)
def load_model_choices(version: str) -> tuple[pd.DataFrame, str | None]:
    """The fine-tune planner's model options (one per checkpoint) and its default model."""
    return planner_inputs.model_options(
        version, lambda: load_catalog(version), lambda: load_ratings(version)
    )


def served_catalog() -> tuple[str, catalog.Catalog]:
    """The served snapshot version and its calculator tables (hardware-fit and fine-tune pages);
    when the catalog does not validate, shows its first problem and stops the page."""
    try:
        version = ui.data.snapshot_version()
    except CatalogError as exc:
        st.error(f"The catalog does not validate: {exc.problems[0]}")
        st.stop()
    return version, load_catalog(version)


# --- hardware fit: measured-speed coverage of one hardware choice -----------------


@st.cache_data(show_spinner=False)
def load_fit_speed_coverage(version: str, gpu_id: str, count: int) -> dict[str, int]:
    """Measured generation rows per kind (single-stream / server) for exactly this GPU and
    count in one snapshot version (the hardware-fit page says when there are none)."""
    cat = load_catalog(version)
    return fit_view.speed_coverage(cat, catalog.hardware(cat.gpus, gpu_id, count))
