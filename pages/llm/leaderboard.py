"""LLM leaderboard: weighted Bradley-Terry Elo with intervals, eligibility and provenance."""

from __future__ import annotations

import io
from datetime import UTC, date, datetime

import pandas as pd
import streamlit as st

import ui.data
from analytics.core import db, labels
from analytics.core.labels import plural
from analytics.core.licences import LICENCE_CLASSES
from analytics.core.schema import SOURCE_KINDS
from analytics.llm import category_columns, elo, leaderboard, ratings, snapshot_diff
from ui import format as fmt
from ui import llm
from ui.params import (
    VARIANTS,
    choice,
    date_param,
    index_of,
    multi_param,
    one_of,
    range_param,
    text_param,
)

ALL = "All"
RANK_UB_HELP = (
    "LMArena's convention: 1 + the number of models whose whole 95% Elo interval lies above "
    "this one's. Models the data cannot tell apart share it."
)
OPEN_CHOICES = (ALL, "Open weights", "Closed", "Unknown")
COLUMNS = {
    "rank": st.column_config.NumberColumn("Rank", format="%d"),
    "display_name": "Model",
    "rating": st.column_config.NumberColumn("Elo", format="%.1f"),
    "rating_interval": st.column_config.TextColumn(
        "Elo 95% interval", help="From bootstrap resamples of the benchmarks."
    ),
    "rating_low": st.column_config.NumberColumn("Elo 95% low", format="%.1f"),
    "rating_high": st.column_config.NumberColumn("Elo 95% high", format="%.1f"),
    "rank_low": st.column_config.NumberColumn("Rank best", format="%d"),
    "rank_high": st.column_config.NumberColumn("Rank worst", format="%d"),
    "rank_range": st.column_config.TextColumn(
        "Rank range", help="The ranks this model takes in 95% of the bootstrap resamples of the "
        "benchmarks: the data cannot rule any of them out.",
    ),
    "rank_ub": st.column_config.NumberColumn("Rank (LMArena)", format="%d", help=RANK_UB_HELP),
    "publishers": st.column_config.TextColumn(
        "Publishers", help="Who published the scores the rating rests on (one per site)."
    ),
    "category_profile": st.column_config.NumberColumn("Category profile (0-100)", format="%.1f"),
    "overall_rating": st.column_config.NumberColumn("Overall Elo", format="%.1f"),
    "overall_rank": st.column_config.NumberColumn("Overall rank", format="%d"),
    "n_benchmarks": st.column_config.NumberColumn("Benchmarks", format="%d"),
    "n_categories": st.column_config.NumberColumn("Categories", format="%d"),
    "n_sources": st.column_config.NumberColumn(
        "Sources", format="%d", help="Distinct publishers behind the headline scores."
    ),
    "variants": st.column_config.TextColumn(
        "Other variants", help="The checkpoint's other settings, folded into this row."
    ),
    "unrated_reason": "Why unrated",
    "provenance": "Provenance",
    "organisation": "Organisation",
    "open_weights": "Open weights",
    "licence_class": "Licence class",
    "licence_raw": "Licence",
    "total_params_b": st.column_config.NumberColumn("Parameters (B)", format="%g"),
    "release_date": st.column_config.DateColumn(
        "Released", help="The stated release day; where none is stated, the day the model was "
        "first seen (Date basis says so)."
    ),
    "release_basis": st.column_config.TextColumn(
        "Date basis", width="medium",
        help="Blank: a stated release date. Otherwise what the date is instead, e.g. the day "
        "the model first appeared in LiteLLM's price table (a few days after the release, "
        "typically).",
    ),
    "family": "Family",
    "model_id": "Model ID",
    "api_usd_per_mtok_input": st.column_config.NumberColumn(
        "API $/1M input", format="$%.4g", help="API list price in USD per 1M input tokens (the "
        "model page links its source).",
    ),
    "api_usd_per_mtok_output": st.column_config.NumberColumn(
        "API $/1M output", format="$%.4g", help="API list price in USD per 1M output tokens "
        "(reasoning tokens are billed as output).",
    ),
    "api_price_from": st.column_config.DateColumn(
        "Price from", help="The day the API price applies from."
    ),
    "api_output_tok_per_s": st.column_config.NumberColumn(
        "API speed", format="%.0f tok/s", help="Output tokens per second: API, as served, "
        "measured by Artificial Analysis on the date beside it (Speed measured). Not a GPU's "
        "speed.",
    ),
    "api_speed_measured_on": st.column_config.DateColumn(
        "Speed measured", help="The day Artificial Analysis measured the API speed."
    ),
    "api_index_cost_usd": st.column_config.NumberColumn(
        "AA index run cost (USD)", format="$%.2f", help="Artificial Analysis' figure: the USD "
        "it cost them to run their Intelligence Index on this variant, every token it spent "
        "(thinking included) counted, measured on the date beside it (Index cost measured). "
        "Unlike the $/1M list price, it grows with the tokens a model spends.",
    ),
    "api_index_cost_measured_on": st.column_config.DateColumn(
        "Index cost measured", help="The day of the Artificial Analysis file that states the "
        "index run cost."
    ),
    "details": st.column_config.LinkColumn("Details", display_text="open"),
}


