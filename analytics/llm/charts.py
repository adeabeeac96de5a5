"""The LLM charts page's frames: Elo against release date, size and API price, with frontiers.

Pure pandas/numpy on the leaderboard table (``leaderboard.Leaderboard.table``), the catalog
models and their prices (:func:`model_prices`). Each chart gets one :class:`ChartFrame`: the
plotted points with a ready hover text, the frontier line, and how many models it leaves out
for want of an x value. By default only ranked models are plotted (``eligible``).

Frontiers:

- over time (:func:`frontier_over_time`): for each release date, the best rating released on
  or before it, separately for open and closed weights (a step envelope);
- size and price (:func:`pareto_frontier`): the models no other model dominates (another with
  an x at most as large and a rating at least as high, one of them strictly).

The blended API price is (3 x input + 1 x output) / 4 USD per million tokens; a model needs both
list prices, and a positive blend (the axis is logarithmic), to be plotted; its hover names the
price's source and the day it applies from (``price_date``). The release chart plots stated
release dates only: a date whose ``release_date_basis`` is a proxy (first seen in LiteLLM) is left
out and counted.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlparse

import duckdb
import numpy as np
import pandas as pd

from analytics.core import db

BLEND = (3, 1)  # input : output tokens of the blended price
PRICE_COLUMNS = ("usd_per_mtok_input", "usd_per_mtok_output", "price_source_url", "price_date")
BASIS = "release_date_basis"  # empty: a source states the release date; else its proxy
OPEN, CLOSED, UNKNOWN = "Open weights", "Closed weights", "Weights unknown"
KIND = {OPEN: "open-weight", CLOSED: "closed-weight", UNKNOWN: "weights-unknown"}
RATING_TITLE = "Elo rating"


@dataclass(frozen=True)
class ChartFrame:
    """One chart: ``points`` (x, rating, weights, on_frontier, hover, model_id, display_name),
    ``frontier`` (x, rating, weights, hover, in plotting order), the axis titles, and
    ``excluded``: how many models in scope lack this chart's x (``missing_line`` says so)."""

    points: pd.DataFrame
    frontier: pd.DataFrame
    excluded: int
    x_title: str
    y_title: str
    missing_line: str
    proxy_dated: int = 0  # left out of the release chart: their date is a proxy, not a release


@dataclass(frozen=True)
class Charts:
    release: ChartFrame
    size: ChartFrame
    price: ChartFrame
    n_models: int  # models in scope (ranked only by default)
    n_unrated: int  # scored models left out because they are unrated


# --- frontiers ------------------------------------------------------------------------------


def frontier_over_time(
    table: pd.DataFrame, x: str = "release_date", y: str = "rating", group: str = "open_weights"
) -> pd.DataFrame:
    """The best ``y`` released on or before each release date, per ``group`` (open / closed).

    One row per group and distinct date (rows without a date or rating are ignored): ``group``,
    ``x``, ``best`` (the running maximum), ``model_id`` of the model holding it (on a tie in
    rating, the earliest released, then the lowest ``model_id``) and ``is_record`` (the best
    rose strictly on that date). Sorted by group, then date.
    """
    cols = [group, x, "best", "model_id", "is_record"]
    rows = table.assign(_x=pd.to_datetime(table[x]), _y=pd.to_numeric(table[y]))
    rows = rows.dropna(subset=["_x", "_y"])
    if rows.empty:
        return pd.DataFrame(columns=cols)
    rows = rows.sort_values([group, "_x", "_y", "model_id"], ascending=[True, True, False, True])
    out = []
    for key, part in rows.groupby(group, sort=True):
        day_best = part.groupby("_x", sort=True).first()  # highest rating on each date
        best = day_best["_y"].cummax()
        # a record: the day's best is strictly above every earlier day's (the first day is one)
        record = day_best["_y"] > best.shift(1, fill_value=-np.inf)
        holder = day_best["model_id"].where(record).ffill()  # the last record's model holds it
        out.append(
            pd.DataFrame(
                {
                    group: key,
                    x: best.index,
                    "best": best.to_numpy(),
                    "model_id": holder.to_numpy(),
                    "is_record": record.to_numpy(),
                }
            )
        )
    return pd.concat(out, ignore_index=True)[cols]


def pareto_frontier(
    table: pd.DataFrame, x: str, y: str = "rating", lower_x_is_better: bool = True
) -> pd.Series:
    """True for rows no other row dominates: none has an x at least as good and a ``y`` at least
    as high with one of the two strictly better. Higher ``y`` is better; lower x is better when
    ``lower_x_is_better``. Rows with a missing x or y are never on the frontier; identical
    points are both on it. Aligned with ``table.index``."""
    xs = pd.to_numeric(table[x], errors="coerce").astype(float)
    ys = pd.to_numeric(table[y], errors="coerce").astype(float)
    key = xs if lower_x_is_better else -xs
    valid = key.notna() & ys.notna()
    on = pd.Series(False, index=table.index)
    if not valid.any():
        return on
    best_at = ys[valid].groupby(key[valid]).max().sort_index()  # best y at each x
    better_before = best_at.cummax().shift(1, fill_value=-np.inf)  # best y at any better x
    k, v = key[valid], ys[valid]
    on[valid] = (v.to_numpy() == best_at.reindex(k).to_numpy()) & (
        best_at.reindex(k).to_numpy() > better_before.reindex(k).to_numpy()
    )
    return on


