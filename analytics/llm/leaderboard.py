"""The LLM leaderboard of one catalog snapshot: ratings, intervals, ranks, eligibility,
provenance badges and model facts, plus filters and the diff between two snapshots.

Everything here is a pure function of the snapshot version, so callers may cache it by version.
"""

from __future__ import annotations

import difflib
import functools
from dataclasses import dataclass, field

import duckdb
import numpy as np
import pandas as pd

from analytics.core import db, derived
from analytics.core.licences import licence_class
from analytics.core.schema import SOURCE_KINDS
from analytics.llm import api_facts, board_inputs, catalog, elo, lineage, ratings

MODEL_COLUMNS = (
    "model_id, display_name, organisation, family, release_date, total_params_b, "
    "active_params_b, open_weights, licence_raw, aliases, checkpoint_id, variant"
)
_MODEL_FACTS = (
    "organisation",
    "open_weights",
    "licence_class",
    "licence_raw",
    "total_params_b",
    "release_date",
    "release_basis",
    "family",
)
"""Model metadata columns, in the order every leaderboard table lists them."""
TABLE_COLUMNS = (
    "rank",
    "model_id",
    "display_name",
    "rating",
    "rating_low",
    "rating_high",
    "rank_low",
    "rank_high",
    "rank_ub",
    "eligible",
    "provisional",
    "n_benchmarks",
    "n_categories",
    "n_sources",
    "publishers",
    "unrated_reason",
    "provenance",
    *_MODEL_FACTS,
    "checkpoint_id",
)

INDEX_COST, INDEX_COST_DAY = api_facts.INDEX_COST_BOARD_COLUMNS
"""The optional API column (what running its Intelligence Index cost Artificial Analysis) and
the day of its figure, shown with it."""
ESSENTIAL_COLUMNS = (
    "rank",
    "rank_range",
    "rank_ub",
    "display_name",
    "rating",
    "rating_interval",
    "provenance",
    "release_date",
    "release_basis",
    "n_benchmarks",
    "n_categories",
    "n_sources",
    *api_facts.PRICE_SPEED_COLUMNS,
    "details",
)
"""What the leaderboard shows first (rank, name, rating with interval, provenance badge,
number of benchmarks and categories, details link; the API price with the day it applies
from and the API speed with the day it was measured, where known; the release date and,
for a first-seen day, its basis); the rest sits behind a column
picker."""
MORE_COLUMNS = (
    "unrated_reason",
    "variants",
    "overall_rating",
    "overall_rank",
    "category_profile",
    "rating_low",
    "rating_high",
    "rank_low",
    "rank_high",
    "rank_ub",
    "publishers",
    INDEX_COST,
    *_MODEL_FACTS,
    "model_id",
)
"""The leaderboard's optional columns, in the column picker's order (:data:`INDEX_COST`, picked,
sits beside the API price and speed)."""


@dataclass(frozen=True)
class Leaderboard:
    """Everything the leaderboard pages show for one snapshot."""

    version: str
    table: pd.DataFrame  # one row per scored model, ranked first (TABLE_COLUMNS)
    scores: pd.DataFrame  # every stored score, with benchmark facts and ``is_headline``
    models: pd.DataFrame  # the catalog models table
    profiles: pd.DataFrame  # model, category, value (0-100), n_benchmarks
    lineage: pd.DataFrame  # model_id, predecessor_id
    categories: tuple[str, ...]
    api: pd.DataFrame = field(default_factory=pd.DataFrame)  # api_facts.model_api: price, speed


WEIGHTS_UNKNOWN = "unknown"
"""The openness filter's value for models no evidence says are open or closed."""


@dataclass(frozen=True)
class LeaderboardFilter:
    """Row filter; an empty field means "any". A category switches to that category's
    leaderboard (re-ranked, :func:`category_table`); the other fields only hide rows."""

    category: str | None = None
    organisations: tuple[str, ...] = ()
    open_weights: bool | str | None = None
    """True / False keep the models whose weights are known open / closed (unknown is neither);
    :data:`WEIGHTS_UNKNOWN` keeps the models with no evidence either way."""
    licence_classes: tuple[str, ...] = ()
    size_b: tuple[float, float] | None = None  # models of undisclosed size are then hidden
    provenance: tuple[str, ...] = ()  # at least one headline score of these source kinds
    released_from: str | None = None  # ISO day: released (or first seen) on or after it