def pick_filter(board: leaderboard.Leaderboard) -> leaderboard.LeaderboardFilter:
    """Filter widgets, initialised from and written back to st.query_params."""
    table = board.table
    cats = [ALL, *board.categories]
    orgs = sorted(table["organisation"].dropna().astype(str).unique())
    c1, c2, c3 = st.columns(3)
    with c1:
        category = choice("Category", cats, "category", ALL, key_prefix="lb")
    org = c2.multiselect("Organisation", orgs, default=multi_param("org", orgs), key="lb_org")
    weights = c3.radio(
        "Weights", OPEN_CHOICES, index=index_of(OPEN_CHOICES, "weights", ALL), key="lb_weights",
        horizontal=True,
    )
    c4, c5, c6 = st.columns(3)
    lic = c4.multiselect(
        "Licence class", LICENCE_CLASSES, default=multi_param("licence", LICENCE_CLASSES),
        key="lb_licence",
    )
    prov = c5.multiselect(
        "Backed by (source kind)", SOURCE_KINDS, default=multi_param("prov", SOURCE_KINDS),
        key="lb_prov", help="Keep models with at least one headline score of these kinds.",
    )
    size = _size_range(c6, table)
    released_from = _released_from(table)
    st.query_params.update(category=category, weights=weights, org=org, licence=lic, prov=prov)
    return leaderboard.LeaderboardFilter(
        category=None if category == ALL else category,
        organisations=tuple(org),
        open_weights={ALL: None, "Open weights": True, "Closed": False,
                      "Unknown": leaderboard.WEIGHTS_UNKNOWN}[weights],
        licence_classes=tuple(lic),
        size_b=size,
        provenance=tuple(prov),
        released_from=released_from,
    )


def _released_from(table: pd.DataFrame) -> str | None:
    """The "Released on or after" date filter, kept in the URL as ``from=YYYY-MM-DD``."""
    days = pd.to_datetime(table["release_date"], errors="coerce").dropna()
    first = days.min().date() if not days.empty else date(2018, 1, 1)
    last = max(days.max().date() if not days.empty else first, datetime.now(UTC).date())
    wanted = date_param("from", first, last)  # absent or not a day: no filter
    picked = st.date_input(
        "Released on or after", value=wanted, min_value=first, max_value=last, key="lb_from",
        format="YYYY-MM-DD", help="Hides models released before this day, and models without "
        "a release date. Where no release date is stated, the first-seen day stands in (see "
        "Date basis).",
    )
    if not isinstance(picked, date):
        st.query_params.pop("from", None)
        return None
    st.query_params["from"] = picked.isoformat()
    return picked.isoformat()


