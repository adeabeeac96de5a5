"""What a model's API costs and how fast it is served, and what its release date rests on.

Four facts per model of one snapshot, each with its date and source:

- the API list price per million input and output tokens (``models.usd_per_mtok_input`` /
  ``_output``), with the day it applies from (``price_date``) and ``price_source_url``;
- the API speed of the model as served (table ``api_speed``: output tokens per second and time
  to first token, thinking included, measured by Artificial Analysis on ``measured_on``). This
  is a third kind of speed, never a GPU's: llama.cpp single-stream and MLPerf server throughput
  (table ``throughput``) are the hardware-fit page's, and the two are never mixed;
- what it cost Artificial Analysis to run its Intelligence Index on the model (table
  ``api_index_cost``: USD, measured on ``measured_on``). A list price leaves out how many
  tokens a model spends; this figure counts every one, thinking included;
- the release date's basis (``models.release_date_basis``): empty when a source states the
  release, else the proxy the date is (the day the model's key first appeared in LiteLLM);
  without any date, why none is published where the override table says so (an
  ``unpublished`` row's reason, as ``release_unpublished``); where publishers date the
  checkpoint differently, every one's day and the rule that picked the shown one (table
  ``disagreements``, as ``release_disagreement``).

Older snapshots lack the columns or the table: every fact then reads as unknown.
"""

from __future__ import annotations

from dataclasses import dataclass

import duckdb
import pandas as pd

from analytics.core import db

MODEL_COLUMNS = (
    "model_id", "release_date", "release_date_basis", "usd_per_mtok_input",
    "usd_per_mtok_output", "price_source_url", "price_date",
)
SPEED_COLUMNS = ("model_id", "output_tokens_per_s", "ttft_s", "measured_on", "source_name",
                 "source_url")
SPEED_SOURCE = "Artificial Analysis"
"""Who measures the API speeds (named when a row does not carry its ``source_name``)."""
INDEX_COST_COLUMNS = ("model_id", "index_cost_usd", "measured_on")
PRICE_SPEED_COLUMNS = (
    "api_usd_per_mtok_input", "api_usd_per_mtok_output", "api_price_from",
    "api_output_tok_per_s", "api_speed_measured_on",
)
INDEX_COST_BOARD_COLUMNS = ("api_index_cost_usd", "api_index_cost_measured_on")
BOARD_COLUMNS = PRICE_SPEED_COLUMNS + INDEX_COST_BOARD_COLUMNS
"""What :func:`board_columns` adds to leaderboard rows: prices, speed and the index cost as
numbers (a table sorts them as numbers, never as text), dates as dates."""