def build(
    con: duckdb.DuckDBPyConnection,
    version: str = "",
    *,
    bootstrap: int = ratings.BOOTSTRAP_ROUNDS,
    seed: int = ratings.BOOTSTRAP_SEED,
) -> Leaderboard:
    """Fit the catalog on ``con`` and assemble the leaderboard. With a version and the served
    bootstrap, its ranked table and flagged scores are read from their derived files
    (``board_inputs.RATED``; computed and stored when missing): the scores are then not read."""
    models, benchmarks = board_models(con), benchmarks_table(con)

    @functools.cache  # read only when a table below is computed, then once
    def scores() -> pd.DataFrame:
        return ratings.load_scores(con)

    @functools.cache
    def headline() -> pd.DataFrame:
        return elo.rated_scores(scores())

    def table() -> pd.DataFrame:
        fitted = ratings.cached(scores, version, bootstrap=bootstrap, seed=seed)
        return derived.as_stored(_assemble(fitted, models, headline()))

    def flagged() -> pd.DataFrame:
        return derived.as_stored(_flag_headline(scores(), headline()))

    def api() -> pd.DataFrame:
        return derived.as_stored(api_facts.model_api(con))

    served = (bootstrap, seed) == (ratings.BOOTSTRAP_ROUNDS, ratings.BOOTSTRAP_SEED)
    stored = served and bool(version)
    return Leaderboard(
        version=version,
        table=board_inputs.rated_of(version, "board", table) if stored else table(),
        scores=board_inputs.rated_of(version, "flagged_scores", flagged) if stored else flagged(),
        models=models,
        profiles=board_inputs.profiles_of(version, headline, lambda: benchmarks),
        lineage=board_inputs.lineage_of(version, lambda: models),
        categories=tuple(sorted(benchmarks["category"].unique())),
        api=board_inputs.rated_of(version, "api", api) if stored else api(),
    )


def for_version(
    version: str, bootstrap: int = ratings.BOOTSTRAP_ROUNDS, seed: int = ratings.BOOTSTRAP_SEED
) -> Leaderboard:
    """The leaderboard of a built snapshot version (a pure function of its arguments)."""
    con = db.connect(version)
    try:
        return build(con, version, bootstrap=bootstrap, seed=seed)
    finally:
        con.close()


