"""Issue 28 on the pages (AppTest): the API price with the day it applies from and the API speed
as served (Artificial Analysis) on the leaderboard and the model page, a release date's basis,
no API speed on the hardware-fit page, the release chart without first-seen days and the home
page's list of third-party copies.

Most tests run on the committed snapshot (the newest one built under ``data/snapshots``, copied
with its derived tables into tmp_path, so nothing is written to the repo). The figures change
when the catalog is rebuilt: tests read the expected values from that snapshot and assert on
presence and format, never on literals copied from today's data. The copies list is also pinned
on the LLM rating snapshot of ``tests/fixtures/catalogs.py`` with two made-up copies (test data).
"""

from __future__ import annotations

import functools
import json
import shutil
from pathlib import Path
from urllib.parse import urlparse

import duckdb
import pandas as pd
import pytest

from analytics.core import db, paths, snapshot
from analytics.llm import api_facts, charts, leaderboard, ratings
from tests.fixtures.apptest import fresh_caches, run_page, serve_tables, shown_labels, tables
from tests.fixtures.catalogs import llm_catalog_rows
from tests.fixtures.store import StorePaths

COMMITTED = paths.REPO_ROOT / "data" / "snapshots"
# Hard-coded models of the committed snapshot, chosen to stay what they are across rebuilds:
PRICED = "gpt-4.1-2025-04-14"  # OpenAI's dated list price, and an Artificial Analysis API speed
UNPRICED = "gopher-280b"  # DeepMind's 2021 research model: never served by an API
FIRST_SEEN = "pplx-70b-online"  # Perplexity's 2023 model, dated only by LiteLLM's first sight
STATED = PRICED  # its release date is OpenAI's own


@functools.cache
def _version() -> str:
    """The newest snapshot built under data/snapshots (the one the repo serves), read once so a
    rebuild during the run cannot mix two versions."""
    versions = snapshot.list_versions(COMMITTED)
    assert versions, f"{COMMITTED}: no built snapshot"
    return versions[-1]