# --- prices ---------------------------------------------------------------------------------


def model_prices(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """model_id, active_params_b, the API list-price columns (:data:`PRICE_COLUMNS`) and
    ``release_date_basis`` of the snapshot's models; columns an older snapshot lacks are all
    missing."""
    wanted = ["model_id", "active_params_b", *PRICE_COLUMNS, BASIS]
    return db.select_present(con, "models", wanted, order_by="model_id")


def blended_price(usd_in: pd.Series, usd_out: pd.Series) -> pd.Series:
    """USD per million tokens at :data:`BLEND` input:output tokens; missing if either is."""
    a, b = BLEND
    inp = pd.to_numeric(usd_in, errors="coerce").astype(float)
    out = pd.to_numeric(usd_out, errors="coerce").astype(float)
    return (a * inp + b * out) / (a + b)


# --- the chart frames -----------------------------------------------------------------------


def build(
    table: pd.DataFrame, prices: pd.DataFrame | None = None, ranked_only: bool = True
) -> Charts:
    """The three charts of a leaderboard table (``prices``: :func:`model_prices`)."""
    scope = table[table["eligible"].astype(bool)] if ranked_only else table
    scope = scope.dropna(subset=["rating"])
    if prices is not None and not prices.empty:
        extra = prices.drop(columns=[c for c in prices.columns if c in scope and c != "model_id"])
        scope = scope.merge(extra, on="model_id", how="left")
    for col in ["active_params_b", *PRICE_COLUMNS, BASIS]:
        if col not in scope:
            scope = scope.assign(**{col: pd.NA})
    scope = scope.reset_index(drop=True)
    n_unrated = int((~table["eligible"].astype(bool)).sum()) if ranked_only else 0
    return Charts(
        release=release_chart(scope),
        size=size_chart(scope),
        price=price_chart(scope),
        n_models=len(scope),
        n_unrated=n_unrated,
    )


def release_chart(table: pd.DataFrame) -> ChartFrame:
    """Rating against release date, open and closed weights, each with its envelope. A model
    whose ``release_date_basis`` names a proxy (the day its key first appeared in LiteLLM) is
    left out: that day is not a release date (``proxy_dated`` counts them)."""
    rows = _base(table)
    rows["x"] = pd.to_datetime(rows["release_date"])
    basis = rows[BASIS] if BASIS in rows else pd.Series(pd.NA, index=rows.index, dtype=object)
    proxy = basis.fillna("").astype(str).str.strip() != ""
    proxies = sorted(set(basis[proxy].astype(str).str.strip()))
    rows = rows[~proxy]
    dated = rows.dropna(subset=["x"]).copy()
    dated["hover"] = _hover(dated, "Released " + dated["x"].dt.strftime("%Y-%m-%d"))
    env = frontier_over_time(dated.assign(open_weights=dated["weights"]), x="x", y="rating")
    env = env.rename(columns={"open_weights": "weights", "best": "rating"})
    names = dated.set_index("model_id")["display_name"]
    env["hover"] = [
        f"Best {KIND[w]} model by {d:%Y-%m-%d}: {names.get(m, m)} (Elo {r:.1f})"
        for w, d, m, r in zip(env["weights"], env["x"], env["model_id"], env["rating"], strict=True)
    ]
    record = set(zip(env.loc[env["is_record"], "weights"], env.loc[env["is_record"], "model_id"],
                     strict=True))
    dated["on_frontier"] = [
        (w, m) in record for w, m in zip(dated["weights"], dated["model_id"], strict=True)
    ]
    missing = len(rows) - len(dated)
    line = _missing(missing, "release date")
    if proxy.any():
        n = int(proxy.sum())
        line += (
            f" {n} model{'' if n == 1 else 's'} left out: {'its' if n == 1 else 'their'} date is "
            f"a proxy ({'; '.join(proxies)}), not a published release date."
        )
    return ChartFrame(
        _points(dated), env[["weights", "x", "rating", "model_id", "hover"]], missing,
        "Release date", RATING_TITLE, line, proxy_dated=int(proxy.sum()),
    )


def size_chart(table: pd.DataFrame) -> ChartFrame:
    """Rating against total parameters (billions) of open-weight models, Pareto marked."""
    rows = _base(table)
    rows = rows[rows["weights"] == OPEN].copy()
    rows["x"] = pd.to_numeric(rows["total_params_b"], errors="coerce").astype(float)
    sized = rows[rows["x"] > 0].copy()
    active = pd.to_numeric(sized["active_params_b"], errors="coerce").astype(float)
    x_text = [
        f"Total parameters {p:,.4g} B" + (f" ({a:,.4g} B active)" if a == a and a < p else "")
        for p, a in zip(sized["x"], active, strict=True)
    ]
    sized["hover"] = _hover(sized, pd.Series(x_text, index=sized.index, dtype=object))
    return _pareto_chart(
        sized, len(rows) - len(sized), "Total parameters (billions, log scale)", "parameter count"
    )


def price_chart(table: pd.DataFrame) -> ChartFrame:
    """Rating against the blended API price (USD per million tokens), Pareto marked."""
    rows = _base(table)
    rows["x"] = blended_price(rows["usd_per_mtok_input"], rows["usd_per_mtok_output"])
    priced = rows[rows["x"] > 0].copy()
    a, b = BLEND
    x_text = [
        f"Blended price ${p:,.3g} per 1M tokens ({a}:{b} input:output; input ${i:,.3g}, "
        f"output ${o:,.3g})<br>Price source: {_hosts(src)}, {_date_text(d)}"
        for p, i, o, src, d in zip(
            priced["x"],
            priced["usd_per_mtok_input"],
            priced["usd_per_mtok_output"],
            priced["price_source_url"],
            priced["price_date"],
            strict=True,
        )
    ]
    priced["hover"] = _hover(priced, pd.Series(x_text, index=priced.index, dtype=object))
    return _pareto_chart(
        priced, len(rows) - len(priced),
        f"Blended API price (USD per million tokens, {a}:{b} input:output, log scale)", "price",
    )


def _pareto_chart(rows: pd.DataFrame, missing: int, x_title: str, what: str) -> ChartFrame:
    rows["on_frontier"] = pareto_frontier(rows, "x", "rating", lower_x_is_better=True)
    line = rows[rows["on_frontier"]].sort_values(["x", "rating"])
    # display_name: the frontier's points are labelled on the chart, not only on hover
    cols = ["weights", "x", "rating", "model_id", "display_name", "hover"]
    frontier = line[cols].reset_index(drop=True)
    return ChartFrame(
        _points(rows), frontier, missing, x_title, RATING_TITLE, _missing(missing, what)
    )


def _base(table: pd.DataFrame) -> pd.DataFrame:
    rows = table.copy()
    flags = rows["open_weights"].astype("boolean")
    rows["weights"] = [UNKNOWN if pd.isna(v) else OPEN if v else CLOSED for v in flags]
    rows["display_name"] = rows["display_name"].fillna(rows["model_id"]).astype(str)
    return rows


def _points(rows: pd.DataFrame) -> pd.DataFrame:
    cols = ["model_id", "display_name", "weights", "x", "rating", "on_frontier", "hover"]
    return rows[cols].reset_index(drop=True)


def _hover(rows: pd.DataFrame, x_text: pd.Series) -> pd.Series:
    """Name, Elo with its 95% interval when known, organisation, then the chart's x line."""

    def column(name: str) -> pd.Series:
        return rows[name] if name in rows else pd.Series(None, index=rows.index, dtype=object)

    out = []
    for name, rating, low, high, org, x in zip(
        rows["display_name"], rows["rating"], column("rating_low"), column("rating_high"),
        column("organisation"), x_text.reindex(rows.index), strict=True,
    ):
        elo = f"Elo {rating:.1f}"
        if low is not None and high is not None and not pd.isna(low) and not pd.isna(high):
            elo += f" (95% interval {low:.1f}–{high:.1f})"
        org_text = "organisation not recorded" if org is None or pd.isna(org) else str(org)
        out.append(f"<b>{name}</b><br>{elo}<br>{org_text}<br>{x}")
    return pd.Series(out, index=rows.index, dtype=object)


def _missing(n: int, what: str) -> str:
    return f"{n} model{'' if n == 1 else 's'} {'has' if n == 1 else 'have'} no {what}."


def _hosts(urls: object) -> str:
    """The host names of a ';'-separated URL list, e.g. 'artificialanalysis.ai'."""
    if urls is None or (not isinstance(urls, str) and pd.isna(urls)) or not str(urls).strip():
        return "source not recorded"
    hosts = [urlparse(u.strip()).netloc or u.strip() for u in str(urls).split(";") if u.strip()]
    return ", ".join(dict.fromkeys(hosts))


def _date_text(value: object) -> str:
    """'applies from 2025-06-11' (a price's ``price_date``: the day it applies from)."""
    if value is None or (not isinstance(value, str) and pd.isna(value)) or value == "":
        return "date not recorded"
    return f"applies from {pd.Timestamp(value):%Y-%m-%d}"