def _size_range(col, table: pd.DataFrame) -> tuple[float, float] | None:
    sizes = pd.to_numeric(table["total_params_b"]).dropna()
    if sizes.empty or sizes.min() == sizes.max():
        return None
    lo, hi = float(sizes.min()), float(sizes.max())
    start = range_param("size", lo, hi) or (lo, hi)
    picked = col.slider(
        "Parameters (B)", lo, hi, start, key="lb_size",
        help="Narrowing the range hides models of undisclosed size.",
    )
    if picked == (lo, hi):
        st.query_params.pop("size", None)
        return None
    st.query_params["size"] = f"{picked[0]:g}-{picked[1]:g}"
    return picked


CATEGORY_LABELS = {
    "rank": st.column_config.NumberColumn("Category rank", format="%d"),
    "rating": st.column_config.NumberColumn("Category Elo", format="%.1f"),
    "rating_interval": "Category Elo 95% interval",
    "n_benchmarks": "Category benchmarks",
}
PHONE_FIRST = ("rank", "rating")  # then the name and the rest (phone_order)
CATEGORY_ESSENTIALS = ("overall_rank",)  # a category view also shows the overall rank up front


def pick_search_and_columns(category: str | None) -> tuple[str, list[str]]:
    """The name search box and the "More columns" picker, both mirrored in the URL."""
    c1, c2 = st.columns([1, 2])
    text = c1.text_input(
        "Search by name", value=text_param("q", ""), key="lb_search", max_chars=100,
        placeholder="e.g. llama", help="Matches the model's name, id and aliases "
        "(case-insensitive). Ranks stay those of the whole leaderboard.",
    )
    more = [
        c for c in leaderboard.MORE_COLUMNS
        if (category or c not in _CATEGORY_ONLY) and c not in leaderboard.ESSENTIAL_COLUMNS
    ]
    config = COLUMNS | CATEGORY_LABELS if category else COLUMNS
    picked = c2.multiselect(
        "More columns", more, default=multi_param("cols", more), key="lb_cols",
        format_func=lambda c: llm.header(config.get(c), c),
    )
    st.query_params.update(q=text.strip(), cols=picked)
    if not text.strip():
        st.query_params.pop("q", None)
    return text, picked


_CATEGORY_ONLY = ("overall_rating", "overall_rank", "category_profile")


def visible_columns(rows: pd.DataFrame, category: str | None, more: list[str]) -> list[str]:
    """Essential columns first (with a category: also the overall rank; with unrated rows: why),
    then the picked ones; empty columns (no rank for unrated rows) are left out, not dashed."""
    first = list(leaderboard.ESSENTIAL_COLUMNS)
    if category:
        first += list(CATEGORY_ESSENTIALS)
    if "eligible" in rows and not rows["eligible"].all():
        first.append("unrated_reason")
    if leaderboard.INDEX_COST in more:  # a cost beside the API price, and the day it is of
        at = first.index("details")
        first[at:at] = [leaderboard.INDEX_COST, leaderboard.INDEX_COST_DAY]
    if "variants" in rows:  # the grouped view: the folded settings, after the evidence
        first.insert(first.index("details"), "variants")
    wanted = list(dict.fromkeys(first + more))
    return [c for c in wanted if c in rows.columns and (rows.empty or rows[c].notna().any())]


def shown_rows(rows: pd.DataFrame) -> pd.DataFrame:
    """The rows as the tables show them: a details link, no empty reasons."""
    shown = rows.assign(details="llm_model?model=" + rows["model_id"].astype(str))
    if "unrated_reason" in shown:  # ranked rows have "": no empty "Why unrated" column for them
        shown["unrated_reason"] = shown["unrated_reason"].replace("", None)
    return shown