def model_api(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """One row per model of the snapshot: :data:`MODEL_COLUMNS`, then the API speed as
    ``speed_tok_per_s``, ``speed_ttft_s``, ``speed_measured_on``, ``speed_source_name``,
    ``speed_source_url`` and the index cost as ``index_cost_usd``, ``index_cost_measured_on``
    (missing where the snapshot has none)."""
    models = db.select_present(con, "models", list(MODEL_COLUMNS), order_by="model_id")
    speed = db.select_present(con, "api_speed", list(SPEED_COLUMNS))
    speed = speed.rename(
        columns={
            "output_tokens_per_s": "speed_tok_per_s", "ttft_s": "speed_ttft_s",
            "measured_on": "speed_measured_on", "source_name": "speed_source_name",
            "source_url": "speed_source_url",
        }
    )
    speed = speed.drop_duplicates("model_id")  # one row per model (its primary key)
    cost = db.select_present(con, "api_index_cost", list(INDEX_COST_COLUMNS))
    cost = cost.rename(columns={"measured_on": "index_cost_measured_on"})
    cost = cost.drop_duplicates("model_id")
    out = models.merge(speed, on="model_id", how="left").merge(cost, on="model_id", how="left")
    notes = db.select_present(con, "overrides", ["action", "subject", "field", "reason"])
    notes = notes[(notes["action"] == "unpublished") & (notes["field"] == "release_date")]
    why = dict(zip(notes["subject"], notes["reason"], strict=True))
    out["release_unpublished"] = out["model_id"].map(why)
    checkpoints = db.select_present(con, "models", ["model_id", "checkpoint_id"])
    split = db.select_present(con, "disagreements", ["checkpoint_id", "field", "values", "settled"])
    split = split[split["field"] == "release_date"]
    said = {c: f"{v} (shown: {s})" if s else v
            for c, v, s in zip(split["checkpoint_id"], split["values"], split["settled"],
                               strict=True)}
    of = dict(zip(checkpoints["model_id"], checkpoints["checkpoint_id"], strict=True))
    out["release_disagreement"] = out["model_id"].map(lambda m: said.get(of.get(m, m)))
    return out


def usd_text(value: float) -> str:
    """'$2.00', '$0.435', '$0.0375': cents always, more digits only where the price has them."""
    if value >= 0.01 and abs(value * 100 - round(value * 100)) < 1e-9:
        return f"${value:,.2f}"
    return "$" + f"{value:,.6f}".rstrip("0")


def price_text(usd_input: object, usd_output: object) -> str | None:
    """'$2.00 / $12.00' (per 1M input / output tokens); one side known: 'input $2.00' or
    'output $12.00'; None when neither is."""
    inp, out = _number(usd_input), _number(usd_output)
    if inp is not None and out is not None:
        return f"{usd_text(inp)} / {usd_text(out)}"
    if inp is not None:
        return f"input {usd_text(inp)}"
    if out is not None:
        return f"output {usd_text(out)}"
    return None


def speed_text(tok_per_s: float) -> str:
    """'140 tok/s' (one decimal below 10 tok/s)."""
    return f"{tok_per_s:,.0f} tok/s" if tok_per_s >= 10 else f"{tok_per_s:.1f} tok/s"


def seconds_text(seconds: float) -> str:
    """'0.94 s', '37.2 s'."""
    return f"{seconds:.2f} s" if seconds < 10 else f"{seconds:,.1f} s"


def board_columns(rows: pd.DataFrame, api: pd.DataFrame) -> pd.DataFrame:
    """Leaderboard ``rows`` with :data:`BOARD_COLUMNS`: USD per 1M input and output tokens, the
    day the price applies from, output tokens/s of the API as served and the day that was
    measured, the USD Artificial Analysis spent running its Intelligence Index and the day of
    that figure; empty (NA) where unknown. ``api``: :func:`model_api`'s frame."""
    facts = api.set_index("model_id") if not api.empty else pd.DataFrame(index=pd.Index([]))
    picked = facts.reindex(rows["model_id"].astype(str))

    def column(name: str) -> pd.Series:
        if name in picked:
            return picked[name]
        return pd.Series(pd.NA, index=picked.index, dtype=object)

    usd_in = _numbers(column("usd_per_mtok_input"))
    usd_out = _numbers(column("usd_per_mtok_output"))
    priced = (usd_in.notna() | usd_out.notna()).to_numpy()
    return rows.assign(
        api_usd_per_mtok_input=usd_in.to_numpy(),
        api_usd_per_mtok_output=usd_out.to_numpy(),
        api_price_from=_dates(column("price_date").where(priced), rows.index),
        api_output_tok_per_s=_numbers(column("speed_tok_per_s")).to_numpy(),
        api_speed_measured_on=_dates(column("speed_measured_on"), rows.index),
        api_index_cost_usd=_numbers(column("index_cost_usd")).to_numpy(),
        api_index_cost_measured_on=_dates(column("index_cost_measured_on"), rows.index),
    )


def _numbers(values: pd.Series) -> pd.Series:
    """A nullable float column (NA where unknown): sorts as numbers, empty cells apart."""
    return pd.to_numeric(values, errors="coerce").astype("Float64")


def _dates(values: pd.Series, index: pd.Index) -> pd.Series:
    return pd.Series(pd.to_datetime(values, errors="coerce").to_numpy(), index=index)


def _number(value: object) -> float | None:
    if value is None or isinstance(value, str):
        return None
    try:
        return None if pd.isna(value) else float(value)
    except (TypeError, ValueError):
        return None


def _day(value: object) -> str | None:
    if value is None or (not isinstance(value, str) and pd.isna(value)) or value == "":
        return None
    return f"{pd.Timestamp(value):%Y-%m-%d}"


def _text(value: object) -> str:
    if value is None or (not isinstance(value, str) and pd.isna(value)):
        return ""
    return str(value).strip()


# --- one model's facts (the model page) -----------------------------------------------------


@dataclass(frozen=True)
class ApiPrice:
    """The API list price of one model, USD per million tokens (either side may be unknown)."""

    usd_per_mtok_input: float | None
    usd_per_mtok_output: float | None
    applies_from: str | None  # YYYY-MM-DD
    source_urls: tuple[str, ...]  # the ';'-separated ``price_source_url``, in order

    def line(self) -> str:
        """'$2.00 / $8.00 per 1M input / output tokens, applies from 2025-06-11.'"""
        inp, out = self.usd_per_mtok_input, self.usd_per_mtok_output
        if inp is not None and out is not None:
            text = f"{usd_text(inp)} / {usd_text(out)} per 1M input / output tokens"
        elif inp is not None:
            text = f"{usd_text(inp)} per 1M input tokens (output price not listed)"
        else:
            text = f"{usd_text(out or 0.0)} per 1M output tokens (input price not listed)"
        when = f"applies from {self.applies_from}" if self.applies_from else "date not recorded"
        return f"{text}, {when}."


@dataclass(frozen=True)
class ApiSpeed:
    """The API speed of one model as served, measured on one day."""

    output_tok_per_s: float
    ttft_s: float | None
    measured_on: str | None  # YYYY-MM-DD
    source_name: str
    source_url: str

    @property
    def measured_by(self) -> str:
        """The measuring publisher: 'Artificial Analysis' of 'Artificial Analysis (API, as
        served)'."""
        return self.source_name.split(" (", 1)[0].strip() or SPEED_SOURCE

    def line(self) -> str:
        """'API, as served, measured by Artificial Analysis on 2026-08-22: 140 tok/s, time to
        first token 0.94 s (includes thinking for reasoning models).'"""
        on = f" on {self.measured_on}" if self.measured_on else ""
        text = f"API, as served, measured by {self.measured_by}{on}: "
        text += speed_text(self.output_tok_per_s)
        if self.ttft_s is not None:
            text += (
                f", time to first token {seconds_text(self.ttft_s)} "
                "(includes thinking for reasoning models)"
            )
        return text + "."


@dataclass(frozen=True)
class ModelApi:
    """A model's API price and speed (None where unknown) and its release date with basis."""

    price: ApiPrice | None
    speed: ApiSpeed | None
    release_date: str | None  # YYYY-MM-DD
    release_basis: str  # '' when a source states the release
    release_unpublished: str = ""  # why no source dates it ('' when unknown or dated)
    release_disagreement: str = ""  # every publisher's day where they disagree, and the rule

    def disagreement_line(self) -> str:
        """'Publishers date it differently: Epoch AI 2024-06-07; LLM Stats 2024-07-23 (shown: 2
        of 3 publishers agree).'; '' where they agree."""
        if not self.release_disagreement:
            return ""
        return f"Publishers date it differently: {self.release_disagreement}."

    def release_line(self) -> str:
        """'Released 2025-04-14.', or for a proxy 'First seen in LiteLLM on 2026-09-22 (no
        published release date).'; without a date, why none is published, else ''."""
        if not self.release_date:
            why = self.release_unpublished
            return f"No published release date: {why}." if why else ""
        if not self.release_basis:
            return f"Released {self.release_date}."
        basis = self.release_basis[:1].upper() + self.release_basis[1:]
        return f"{basis} on {self.release_date} (no published release date)."


def model_api_of(api: pd.DataFrame, model_id: str) -> ModelApi:
    """:class:`ModelApi` of one model from :func:`model_api`'s frame (all unknown when the
    model is not in it)."""
    rows = api[api["model_id"] == model_id] if "model_id" in api else api.iloc[0:0]
    if rows.empty:
        return ModelApi(None, None, None, "")
    row = rows.iloc[0]
    inp, out = _number(row.get("usd_per_mtok_input")), _number(row.get("usd_per_mtok_output"))
    price = None
    if inp is not None or out is not None:
        urls = tuple(u.strip() for u in _text(row.get("price_source_url")).split(";") if u.strip())
        price = ApiPrice(inp, out, _day(row.get("price_date")), urls)
    speed = None
    tok = _number(row.get("speed_tok_per_s"))
    if tok is not None:
        speed = ApiSpeed(
            tok, _number(row.get("speed_ttft_s")), _day(row.get("speed_measured_on")),
            _text(row.get("speed_source_name")) or SPEED_SOURCE,
            _text(row.get("speed_source_url")),
        )
    return ModelApi(
        price, speed, _day(row.get("release_date")), _text(row.get("release_date_basis")),
        _text(row.get("release_unpublished")), _text(row.get("release_disagreement")),
    )