@pytest.fixture(scope="module")
def prepared(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store holding a copy of the committed snapshot and its derived tables (computed here,
    once, where the repo has none yet for it: a fresh catalog build before `derive`)."""
    version, root = _version(), tmp_path_factory.mktemp("committed")
    shutil.copytree(COMMITTED / version, root / "snapshots" / version)
    derived = COMMITTED.parent / "derived" / version
    if derived.is_dir():
        shutil.copytree(derived, root / "derived" / version)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(paths, "SNAPSHOTS_DIR", root / "snapshots")
        mp.setattr(paths, "RUNS_DIR", root / "runs")
        leaderboard.for_version(version)  # the ratings with intervals and the board inputs
        ratings.of_version(version)  # the calculators' ratings (no bootstrap)
    return root


@pytest.fixture()
def committed(prepared: Path, store_paths: StorePaths) -> str:
    """The committed snapshot and its derived tables (``prepared``), copied into this test's
    store and served."""
    version = _version()
    shutil.copytree(prepared / "snapshots" / version, store_paths.snapshots / version)
    shutil.copytree(prepared / "derived" / version, store_paths.root / "derived" / version)
    store_paths.monkeypatch.setattr(db, "ensure_snapshot", lambda *args, **kwargs: version)
    fresh_caches()
    return version


def _read(sql: str) -> pd.DataFrame:
    """A query over the committed snapshot's Parquet files (``{d}`` = its folder)."""
    return duckdb.sql(sql.format(d=COMMITTED / _version())).df()


def _model(model_id: str) -> pd.Series:
    rows = _read("SELECT * FROM '{d}/models.parquet'")
    return rows.set_index("model_id").loc[model_id]


def _speed(model_id: str) -> pd.Series | None:
    rows = _read("SELECT * FROM '{d}/api_speed.parquet'").set_index("model_id")
    return rows.loc[model_id] if model_id in rows.index else None


def _day(value: object) -> str:
    return f"{pd.Timestamp(value):%Y-%m-%d}"


def _board_row(model_id: str) -> tuple[pd.Series, list[str]]:
    """The model's leaderboard row (every variant on its own row) and its table's headers."""
    at = run_page("llm/leaderboard.py", variants="all")
    assert not at.exception
    for table in tables(at)[:2]:  # ranked, unrated
        rows = table.value
        if model_id in set(rows["model_id"]):
            return rows.set_index("model_id").loc[model_id], shown_labels(table)
    raise AssertionError(f"{model_id} is on neither leaderboard table")


def _texts(at) -> str:
    return "\n".join(e.value for e in [*at.markdown, *at.caption]).replace("\\$", "$")


def test_the_committed_snapshot_has_the_api_tables() -> None:
    model = _model(PRICED)
    assert pd.notna(model["usd_per_mtok_input"]) and pd.notna(model["price_date"])
    assert _speed(PRICED) is not None
    unpriced = _model(UNPRICED)
    assert pd.isna(unpriced["usd_per_mtok_input"]) and pd.isna(unpriced["usd_per_mtok_output"])
    assert _speed(UNPRICED) is None
    assert _model(FIRST_SEEN)["release_date_basis"] == "first seen in LiteLLM"
    stated = _model(STATED)
    assert pd.isna(stated["release_date_basis"]) and pd.notna(stated["release_date"])


def test_leaderboard_shows_the_api_price_and_speed_with_their_dates(committed: str) -> None:
    model, speed = _model(PRICED), _speed(PRICED)
    row, labels = _board_row(PRICED)
    assert row["api_usd_per_mtok_input"] == pytest.approx(model["usd_per_mtok_input"])
    assert row["api_usd_per_mtok_output"] == pytest.approx(model["usd_per_mtok_output"])
    assert _day(row["api_price_from"]) == _day(model["price_date"])
    assert row["api_output_tok_per_s"] == pytest.approx(speed["output_tokens_per_s"])
    assert _day(row["api_speed_measured_on"]) == _day(speed["measured_on"])
    assert {"API $/1M input", "API $/1M output", "Price from", "API speed",
            "Speed measured"} <= set(labels)


def test_leaderboard_price_columns_sort_as_numbers(committed: str) -> None:
    """$5 sorts before $75 (text put "$75" first) and unpriced rows are empty, not text."""
    at = run_page("llm/leaderboard.py")
    assert not at.exception
    (ranked, *_) = tables(at)
    config = json.loads(ranked.proto.columns or "{}")
    for column in ("api_usd_per_mtok_input", "api_usd_per_mtok_output", "api_output_tok_per_s"):
        values = ranked.value[column]
        assert pd.api.types.is_float_dtype(values), column  # never text
        assert config[column]["type_config"]["type"] == "number"
        assert config[column]["type_config"]["format"]
        assert values.notna().any() and values.isna().any()
        ordered = values.sort_values(na_position="last").tolist()
        known = [v for v in ordered if pd.notna(v)]
        assert known == sorted(known) and all(pd.isna(v) for v in ordered[len(known):])


def test_leaderboard_cells_are_empty_without_a_price_or_speed(committed: str) -> None:
    row, _ = _board_row(UNPRICED)
    assert all(pd.isna(row[c]) for c in api_facts.PRICE_SPEED_COLUMNS)  # shown without a pick


def test_model_page_shows_the_price_and_the_api_speed_with_dates_and_links(
    committed: str,
) -> None:
    model, speed = _model(PRICED), _speed(PRICED)
    at = run_page("llm/model.py", model=PRICED)
    assert not at.exception
    assert "API" in [s.value for s in at.subheader]
    text = _texts(at)
    price = api_facts.price_text(model["usd_per_mtok_input"], model["usd_per_mtok_output"])
    assert f"{price} per 1M input / output tokens, applies from {_day(model['price_date'])}" in text
    first_url = str(model["price_source_url"]).split(";")[0].strip()
    assert f"]({first_url})" in text
    tok = api_facts.speed_text(speed["output_tokens_per_s"])
    assert (
        f"API, as served, measured by Artificial Analysis on {_day(speed['measured_on'])}: "
        f"{tok}, time to first token {api_facts.seconds_text(speed['ttft_s'])} "
        "(includes thinking for reasoning models)"
    ) in text
    assert f"]({speed['source_url']})" in text
    assert f"Released {_day(model['release_date'])}." in text  # a stated release date


def test_model_page_says_quietly_when_neither_is_known(committed: str) -> None:
    at = run_page("llm/model.py", model=UNPRICED)
    assert not at.exception
    assert "No API price or API speed is recorded for this model." in [c.value for c in at.caption]
    assert not any("**Price:**" in m.value or "**Speed:**" in m.value for m in at.markdown)


def test_model_page_shows_a_first_seen_day_as_no_release_date(committed: str) -> None:
    model = _model(FIRST_SEEN)
    at = run_page("llm/model.py", model=FIRST_SEEN)
    assert not at.exception
    text = _texts(at)
    day = _day(model["release_date"])
    assert f"First seen in LiteLLM on {day} (no published release date)." in text
    assert f"Released {day}" not in text


def test_model_page_says_why_no_release_date_is_published(committed: str) -> None:
    """claude-instant-1.1 has an ``unpublished`` override: its page gives the row's reason."""
    at = run_page("llm/model.py", model="claude-instant-1.1")
    assert not at.exception
    line = next(c.value for c in at.caption if c.value.startswith("No published release date: "))
    assert "Anthropic's model table lists claude-instant-1.1" in line
    assert "Released" not in line


def test_model_page_lists_every_publishers_day_where_they_disagree(committed: str) -> None:
    at = run_page("llm/model.py", model="qwen2-72b-instruct")
    assert not at.exception
    captions = [c.value for c in at.caption]
    assert "Released 2024-06-07." in captions
    line = next(c for c in captions if c.startswith("Publishers date it differently: "))
    assert "LLM Stats 2024-07-23" in line and "Epoch AI 2024-06-07" in line
    assert line.endswith("(shown: 2 of 4 publishers agree).")
    quiet = run_page("llm/model.py", model=FIRST_SEEN)  # no publisher states a day: no line
    assert not any(c.value.startswith("Publishers date") for c in quiet.caption)


HARDWARE = [{"gpu": "rtx-4090"}, {"gpu": "h200", "count": "8"}]  # llama.cpp and MLPerf rows


@pytest.mark.parametrize("query", HARDWARE, ids=lambda q: "x".join(q.values()))
def test_hardware_fit_shows_no_api_speed(committed: str, query: dict) -> None:
    """Every speed on the page is a measured GPU row of ``throughput``; no API speed figure,
    header or wording appears."""
    at = run_page("llm/hardware_fit.py", all="1", **query)
    assert not at.exception and not at.error
    (table,) = at.dataframe
    labels = shown_labels(table)
    assert not [h for h in labels if "API" in h or "as served" in h or "Artificial" in h]
    words = "\n".join(e.value for e in [*at.markdown, *at.caption, *at.info])
    assert "as served" not in words and "Artificial Analysis" not in words
    gpu = _read(
        "SELECT tokens_per_s FROM '{d}/throughput.parquet' "
        f"WHERE gpu_id = '{query['gpu']}' AND gpu_count = {int(query.get('count', 1))}"
    )["tokens_per_s"]
    api = _read("SELECT output_tokens_per_s FROM '{d}/api_speed.parquet'")["output_tokens_per_s"]
    measured = set(gpu.round(2))
    frame = table.value
    shown = pd.concat(
        [pd.to_numeric(frame[c], errors="coerce") for c in frame.columns if "tok/s" in str(c)]
    ).dropna()
    assert not shown.empty  # the committed catalog measures each of these GPUs
    assert set(shown.round(2)) <= measured  # only measured GPU rows
    assert not set(shown.round(2)) & (set(api.round(2)) - measured)  # no API speed


def proxy_bases(version: str) -> list[str]:
    """The proxy bases of the ranked models' release dates in one snapshot."""
    board = leaderboard.for_version(version)
    ranked = board.table.loc[board.table["eligible"].astype(bool), "model_id"]
    models = _read("SELECT model_id, release_date_basis AS b FROM '{d}/models.parquet'")
    models = models[models["model_id"].isin(ranked) & models["b"].fillna("").str.strip().ne("")]
    return sorted(set(models["b"]))


def test_release_chart_leaves_out_first_seen_days_and_says_so(committed: str) -> None:
    board = leaderboard.for_version(committed)
    con = db.connect(committed)
    try:
        data = charts.build(board.table, charts.model_prices(con))
    finally:
        con.close()
    proxy = _read(
        "SELECT model_id FROM '{d}/models.parquet' "
        "WHERE coalesce(trim(release_date_basis), '') <> ''"
    )["model_id"]
    ranked = set(board.table.loc[board.table["eligible"].astype(bool), "model_id"])
    n = len(set(proxy) & ranked)
    assert n > 0  # the committed snapshot has first-seen days on ranked models
    assert data.release.proxy_dated == n
    assert not set(data.release.points["model_id"]) & set(proxy)
    at = run_page("llm/charts.py")
    assert not at.exception
    caption = next(c.value for c in at.caption if "Stated release dates only" in c.value)
    assert f"{n} model{'' if n == 1 else 's'} left out:" in caption
    its = "its" if n == 1 else "their"  # one proxy-dated model since metergraph dates the rest
    bases = caption.split(f"{its} date is a proxy (", 1)[1].split("), not a published", 1)[0]
    assert set(bases.split("; ")) == set(proxy_bases(committed))  # every proxy named once


def test_price_chart_hover_names_the_source_and_the_day_it_applies_from(committed: str) -> None:
    model = _model(PRICED)
    price = json.loads(run_page("llm/charts.py").get("plotly_chart")[2].proto.spec)
    name = str(model["display_name"])
    texts = [t for trace in price["data"] for t in trace.get("hovertext") or []]
    hover = next(t for t in texts if t.startswith(f"<b>{name}</b>"))
    host = urlparse(str(model["price_source_url"]).split(";")[0].strip()).netloc
    assert f"Price source: {host}, applies from {_day(model['price_date'])}" in hover


# --- the home page's list of third-party copies ------------------------------------------------

COPIES = [  # test data, not real figures
    dict(copy_id="arena-copy", publisher="Arena (LMArena)", package="arena-copy 0.2.0 (PyPI)",
         data_date="2026-10-21", used_for="Arena text ratings", compared_with="Arena's own board",
         shared=120, agreement=0.95, fidelity="median difference 2 Elo over 120 shared models",
         licence="CC-BY-4.0", path="arena/copy.json"),
    dict(copy_id="price-copy", publisher="model makers' price pages", package="prices 1.0 (npm)",
         data_date="2026-09-30", used_for="API list prices", compared_with="litellm",
         shared=300, agreement=0.9, fidelity="90% of 300 shared models priced within 1%",
         licence="MIT", path="prices/copy.json"),
]


def test_home_page_lists_the_copies_with_date_package_and_fidelity(
    store_paths: StorePaths,
) -> None:
    serve_tables(store_paths, "vtest-llm-copies", {**llm_catalog_rows(), "copies": COPIES})
    at = run_page("overview/home.py")
    assert not at.exception
    assert "Newer data from third-party copies" in [s.value for s in at.subheader]
    table = next(t for t in at.dataframe if "fidelity" in t.value.columns)
    assert shown_labels(table) == [
        "Publisher", "Used for", "Data of", "Copied from", "Agreement", "How well it agrees",
    ]
    rows = table.value
    assert rows["publisher"].tolist() == ["Arena (LMArena)", "model makers' price pages"]
    assert rows["package"].tolist()[0] == "arena-copy 0.2.0 (PyPI)"
    assert _day(rows["data_date"].iloc[0]) == "2026-10-21"  # newest data first
    assert rows["fidelity"].iloc[1] == "90% of 300 shared models priced within 1%"
    assert rows["agreement"].tolist() == [0.95, 0.9]


def test_home_page_omits_the_copies_without_a_table(store_paths: StorePaths) -> None:
    serve_tables(store_paths, "vtest-llm-nocopies", llm_catalog_rows())
    at = run_page("overview/home.py")
    assert not at.exception
    assert "Newer data from third-party copies" not in [s.value for s in at.subheader]


def test_home_page_on_the_committed_snapshot_lists_its_copies(committed: str) -> None:
    at = run_page("overview/home.py")
    assert not at.exception
    headers = [s.value for s in at.subheader]
    assert (COMMITTED / committed / "copies.parquet").is_file(), (
        f"data/snapshots/{committed}: no copies.parquet; fix: python -m analytics snapshot build"
    )
    copies = _read("SELECT * FROM '{d}/copies.parquet'")
    assert "Newer data from third-party copies" in headers
    table = next(t for t in at.dataframe if "fidelity" in t.value.columns)
    shown = table.value
    assert sorted(shown["copy_id"]) == sorted(copies["copy_id"])
    assert set(shown["publisher"]) == set(copies["publisher"])
    assert set(shown["fidelity"]) == set(copies["fidelity"])
    assert shown["package"].notna().all() and shown["data_date"].notna().all()


def test_older_snapshots_read_as_unknown() -> None:
    """A snapshot without the api_speed table or the new models columns: every fact unknown."""
    con = duckdb.connect(":memory:")
    con.execute("CREATE VIEW models AS SELECT 'm1' AS model_id, DATE '2024-01-01' AS release_date")
    api = api_facts.model_api(con)
    assert api["model_id"].tolist() == ["m1"] and api["speed_tok_per_s"].isna().all()
    facts = api_facts.model_api_of(api, "m1")
    assert facts.price is None and facts.speed is None
    assert facts.release_line() == "Released 2024-01-01."
    assert api_facts.model_api_of(api, "m2").release_line() == ""  # not in it: nothing known
    rows = api_facts.board_columns(pd.DataFrame({"model_id": ["m1", "m2"]}), api)
    assert rows[list(api_facts.BOARD_COLUMNS)].isna().all().all()


def test_a_snapshot_without_the_index_cost_table_reads_it_as_unknown() -> None:
    """Snapshots built before ``api_index_cost`` existed keep their price and speed; the index
    cost is unknown (NA), and joins by model_id once the table is there."""
    con = duckdb.connect(":memory:")
    con.execute("CREATE VIEW models AS SELECT * FROM (VALUES ('m1'), ('m2')) t(model_id)")
    con.execute("CREATE VIEW api_speed AS SELECT 'm1' AS model_id, 90.0 AS output_tokens_per_s, "
                "DATE '2026-08-22' AS measured_on")
    rows = pd.DataFrame({"model_id": ["m1", "m2"]})
    older = api_facts.board_columns(rows, api_facts.model_api(con))
    assert older["api_output_tok_per_s"].tolist()[0] == 90.0
    assert older[list(api_facts.INDEX_COST_BOARD_COLUMNS)].isna().all().all()
    con.execute("CREATE VIEW api_index_cost AS SELECT 'm2' AS model_id, 812.5 AS index_cost_usd, "
                "DATE '2026-08-22' AS measured_on")
    newer = api_facts.board_columns(rows, api_facts.model_api(con)).set_index("model_id")
    assert pd.isna(newer.loc["m1", "api_index_cost_usd"])
    assert newer.loc["m2", "api_index_cost_usd"] == 812.5
    assert _day(newer.loc["m2", "api_index_cost_measured_on"]) == "2026-08-22"
    assert pd.api.types.is_float_dtype(newer["api_index_cost_usd"])


INDEX_COSTS = {"beta-pro-2": 75.0, "acme-2-70b": 1234.5, "beta-pro": 5.0}  # test data
"""USD per model: as text "$1,234.50" < "$5.00" < "$75.00"; as numbers the other way round."""


def test_leaderboard_shows_the_index_cost_beside_the_price_and_sorts_it_as_numbers(
    store_paths: StorePaths,
) -> None:
    tables_ = llm_catalog_rows()
    for model in tables_["models"]:
        if model["model_id"] == "beta-pro":
            model.update(usd_per_mtok_input=1.25, usd_per_mtok_output=10.0,
                         price_date="2026-08-01", price_source_url="https://lab.example.com/p")
    tables_["api_index_cost"] = [
        dict(model_id=m, index_cost_usd=usd, measured_on="2026-08-22",
             source_name="Artificial Analysis (cost to run its Intelligence Index)",
             source_url=f"https://artificialanalysis.ai/models/{m}")
        for m, usd in INDEX_COSTS.items()
    ]
    serve_tables(store_paths, "vtest-llm-index-cost", tables_)
    plain = run_page("llm/leaderboard.py")
    assert not plain.exception
    assert "AA index run cost (USD)" not in shown_labels(tables(plain)[0])  # optional column
    at = run_page("llm/leaderboard.py", cols=["api_index_cost_usd"])
    assert not at.exception
    ranked = tables(at)[0]
    assert shown_labels(ranked)[-6:] == [  # beside the price, its day with it, then the link
        "API $/1M input", "API $/1M output", "Price from", "AA index run cost (USD)",
        "Index cost measured", "Details",
    ]
    config = json.loads(ranked.proto.columns or "{}")["api_index_cost_usd"]
    assert config["type_config"]["type"] == "number"
    assert config["type_config"]["format"] == "$%.2f"
    assert "Artificial Analysis" in config["help"] and "Intelligence Index" in config["help"]
    values = ranked.value.set_index("model_id")["api_index_cost_usd"]
    assert pd.api.types.is_float_dtype(values)  # never text
    assert values.dropna().to_dict() == INDEX_COSTS  # the three are ranked
    ordered = values.sort_values(na_position="last").tolist()
    assert ordered[:3] == [5.0, 75.0, 1234.5]  # text would put "$1,234.50" first
    assert len(ordered) > 3 and all(pd.isna(v) for v in ordered[3:])  # no figure: empty, last


@pytest.mark.parametrize(
    ("usd", "text"), [(2.0, "$2.00"), (12.0, "$12.00"), (0.435, "$0.435"), (0.0375, "$0.0375")]
)
def test_usd_text(usd: float, text: str) -> None:
    assert api_facts.usd_text(usd) == text


def test_price_text_of_one_side() -> None:
    assert api_facts.price_text(2.0, 12.0) == "$2.00 / $12.00"
    assert api_facts.price_text(None, 12.0) == "output $12.00"
    assert api_facts.price_text(float("nan"), None) is None


def test_model_page_lists_measured_gpu_speeds_with_their_kind(committed: str) -> None:
    at = run_page("llm/model.py", model="qwen3.6-27b")
    assert not at.exception
    frames = [d.value for d in at.dataframe]
    speeds = next((f for f in frames if "kind" in f.columns and "n_runs" in f.columns), None)
    assert speeds is not None, "no measured-speed table on the model page"
    assert "community single stream" in set(speeds["kind"])
    assert (speeds["n_runs"].dropna() >= 1).all()
    quiet = run_page("llm/model.py", model=UNPRICED)
    assert "No measured GPU speed is recorded for this model (speeds are never estimated)." in [
        c.value for c in quiet.caption]