def show_table(
    rows: pd.DataFrame, key: str, category: str | None, more: list[str],
    greyed_rating: bool = False,
) -> None:
    cols = visible_columns(rows, category, more)
    config = COLUMNS | CATEGORY_LABELS if category else COLUMNS
    if greyed_rating and "rating" in rows:
        rows, grey = greyed(rows)
        config = config | grey
        cols = ["reference_rating" if c == "rating" else c for c in cols]
    if not rows.empty:  # a column empty on every row (no reason on ranked rows) is not sent
        rows = rows.dropna(axis=1, how="all")
    llm.show_responsive_table(
        rows, key, config, columns=cols, phone_columns=phone_order(cols), width="stretch"
    )


def phone_order(cols: list[str]) -> list[str]:
    """At phone width the rating comes before the (often long) name, so rank and Elo are on
    screen without scrolling sideways."""
    first = [c for c in PHONE_FIRST if c in cols]
    return first + [c for c in cols if c not in first]


def show_downloads(
    shown: pd.DataFrame, cols: list[str], version: str, category: str | None
) -> None:
    """CSV of what the tables show (visible columns, human headers); Parquet of every column of
    the same rows, raw names, for analysis."""
    cols = [c for c in cols if c != "details"]  # a link within the app: no use in a file
    config = llm.column_config(shown[cols], COLUMNS | CATEGORY_LABELS if category else COLUMNS)
    names = {c: llm.header(config[c], c) for c in cols}
    c1, c2 = st.columns(2)
    c1.download_button(  # both files are made on click: most visits download nothing
        "Download CSV", lambda: labels.csv_text(shown[cols], names),
        f"llm_leaderboard_{version}.csv", "text/csv", key="lb_csv",
        help="The rows and columns shown above, human headers.",
    )
    c2.download_button(
        "Download Parquet", lambda: parquet_bytes(shown.drop(columns="details")),
        f"llm_leaderboard_{version}.parquet", "application/octet-stream", key="lb_parquet",
        help="The same rows with every column, under their raw names (for analysis).",
    )


def parquet_bytes(frame: pd.DataFrame) -> bytes:
    """``frame`` as one Parquet file's bytes (no index)."""
    out = io.BytesIO()
    frame.to_parquet(out, index=False)
    return out.getvalue()


CHANGE_COLUMNS = {
    "display_name": "Model",
    "change": "Change",
    "former_id": "Former id",
    "rating_old": st.column_config.NumberColumn("Elo before", format="%.1f"),
    "rating_new": st.column_config.NumberColumn("Elo after", format="%.1f"),
    "rating_delta": st.column_config.NumberColumn("Elo change", format="%+.1f"),
    "rating_delta_field": st.column_config.NumberColumn(
        "Elo change against the field", format="%+.1f",
        help="The Elo change less the scale's move (the median change of the models ranked in "
        "both snapshots).",
    ),
    "rank_old": st.column_config.NumberColumn("Rank before", format="%d"),
    "rank_new": st.column_config.NumberColumn("Rank after", format="%d"),
    "rank_delta": st.column_config.NumberColumn("Rank change (+ = up)", format="%+d"),
    "rank_low_new": st.column_config.NumberColumn("Rank best after", format="%d"),
    "rank_high_new": st.column_config.NumberColumn("Rank worst after", format="%d"),
    "rank_ub_new": st.column_config.NumberColumn(
        "Rank (LMArena) after", format="%d", help=RANK_UB_HELP
    ),
}