def board_models(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """The board's model facts. ``release_date`` is a stated release only (lineage and movers
    read it); ``listed_release_date`` is what the board's "Released" column shows: the stated
    day, else a first-seen day (a proxy) with its basis in ``release_basis`` (e.g. "first seen
    in LiteLLM"; empty for a stated date or none)."""
    models = db.query(con, f"SELECT {MODEL_COLUMNS} FROM models ORDER BY model_id")
    basis = pd.Series(pd.NA, index=models.index, dtype="string")
    if db.has_column(con, "models", "release_date_basis"):
        raw = db.query(con, "SELECT release_date_basis FROM models ORDER BY model_id")
        basis = raw["release_date_basis"].astype("string").str.strip().replace("", pd.NA)
    proxy = (basis.notna() & models["release_date"].notna()).to_numpy()
    models["listed_release_date"] = models["release_date"]
    models["release_basis"] = basis.where(proxy, pd.NA)
    models.loc[proxy, "release_date"] = pd.NaT
    return models


def benchmarks_table(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """The snapshot's benchmarks table, by id."""
    return db.query(con, "SELECT * FROM benchmarks ORDER BY benchmark_id")


def provenance_badges(headline: pd.DataFrame) -> pd.Series:
    """Per model, the source kinds behind its headline scores, e.g. 'independent 12 ·
    self-reported 3' (precedence order)."""
    counts = headline.groupby(["model", "source"]).size().unstack(fill_value=0)
    kinds = [k for k in SOURCE_KINDS if k in counts.columns]
    parts = [  # one "kind n" array per kind, empty where the model has none (no row apply)
        np.where(counts[k].to_numpy() > 0, k + " " + counts[k].astype(str).to_numpy(), "")
        for k in kinds
    ]
    text = [" · ".join(v for v in row if v) for row in zip(*parts, strict=True)] if parts else []
    return pd.Series(text or "", index=counts.index, dtype=object, name="provenance")


SHARED_HOSTS = elo.SHARED_HOSTS
publisher_of = elo.publisher_of
"""Who published a score: the rating's eligibility counts publishers, so the rule lives in
``analytics.llm.elo.publishers``; the board reuses it."""


def _assemble(fitted: pd.DataFrame, models: pd.DataFrame, headline: pd.DataFrame) -> pd.DataFrame:
    facts = models.set_index("model_id")
    table = fitted.rename(columns={"model": "model_id"}).join(facts, on="model_id")
    table = table.join(provenance_badges(headline), on="model_id")
    if "n_publishers" in table:  # counted once, by the rating's eligibility
        table = table.rename(columns={"n_publishers": "n_sources"})
    else:  # ratings of a score table without sources (ad-hoc data)
        sources = headline.assign(_p=elo.publishers(headline)).groupby("model")["_p"].nunique()
        table = table.join(sources.rename("n_sources"), on="model_id")
    table["n_sources"] = table["n_sources"].fillna(0).astype(int)
    one = table["n_sources"] == 1
    table.loc[one, "provenance"] = table.loc[one, "provenance"].astype(str) + " · one source"
    raws = table["licence_raw"].astype(object).where(table["licence_raw"].notna(), None)
    classes = {raw: licence_class(None if raw is None else str(raw)) for raw in set(raws)}
    table["licence_class"] = [classes[raw] for raw in raws]  # once per distinct licence text
    table["display_name"] = table["display_name"].fillna(table["model_id"])
    if "listed_release_date" in table:  # "Released": the stated day, else a labelled proxy
        table["release_date"] = table["listed_release_date"]
    return table[[c for c in TABLE_COLUMNS if c in table.columns]]


def _flag_headline(scores: pd.DataFrame, headline: pd.DataFrame) -> pd.DataFrame:
    """``scores`` with ``is_headline`` (the row enters the rating) and ``set_aside_for``: for a
    headline pick that another view of the same evaluation replaces, that view's benchmark."""
    keys = ["model", "benchmark", "source", "source_name"]
    picked = headline[keys].assign(is_headline=True)
    out = scores.merge(picked, on=keys, how="left")
    out["is_headline"] = out["is_headline"].fillna(False).astype(bool)
    aside = elo.views_set_aside(scores)
    if aside.empty:
        return out.assign(set_aside_for=pd.Series(pd.NA, index=out.index, dtype="string"))
    counted = headline[headline["family"] != ""].drop_duplicates(["model", "family"])
    counted = counted.set_index(["model", "family"])["benchmark"].rename("set_aside_for")
    aside = aside.join(counted, on=["model", "family"])[[*keys, "set_aside_for"]]
    out = out.merge(aside, on=keys, how="left")
    out["set_aside_for"] = out["set_aside_for"].astype("string")
    return out


def filter_table(
    board: Leaderboard, flt: LeaderboardFilter, by_category: pd.DataFrame | None = None
) -> pd.DataFrame:
    """Rows of the leaderboard that pass ``flt``, in rank order.

    Without a category: rows of ``board.table`` (order and ranks unchanged). With one: rows of
    :func:`category_table` (``by_category``: ``ratings.categories_of_version``'s table), ranked
    by the category rating; the other filters hide rows but never re-rank.
    """
    if flt.category:
        if by_category is None:
            raise ValueError("a category filter needs the category ratings (by_category)")
        table = category_table(board, by_category, flt.category)
    else:
        table = board.table
    keep = pd.Series(True, index=table.index)
    headline = board.scores[board.scores["is_headline"]]
    if flt.organisations:
        keep &= table["organisation"].isin(flt.organisations)
    if flt.open_weights is not None:
        flags = table["open_weights"].astype("boolean")
        if flt.open_weights == WEIGHTS_UNKNOWN:
            keep &= flags.isna()
        else:
            keep &= flags.eq(bool(flt.open_weights)).fillna(False).astype(bool)
    if flt.licence_classes:
        keep &= table["licence_class"].isin(flt.licence_classes)
    if flt.size_b is not None:
        size = pd.to_numeric(table["total_params_b"])
        keep &= size.between(*flt.size_b).fillna(False)
    if flt.provenance:
        backed = set(headline.loc[headline["source"].isin(flt.provenance), "model"])
        keep &= table["model_id"].isin(backed)
    if flt.released_from:
        released = pd.to_datetime(table["release_date"], errors="coerce")
        keep &= (released >= pd.Timestamp(flt.released_from)).fillna(False)
    return table[keep.astype(bool)].reset_index(drop=True)


VARIANT_RULE = (
    "Variants of one checkpoint (reasoning efforts, thinking modes) share one row, shown by the "
    "best-rated ranked variant (else the best-rated one); the row names the others. The row keeps "
    "that variant's rank, range and Elo, the same numbers as on its model page, in the snapshot "
    "diff and in the downloads, so a rank may be skipped where another setting of a checkpoint "
    "ranks above. The toggle shows every variant on its own row."
)
"""How the grouped view picks its row (shown in "How to read this")."""


def group_variants(rows: pd.DataFrame) -> pd.DataFrame:
    """One row per checkpoint of ``rows`` (a leaderboard table, ranked rows first): the ranked
    variant with the highest rating represents it, else the highest-rated variant (then the
    smaller model_id); ``variants`` names the checkpoint's other rows, ``n_variants`` counts
    them all. Each row keeps its variant's rank, rank range and upper-bound rank: ranks are
    computed once per snapshot (``elo.rate``) and no view renumbers them."""
    if rows.empty or "checkpoint_id" not in rows:
        return rows.assign(variants=pd.Series(dtype="string"), n_variants=1)
    key = rows["checkpoint_id"].where(rows["checkpoint_id"].notna(), rows["model_id"])
    order = rows.assign(
        _ck=key, _ranked=rows["eligible"].astype(bool), _r=rows["rating"].astype(float)
    ).sort_values(["_ranked", "_r", "model_id"], ascending=[False, False, True], kind="mergesort")
    reps = order.drop_duplicates("_ck")
    others = order[~order.index.isin(reps.index)]
    names: dict[object, list[str]] = {}  # a plain pass: a groupby lambda per checkpoint cost more
    for key, name in zip(others["_ck"], others["display_name"].astype(str), strict=True):
        names.setdefault(key, []).append(name)
    joined = {key: ", ".join(values) for key, values in names.items()}
    counts = order.groupby("_ck").size()
    variants = reps["_ck"].map(joined).astype(others["display_name"].dtype)
    out = reps.assign(variants=variants, n_variants=reps["_ck"].map(counts))
    out = out.drop(columns=["_ck", "_ranked", "_r"])
    ranked = out["eligible"].astype(bool)
    ordered = out.assign(_e=~ranked).sort_values(
        ["_e", "rank", "rating", "model_id"], ascending=[1, 1, 0, 1], kind="mergesort"
    )
    return ordered.drop(columns="_e").reset_index(drop=True)


def search(board: Leaderboard, rows: pd.DataFrame, text: str) -> pd.DataFrame:
    """Rows whose display name, model id or one of its aliases contains ``text`` (case-
    insensitive, surrounding spaces ignored); ranks are left as they are (those of the full
    table). An empty ``text`` keeps every row."""
    needle = text.strip().casefold()
    if not needle:
        return rows
    aliases = board.models.set_index("model_id")["aliases"] if "aliases" in board.models else None
    hay = rows["display_name"].astype(str) + "\n" + rows["model_id"].astype(str)
    if aliases is not None:
        extra = aliases.reindex(rows["model_id"]).fillna("").astype(str).str.replace(";", "\n")
        hay = hay + "\n" + extra.to_numpy()
    keep = hay.str.casefold().str.contains(needle, regex=False)
    return rows[keep.to_numpy()].reset_index(drop=True)


def with_api(board: Leaderboard, rows: pd.DataFrame) -> pd.DataFrame:
    """``rows`` with the API price, speed and index cost columns (``api_facts.BOARD_COLUMNS``),
    joined by model_id from the snapshot's models, api_speed and api_index_cost tables; empty
    where unknown."""
    return api_facts.board_columns(rows, board.api)


def with_interval(rows: pd.DataFrame) -> pd.DataFrame:
    """``rows`` with ``rating_interval``: the 95% bootstrap interval as 'low – high', and
    ``rank_range``: the bootstrap rank range as 'best–worst' (:func:`rank_range_text`; both
    empty when the rows have no bootstrap)."""
    empty = pd.Series(pd.NA, index=rows.index, dtype="string")
    if "rating_low" not in rows or "rating_high" not in rows:
        return rows.assign(rating_interval=empty, rank_range=empty)
    text = [
        pd.NA if pd.isna(lo) or pd.isna(hi) else f"{lo:.1f} – {hi:.1f}"
        for lo, hi in zip(rows["rating_low"], rows["rating_high"], strict=True)
    ]
    spans = empty
    if "rank_low" in rows and "rank_high" in rows:
        spans = pd.Series(
            [rank_range_text(lo, hi) or pd.NA for lo, hi in zip(rows["rank_low"],
                                                                 rows["rank_high"], strict=True)],
            index=rows.index, dtype="string",
        )
    return rows.assign(
        rating_interval=pd.Series(text, index=rows.index, dtype="string"), rank_range=spans
    )


def rank_range_text(low: object, high: object) -> str:
    """'2–5' for a bootstrap rank range ('3' when both ends agree; '' without one): one spelling
    for the board, the model page and the downloads."""
    if low is None or high is None or pd.isna(low) or pd.isna(high):
        return ""
    return str(int(low)) if int(low) == int(high) else f"{int(low)}–{int(high)}"


def category_table(board: Leaderboard, by_category: pd.DataFrame, category: str) -> pd.DataFrame:
    """One category's leaderboard: every model with a headline score in ``category``, ranked by
    its category rating (``elo.rate_categories``, docs/elo.md "Category leaderboards"; rank 1
    first, unrated after), with the category's provenance badge, ``overall_rating`` and
    ``overall_rank`` (the seed's rating) and ``category_profile`` (0-100, not a ranking)."""
    fitted = by_category[by_category["category"] == category].drop(columns="category")
    scores = board.scores
    headline = scores[scores["is_headline"] & (scores["category"] == category)]
    table = _assemble(fitted.rename(columns={"model_id": "model"}), board.models, headline)
    overall = board.table.set_index("model_id")[["rating", "rank"]].add_prefix("overall_")
    table = table.join(overall, on="model_id")
    return table.join(_category_column(board, category), on="model_id").reset_index(drop=True)


def _category_column(board: Leaderboard, category: str) -> pd.Series:
    rows = board.profiles[board.profiles["category"] == category]
    return rows.set_index("model")["value"].rename("category_profile")


def model_scores(board: Leaderboard, model_id: str) -> pd.DataFrame:
    """Every stored score of one model (all sources), headline rows first per benchmark."""
    rows = board.scores[board.scores["model"] == model_id]
    order = {kind: i for i, kind in enumerate(SOURCE_KINDS)}
    rows = rows.assign(_p=rows["source"].map(order))
    rows = rows.sort_values(["category", "benchmark", "is_headline", "_p"], ascending=[1, 1, 0, 1])
    return rows.drop(columns="_p").reset_index(drop=True)


@dataclass(frozen=True)
class ModelSummary:
    """The headline facts of one model for its detail page."""

    display_name: str
    rating: float | None
    rating_low: float | None
    rating_high: float | None
    rank: int | None
    rank_low: int | None
    rank_high: int | None
    n_benchmarks: int
    n_categories: int
    provenance: str
    licence_class: str
    licence_raw: str
    unrated_reason: str = ""
    rank_ub: int | None = None
    provisional: bool = False
    publishers: str = ""

    @property
    def interval_text(self) -> str:
        """'low – high' of the 95% interval, or an em dash without a bootstrap."""
        if self.rating_low is None or self.rating_high is None:
            return "—"
        return f"{self.rating_low:.1f} – {self.rating_high:.1f}"

    @property
    def rank_text(self) -> str:
        """'3 (2–5)' with the bootstrap rank range, 'provisional' with its one publisher, or
        why the model is unrated."""
        if self.rank is None:
            if self.provisional:
                return f"provisional: {self.unrated_reason}"
            return f"unrated ({self.unrated_reason or elo.UNRATED_FLOOR})"
        span = rank_range_text(self.rank_low, self.rank_high)
        return f"{self.rank} ({span})" if span else str(self.rank)


@dataclass(frozen=True)
class LinkTarget:
    """What a ``model=`` link opens: ``model_id`` (None: nothing matches), and the notice to
    show ('' when the link names the model by its current id)."""

    model_id: str | None
    notice: str = ""
    closest: tuple[str, ...] = ()


def resolve_link(board: Leaderboard, requested: str | None) -> LinkTarget:
    """The model a shared link names: its current id; a former, merged or alias spelling opens
    the model it now belongs to with a notice naming both; an unknown name opens nothing and
    lists the closest ids (a link never silently shows another model)."""
    text = (requested or "").strip()[:200]
    ids = set(board.models["model_id"])
    if not text or text in ids:
        return LinkTarget(text or None)
    names = catalog.model_names(board.models)
    try:
        found = catalog.resolve_model(board.models, text, names)
    except LookupError:
        close = difflib.get_close_matches(catalog.norm_name(text), list(names), n=8, cutoff=0.5)
        shown = tuple(dict.fromkeys(names[c] for c in close))[:5]
        return LinkTarget(None, f"No model {text!r} in this snapshot.", shown)
    shown = board.models.set_index("model_id").loc[found, "display_name"]
    return LinkTarget(
        found, f"{text!r} is now {shown} ({found}): the catalog merged or renamed that id."
    )


def model_summary(board: Leaderboard, model_id: str) -> ModelSummary:
    """Rating, interval, rank and provenance of one model (rating None when it has no score)."""
    facts = board.models.set_index("model_id").loc[model_id]
    licence_raw = "" if pd.isna(facts["licence_raw"]) else str(facts["licence_raw"])
    rows = board.table[board.table["model_id"] == model_id]
    if rows.empty:
        return ModelSummary(
            str(facts["display_name"]), None, None, None, None, None, None, 0, 0, "",
            licence_class(licence_raw or None), licence_raw,
        )
    row = rows.iloc[0]
    return ModelSummary(
        display_name=str(row["display_name"]),
        rating=float(row["rating"]),
        rating_low=_opt(row.get("rating_low"), float),
        rating_high=_opt(row.get("rating_high"), float),
        rank=_opt(row["rank"], int),
        rank_low=_opt(row.get("rank_low"), int),
        rank_high=_opt(row.get("rank_high"), int),
        n_benchmarks=int(row["n_benchmarks"]),
        n_categories=int(row["n_categories"]),
        provenance=str(row["provenance"]),
        licence_class=str(row["licence_class"]),
        licence_raw=licence_raw,
        unrated_reason=str(row.get("unrated_reason") or ""),
        rank_ub=_opt(row.get("rank_ub"), int),
        provisional=bool(row.get("provisional", False)),
        publishers=str(row.get("publishers") or ""),
    )


def _opt(value: object, kind: type) -> object:
    return None if value is None or pd.isna(value) else kind(value)


def lineage_of(board: Leaderboard, model_id: str) -> pd.DataFrame:
    """The model's predecessor and successors: relation, model_id, display_name,
    release_date, rating (NA when unscored)."""
    edges = board.lineage
    before = edges.loc[edges["model_id"] == model_id, "predecessor_id"].dropna().tolist()
    after = lineage.successors(edges, model_id)
    ids = [str(m) for m in before] + after
    relation = ["predecessor"] * len(before) + ["successor"] * len(after)
    facts = board.models.set_index("model_id").reindex(ids)
    rating = board.table.set_index("model_id")["rating"].reindex(ids)
    return pd.DataFrame(
        {
            "relation": relation,
            "model_id": ids,
            "display_name": facts["display_name"].to_numpy(),
            "release_date": facts["release_date"].to_numpy(),
            "rating": rating.to_numpy(),
        }
    )


def movers(
    board: Leaderboard, *, top: int | None = None, ranked_only: bool = False,
    grouped: bool = False,
) -> pd.DataFrame:
    """Biggest positive rating gains along lineage edges (seed 002, "Movers & lineage"),
    with names and release dates. The predecessor is always ranked in the same view (a gain
    from an unrated reference figure says nothing); ``ranked_only`` requires the successor to be
    ranked too. ``grouped``: the one-row-per-checkpoint view (:func:`group_variants`): each
    checkpoint's shown variant against the shown variant of its predecessor's checkpoint."""
    rows = board.table
    edges = board.lineage
    if grouped:
        rows = group_variants(rows)
        edges = _checkpoint_edges(board, rows)
    ranked = rows[rows["eligible"].astype(bool)]
    successors = ranked if ranked_only else rows
    out = lineage.movers(
        edges, successors[["model_id", "rating"]], top=top,
        predecessors=ranked[["model_id", "rating"]],
    )
    facts = board.models.set_index("model_id")[["display_name", "release_date"]]
    out = out.join(facts, on="model_id")
    prev = facts.rename(columns=lambda c: f"predecessor_{c.removeprefix('display_')}")
    return out.join(prev, on="predecessor_id")


def _checkpoint_edges(board: Leaderboard, shown: pd.DataFrame) -> pd.DataFrame:
    """Lineage edges between the rows of a grouped table: a shown row's predecessor is the
    shown row of the checkpoint its own predecessor belongs to."""
    checkpoint = board.models.set_index("model_id")["checkpoint_id"]
    checkpoint = checkpoint.where(checkpoint.notna(), checkpoint.index.to_series())
    face = dict(zip(checkpoint.reindex(shown["model_id"]), shown["model_id"], strict=True))
    before = board.lineage.set_index("model_id")["predecessor_id"]
    pred = before.reindex(shown["model_id"]).map(checkpoint).map(face)
    return pd.DataFrame(
        {
            "model_id": shown["model_id"].to_numpy(),
            "predecessor_id": pred.astype("string").to_numpy(),
        }
    )