def show_changes(version: str, board: leaderboard.Leaderboard) -> None:
    st.subheader("Changes between snapshots")
    versions = db.list_versions()
    if len(versions) < 2:
        st.caption("Only one snapshot is built; changes appear once a second one exists.")
        return
    names = llm.load_snapshot_labels(tuple(versions), version)
    current = version if version in versions else versions[-1]
    pair = snapshot_diff.default_pair(versions, current)
    new_default = one_of(versions, "diff_new", current, label_of=names.get)
    c1, c2 = st.columns(2)
    new = c2.selectbox(
        "New snapshot", versions, index=versions.index(new_default), key="lb_diff_new",
        format_func=names.get,
    )
    old_choices = [v for v in versions if v != new]
    fallback = snapshot_diff.default_pair(versions, new) or pair or (old_choices[-1], new)
    old_default = fallback[0] if fallback[0] in old_choices else old_choices[-1]
    old_default = one_of(old_choices, "diff_old", old_default, label_of=names.get)
    old = c1.selectbox(
        "Old snapshot", old_choices, index=old_choices.index(old_default), key="lb_diff_old",
        format_func=names.get, help="Opens on the newest earlier snapshot whose scores or "
        "benchmarks differ: snapshots of the same scores have the same ratings.",
    )
    st.query_params.update(diff_old=old, diff_new=new)
    changes = snapshot_diff.with_names(llm.load_diff(old, new), board.models)
    changed = changes[changes["change"] != "unchanged"].reset_index(drop=True)
    counts = changes["change"].value_counts()
    shift = float(changes["scale_shift"].iloc[0]) if len(changes) else 0.0
    st.caption(
        " · ".join(
            f"{kind} {int(counts.get(kind, 0))}" for kind in snapshot_diff.CHANGE_ORDER[:-1]
            if kind in ("added", "removed", "moved") or counts.get(kind, 0)
        )
        + f". The scale moved by {shift:+.1f} points (the median change of the models ranked "
        f"in both). Moved: the rating changed by {snapshot_diff.MOVED_MIN_POINTS:g} points or "
        "more against the field (the scale's move taken out); scale: it moved only with the "
        "scale. Renamed / merged: the old id now belongs to the model shown. Sorted by the size "
        "of the move."
    )
    if changed.empty:
        st.info(f"No changes: every rating and rank is the same in {old} and {new}.")
        return
    llm.show_table(
        changed, "lb_diff_table", CHANGE_COLUMNS,
        columns=[c for c in CHANGE_COLUMNS if c in changed.columns],
        csv=f"llm_changes_{old}_{new}.csv", width="stretch",
    )


def explain(flt: leaderboard.LeaderboardFilter) -> None:
    """What the ranks mean: the overall method, or the category leaderboard's rule."""
    st.caption(
        f"Snapshot {version}. Elo from a weighted Bradley-Terry fit over head-to-head benchmark "
        f"results (+400 = 10:1 odds); 95% intervals and rank spread from "
        f"{ratings.BOOTSTRAP_ROUNDS} bootstrap resamples of the benchmarks. A rank needs at least "
        f"{elo.MIN_BENCHMARKS} benchmarks in {elo.MIN_CATEGORIES} categories, results from "
        f"{elo.MIN_PUBLISHERS} publishers and a link (shared benchmarks) to the main comparison "
        "graph. Other filters hide rows, never re-rank."
    )
    if flt.category:
        st.info(
            f"Category leaderboard: {flt.category}. The same fit on this category's benchmarks "
            f"alone, re-ranked; a category rank needs at least {elo.MIN_CATEGORY_BENCHMARKS} "
            f"of its benchmarks, results from {elo.MIN_PUBLISHERS} publishers and a link to the "
            "category's main comparison graph. Overall Elo "
            "and rank stay those of the whole leaderboard.",
            icon=":material/category:",
        )


RANKED_LIST, SIDE_BY_SIDE = "Ranked list", "Categories side by side"
VIEWS = {RANKED_LIST: "list", SIDE_BY_SIDE: "categories"}  # label -> URL value (view=...)


def pick_view() -> str:
    """The table view, mirrored in the URL (``view=categories``)."""
    names = list(VIEWS)
    by_url = {v: k for k, v in VIEWS.items()}
    wanted = by_url[one_of(list(by_url), "view", VIEWS[RANKED_LIST], label_of=by_url.get)]
    picked = st.radio(
        "View", names, index=names.index(wanted), key="lb_view", horizontal=True,
        help="Categories side by side: one column per category's Elo (blank where the model "
        "is below that category's evidence floor), sortable by clicking a header.",
    )
    if picked == RANKED_LIST:
        st.query_params.pop("view", None)
    else:
        st.query_params["view"] = VIEWS[picked]
    return picked


def side_by_side_config(columns: list[str]) -> dict:
    """Column config of the side-by-side table: one "<Category> Elo" column per category."""
    config = {c: COLUMNS[c] for c in ("rank", "display_name", "rating", "details") if c in COLUMNS}
    for col in columns:
        if col.startswith(category_columns.SIDE_BY_SIDE_PREFIX):
            name = fmt.category_name(col.removeprefix(category_columns.SIDE_BY_SIDE_PREFIX))
            config[col] = st.column_config.NumberColumn(
                f"{name} Elo", format="%.1f", help=f"Category Elo for {name.lower()}: blank "
                f"below {elo.MIN_CATEGORY_BENCHMARKS} of its benchmarks or outside its main "
                "comparison graph.",
            )
    return config


def show_side_by_side(
    board: leaderboard.Leaderboard, flt: leaderboard.LeaderboardFilter, every_variant: bool,
    text: str, version: str,
) -> None:
    """Ranked models with their overall Elo and each category's Elo in its own column."""
    rows = shown_rows(llm.load_side_by_side(version, flt, every_variant, text))
    rows = rows[rows["eligible"]]
    cats = [c for c in rows.columns if c.startswith(category_columns.SIDE_BY_SIDE_PREFIX)]
    cols = ["rank", "display_name", "rating", *cats, "details"]
    if flt.category:
        st.caption("Every category is shown side by side; the category filter is not applied.")
    shown = plural(len(cats), "category", many="categories")
    st.subheader(f"Ranked ({len(rows)}), {shown} side by side")
    llm.show_table(
        rows, "lb_side", side_by_side_config(cols), columns=cols,
        csv=f"llm_categories_{version}.csv", width="stretch",
    )


def pick_every_variant() -> bool:
    """The "every variant" toggle, mirrored in the URL (``variants=all``)."""
    wanted = one_of(*VARIANTS) == "all"
    shown = st.toggle(
        "Show every variant", value=wanted, key="lb_variants",
        help="Off: one row per checkpoint (its best-rated setting). On: every reasoning effort "
        "and thinking mode on its own row.",
    )
    if shown:
        st.query_params["variants"] = "all"
    else:
        st.query_params.pop("variants", None)
    return shown


def greyed(rows: pd.DataFrame) -> tuple[pd.DataFrame, dict]:
    """Unrated rows with their rating as a grey badge (``reference_rating``) instead of a
    plain number beside the ranked ones; returns the rows and the column config."""
    text = [None if pd.isna(v) else f"{v:.1f}" for v in rows["rating"]]
    shown = rows.drop(columns="rating").assign(reference_rating=[None if t is None else [t]
                                                                 for t in text])
    colours = {t: llm.UNKNOWN for t in dict.fromkeys(t for t in text if t)}
    config = {"reference_rating": llm.badge_column(
        "Elo (reference)", colours, help="Not ranked: shown for reference only (see Why unrated)."
    )}
    return shown, config


HOW_TO_READ = f"""
- **The scale.** A 400-point gap means 10:1 expected win odds on a benchmark both models report
  (200 points: about 3:1). Ratings come from a Bradley-Terry fit over head-to-head battles on
  benchmark scores, with every model also playing one draw against a fixed anchor rated 1000;
  they are published to 0.1 and move a little with every release of the catalog.
- **Not LMArena's scale.** LMArena's Elo (about 1000–1500) comes from human votes in one arena;
  it is one benchmark here among many (only which model scored higher counts). A model page may
  show "LMArena Text 1470" beside an Elo of 2500: different scales, not a contradiction.
- **Ranked, provisional, unrated.** A rank needs at least {elo.MIN_BENCHMARKS} benchmarks in at
  least {elo.MIN_CATEGORIES} categories, inside the main comparison graph, **and** results from
  at least {elo.MIN_PUBLISHERS} independent publishers (a site counts once, however many boards
  it runs). A model that passes all but the last is listed under "Provisional: one publisher"
  with its rating, interval and publisher; below the floor it is listed under Unrated with the
  reason. Category ranks follow the same rules within the category.
- **One evaluation counts once.** Views of one evaluation (Arena's plain and style-control
  views of the same votes, two copies of one board, successive releases of one suite) enter
  the rating once: the headline view where the model has it, else the next. The other views
  stay on the model page, marked "set aside".
- **Rank, rank range, Rank (LMArena).** Rank orders the point ratings; the rank range holds the
  ranks of 95% of the bootstrap resamples; Rank (LMArena) is 1 + the number of models whose
  whole interval lies above, so models the data cannot tell apart share it. The same numbers
  appear on the model page, in the snapshot diff and in the downloads, and no filter or
  search renumbers them.
- **Settings are rated apart, shown together.** Each reasoning effort or thinking mode of a
  model ("high", "xhigh", "thinking") is rated on its own: results at different settings are
  different evidence. An unqualified score belongs to the setting the vendor's API uses by
  default. {leaderboard.VARIANT_RULE}
- **Evidence.** Each row says how many benchmarks, categories and publishers ("Sources") its
  rating rests on; "one source" in the provenance badge marks a rating that a single publisher's
  results decide. A publisher counts once, however many boards or pages it has: Arena's text,
  vision and WebDev boards are one source. A category rank needs
  {elo.MIN_CATEGORY_BENCHMARKS} benchmarks of that category.
- **Provenance.** Per benchmark one headline score: independent runs first, then arena, then a
  lab's own report. The badge says which kinds a model's rating rests on.
"""

st.title("LLM leaderboard")
version = ui.data.snapshot_version()
llm.show_freshness(version)
with st.expander("How to read this"):
    st.markdown(HOW_TO_READ)
board = llm.load_board(version)
flt = pick_filter(board)
explain(flt)
search, more = pick_search_and_columns(flt.category)
every_variant = pick_every_variant()
view = pick_view()
if view == SIDE_BY_SIDE:
    show_side_by_side(board, flt, every_variant, search, version)
    show_changes(version, board)
    st.stop()
rows = shown_rows(llm.load_board_rows(version, flt, every_variant, search))
provisional = rows.get("provisional", pd.Series(False, index=rows.index)).fillna(False).astype(bool)
ranked, unrated = rows[rows["eligible"]], rows[~rows["eligible"] & ~provisional]
if search.strip():
    st.caption(
        f"{fmt.plural(len(rows), 'model', 'match')} '{search.strip()}'."
    )
st.subheader(f"Ranked ({len(ranked)})")
if ranked.empty and flt.category:
    st.caption(f"No model has {elo.MIN_CATEGORY_BENCHMARKS} benchmarks of this category yet.")
show_table(ranked, "lb_ranked", flt.category, more)
if provisional.any():
    st.subheader(f"Provisional: one publisher ({int(provisional.sum())})")
    st.caption(
        f"Enough benchmarks, but every result comes from one publisher (named in Publishers): "
        f"a rank needs {elo.MIN_PUBLISHERS} independent ones. Rating and interval shown for "
        "reference, never ranked (LMArena marks thin evidence \"preliminary\" the same way)."
    )
    show_table(
        rows[provisional], "lb_provisional", flt.category,
        ["rating_interval", "publishers", *more], greyed_rating=True,
    )
st.subheader(f"Unrated ({len(unrated)})")
st.caption(
    "Below the eligibility floor, or outside the main comparison graph (then the rating is "
    "relative to its own group only): rating shown for reference, never ranked; see Why unrated."
)
show_table(unrated, "lb_unrated", flt.category, more, greyed_rating=True)
show_downloads(rows, visible_columns(rows, flt.category, more), version, flt.category)
show_changes(version, board)
