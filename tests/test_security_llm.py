"""Security / reliability probe of the LLM track: numeric inputs of the calculators (CLI, library,
URL parameters), Elo over disconnected comparison graphs, and fuzzing of the Elo CSV reader and
the calculator CLIs (only the project's one-line errors, within a memory bound)."""

from __future__ import annotations

import contextlib
import io
import json
import math
import tracemalloc
from pathlib import Path

import pandas as pd
import pytest
import streamlit as st
from hypothesis import example, given, settings
from hypothesis import strategies as hs
from streamlit.testing.v1 import AppTest

import ui.params
from analytics.core import db, paths
from analytics.llm import elo, elo_cli, finetune, fit_cli, leaderboard
from analytics.llm import fit as hwfit
from tests.fixtures import catalogs
from tests.fixtures.apptest import tables

ROOT = paths.REPO_ROOT
COLUMNS = ["model", "benchmark", "category", "score"]
MAX_INPUT_BYTES = 4096  # fuzz inputs are capped at this size
MAX_PEAK_BYTES = 64 * 2**20  # traced peak memory allowed for one fuzz example
FUZZ = settings(max_examples=60)  # the rest comes from the suite's profile (tests/conftest.py)


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    """``python -m analytics fit|finetune ...`` in-process: exit status, stdout, stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = fit_cli.main(argv)
    return rc, out.getvalue(), err.getvalue()


def assert_one_line_error(rc: int, out: str, err: str) -> None:
    """The project's error: exit 2, nothing on stdout, one ``error: ...; fix: ...`` line."""
    lines = err.strip().splitlines()
    assert rc == 2 and out == "", (rc, out, err)
    assert len(lines) == 1 and lines[0].startswith("error: ") and "; fix: " in lines[0], err


def strict_json(text: str) -> dict:
    """Parse JSON refusing NaN / Infinity (what allow_nan=False guarantees)."""

    def refuse(name: str) -> None:
        raise AssertionError(f"non-finite {name} in the JSON output")

    return json.loads(text, parse_constant=refuse)


# --- 12. calculators: numeric inputs -----------------------------------------------------------

FIT_BASE = ["fit", "--params-b", "7", "--vram-gb", "24"]
FT_BASE = ["finetune", "--params-b", "7", "--vram-gb", "80", "--bf16-tflops", "900"]
BAD_NUMBERS = [
    (FIT_BASE, "--params-b", "nan", "not a finite number"),
    (FIT_BASE, "--params-b", "inf", "not a finite number"),
    (FIT_BASE, "--params-b", "-1", "must be positive"),
    (FIT_BASE, "--params-b", "1e400", "not a finite number"),
    (FIT_BASE, "--params-b", "1e300", "above the limit"),
    (FIT_BASE, "--vram-gb", "nan", "not a finite number"),
    (FIT_BASE, "--vram-gb", "Infinity", "not a finite number"),
    (FIT_BASE, "--vram-q4-gb", "nan", "not a finite number"),
    (FIT_BASE, "--count", "0", "must be positive"),
    (FIT_BASE, "--count", "2.5", "not a whole number"),
    (FIT_BASE, "--count", "nan", "not a finite number"),
    (FT_BASE, "--samples", "nan", "not a finite number"),
    (FT_BASE, "--samples", "1e30", "above the limit"),
    (FT_BASE, "--bf16-tflops", "inf", "not a finite number"),
    (FT_BASE, "--usd-per-hour", "nan", "not a finite number"),
    (FT_BASE, "--active-params-b", "nan", "not a finite number"),
    (FT_BASE, "--params-b", "NaN", "not a finite number"),
]


@pytest.mark.parametrize(
    ("base", "option", "value", "what"), BAD_NUMBERS, ids=[f"{o}={v}" for _, o, v, _ in BAD_NUMBERS]
)
def test_cli_refuses_bad_numbers_with_one_line(
    base: list[str], option: str, value: str, what: str
) -> None:
    argv = [*base, f"{option}={value}", "--json"]
    if base[0] == "finetune" and option != "--samples":
        argv.append("--samples=1000")  # so the cost options are used
    rc, out, err = run_cli(argv)
    assert_one_line_error(rc, out, err)
    assert err.startswith(f"error: {option} {value}: {what}")


def test_cli_refuses_active_above_total() -> None:
    rc, out, err = run_cli([*FT_BASE, "--active-params-b", "9"])
    assert_one_line_error(rc, out, err)
    assert "--active-params-b 9: above --params-b 7" in err


def test_cli_json_is_strict(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fit_cli, "_fit", lambda args, target: {"hardware": "x", "ratio": math.nan})
    assert_one_line_error(*run_cli([*FIT_BASE, "--json"]))


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf, -1.0, 0.0, 1e300])
def test_fit_library_refuses_non_finite_inputs(bad: float) -> None:
    calls = [
        lambda: hwfit.budget_gb(bad, 1),
        lambda: hwfit.hardware_fit(7, bad),
        lambda: hwfit.verdict(bad if bad != 0 else -1.0),
        lambda: hwfit.fits(bad if bad != 0 else -1.0),
        lambda: hwfit.fit_table(pd.DataFrame({"total_params_b": [7.0]}), bad),
        lambda: finetune.plan(7, "sft", bad),
        lambda: finetune.memory_parts(bad, "lora"),
        lambda: finetune.training_tokens(bad),
        lambda: finetune.gpu_hours(1e18, bad),
        lambda: finetune.cost_estimate(7, 1000, "sft", 900, count=bad),
    ]
    for call in calls:
        with pytest.raises(ValueError) as info:
            call()
        assert len(str(info.value).splitlines()) == 1 and "; fix: " in str(info.value)


@pytest.mark.parametrize("bad", [math.inf, -math.inf, -1.0, 1e300])
def test_known_catalog_figures_must_be_finite(bad: float) -> None:
    """None / NaN mean "unknown" for optional catalog figures; any other bad value raises."""
    for call in (
        lambda: hwfit.required_gb(bad),
        lambda: hwfit.required_gb(7, bad),
        lambda: hwfit.kv_cache_gb(32, 8, 128, bad),
        lambda: finetune.compute_params_b(bad, None, is_moe=False),
        lambda: finetune.cost_estimate(7, 1000, "sft", bad),
    ):
        with pytest.raises(ValueError, match="; fix: "):
            call()
    assert hwfit.required_gb(math.nan) is None and hwfit.kv_cache_gb(32, math.nan, 128, 8) is None
    assert finetune.cost_estimate(7, 1000, "sft", math.nan) is None


def test_library_refuses_active_above_total() -> None:
    with pytest.raises(ValueError, match="active_params_b 50: above total_params_b 10"):
        finetune.compute_params_b(10, 50, is_moe=True)
    assert finetune.compute_params_b(46.7, 12.9, is_moe=True) == 12.9  # unchanged when valid


@pytest.mark.parametrize(
    "text", ["nan", "inf", "-1", "1e9", "²", "١٢", "9" * 5000, " 3", "0x10", ""]
)
def test_int_url_parameter_falls_back_on_anything_but_plain_digits(
    monkeypatch: pytest.MonkeyPatch, text: str
) -> None:
    monkeypatch.setattr(ui.params, "param", lambda name, default: text)
    assert ui.params.int_param("count", 1, 1, 8) == 1


def test_int_url_parameter_clamps_plain_digits(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ui.params, "param", lambda name, default: "999")
    assert ui.params.int_param("count", 1, 1, 8) == 8


@pytest.fixture()
def fit_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The tiny calculator catalog of tests/test_discovery.py as the current catalog."""
    monkeypatch.setattr(paths, "CATALOG_DIR", catalogs.make_catalog(tmp_path))
    monkeypatch.setattr(paths, "SNAPSHOTS_DIR", tmp_path / "snapshots")
    monkeypatch.setattr(paths, "RUNS_DIR", tmp_path / "runs")
    st.cache_data.clear()
    st.cache_resource.clear()
    return tmp_path


@pytest.mark.parametrize(
    ("page", "prefix"), [("llm/hardware_fit.py", "hf"), ("llm/finetune_planner.py", "ft")]
)
def test_calculator_pages_ignore_bad_numeric_url_params(
    fit_store: Path, page: str, prefix: str
) -> None:
    at = AppTest.from_file(str(ROOT / "pages" / page), default_timeout=60)
    at.query_params.update(count="²", samples="9" * 5000)
    at.run()
    assert not at.exception  # old code: int("²") raised ValueError
    assert at.number_input(key=f"{prefix}_count").value == 1


# --- 13. Elo over disconnected comparison graphs -----------------------------------------------


def two_groups(big: int = 2, small: int = 2) -> pd.DataFrame:
    """Two groups of models that share no benchmark: each 3 benchmarks in 2 categories."""
    rows = []
    for group, size in (("x", big), ("y", small)):
        for m in range(size):
            for b, cat in enumerate(("math", "math", "code")):
                rows.append((f"{group}{m}", f"{group}-b{b}", cat, 10 * (size - m) + b))
    return pd.DataFrame(rows, columns=COLUMNS)


def test_disconnected_groups_are_not_ranked_against_each_other() -> None:
    table = elo.rate(two_groups()).set_index("model")
    # old code: x0 and y0 both ranked 1, compared through nothing but the anchor
    assert table.loc[["x0", "x1"], "rank"].tolist() == [1, 2]
    assert table.loc[["y0", "y1"], "rank"].isna().all()
    assert not table.loc[["y0", "y1"], "eligible"].any()
    assert (table.loc[["y0", "y1"], "unrated_reason"] == elo.UNRATED_DISCONNECTED).all()
    assert (table.loc[["x0", "x1"], "unrated_reason"] == "").all()
    assert elo.set_apart(table) == 2


def test_main_graph_is_the_largest_component() -> None:
    table = elo.rate(two_groups(big=2, small=3)).set_index("model")
    assert table.loc[["y0", "y1", "y2"], "rank"].tolist() == [1, 2, 3]
    assert table.loc[["x0", "x1"], "rank"].isna().all()


def test_a_loner_above_the_floor_is_not_ranked_at_the_anchor() -> None:
    rows = [("loner", f"l{i}", c, 5) for i, c in enumerate(("math", "code", "chat"))]
    table = elo.rate(pd.concat([two_groups(2, 0), pd.DataFrame(rows, columns=COLUMNS)]))
    loner = table.set_index("model").loc["loner"]
    assert loner["rating"] == 1000.0 and pd.isna(loner["rank"])  # old code: ranked at 1000
    assert loner["unrated_reason"] == elo.UNRATED_DISCONNECTED


def test_both_reasons_are_named() -> None:
    rows = [("tiny", "t1", "math", 1), ("tiny2", "t1", "math", 2)]
    table = elo.rate(pd.concat([two_groups(3, 0), pd.DataFrame(rows, columns=COLUMNS)]))
    reason = table.set_index("model").loc["tiny", "unrated_reason"]
    assert reason == f"{elo.UNRATED_FLOOR}; {elo.UNRATED_DISCONNECTED}"


def test_bootstrap_ranks_only_the_main_graph() -> None:
    table = elo.rate(two_groups(3, 2), bootstrap=10).set_index("model")
    assert table.loc[["y0", "y1"], ["rank_low", "rank_high"]].isna().all().all()
    assert table.loc[["x0", "x1", "x2"], "rank_high"].max() <= 3


def test_elo_cli_warns_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    src = tmp_path / "two.csv"
    two_groups(3, 2).to_csv(src, index=False)
    assert elo_cli.main(["elo", str(src)]) == 0
    captured = capsys.readouterr()
    (warning,) = captured.err.strip().splitlines()
    assert warning.startswith(f"warning: {src}: 2 of 5 models ") and "; fix: " in warning
    assert captured.out.splitlines()[0].endswith(",unrated_reason")
    assert captured.out.count(elo.UNRATED_DISCONNECTED) == 2


def test_connected_input_has_no_warning(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    src = tmp_path / "one.csv"
    two_groups(3, 0).to_csv(src, index=False)
    assert elo_cli.main(["elo", str(src)]) == 0
    assert capsys.readouterr().err == ""


def test_model_summary_names_the_reason() -> None:
    base = dict.fromkeys(["rating", "rating_low", "rating_high", "rank", "rank_low", "rank_high"])
    summary = leaderboard.ModelSummary(
        "M", **base, n_benchmarks=3, n_categories=2, provenance="", licence_class="open",
        licence_raw="", unrated_reason=elo.UNRATED_DISCONNECTED,
    )
    assert summary.rank_text == f"unrated ({elo.UNRATED_DISCONNECTED})"
    assert "unrated_reason" in leaderboard.TABLE_COLUMNS


ISLAND = [("island-a", 60.0), ("island-b", 40.0)]  # share benchmarks only with each other


@pytest.fixture()
def island_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The LLM rating snapshot of tests/fixtures/catalogs.py plus two models apart."""
    snapshots = tmp_path / "snapshots"
    folder = snapshots / catalogs.LLM_NEW
    rows = catalogs.llm_catalog_rows()
    for model, _ in ISLAND:
        rows["models"].append(
            dict(model_id=model, display_name=model, organisation="Isle", family=None,
                 release_date="2024-01-01", total_params_b=1.0, is_moe=False, open_weights=True,
                 licence_raw="MIT", checkpoint_id=model)
        )
    for bench, cat in (("is1", "math"), ("is2", "math"), ("is3", "code")):
        rows["benchmarks"].append(
            dict(benchmark_id=bench, name=bench, category=cat, higher_is_better=True,
                 lower_bound=0.0, upper_bound=100.0, unit="%")
        )
        for model, score in ISLAND:
            rows["scores"].append(
                dict(model_id=model, benchmark_id=bench, score=score, source_kind="independent",
                     source_name="src", source_url=catalogs.LLM_URL, date="2024-02-01")
            )
    catalogs.write_parquet_tables(folder, rows)
    (folder / "MANIFEST.json").write_text(json.dumps({"version": catalogs.LLM_NEW}))
    monkeypatch.setattr(paths, "SNAPSHOTS_DIR", snapshots)
    monkeypatch.setattr(paths, "RUNS_DIR", tmp_path / "runs")
    monkeypatch.setattr(db, "ensure_snapshot", lambda *args, **kwargs: catalogs.LLM_NEW)
    st.cache_data.clear()
    st.cache_resource.clear()
    return tmp_path


def test_leaderboard_page_shows_why_models_are_unrated(island_store: Path) -> None:
    at = AppTest.from_file(str(ROOT / "pages" / "llm" / "leaderboard.py"), default_timeout=60)
    at.run()
    assert not at.exception
    ranked, unrated = tables(at)[0].value, tables(at)[1].value
    assert not set(ranked["display_name"]) & {"island-a", "island-b"}
    assert "unrated_reason" not in ranked  # no empty "Why unrated" column for ranked rows
    reasons = unrated.set_index("display_name")["unrated_reason"]
    assert reasons["island-a"] == reasons["island-b"] == elo.UNRATED_DISCONNECTED
    assert reasons["Gamma R"] == elo.UNRATED_FLOOR


# --- fuzzing -----------------------------------------------------------------------------------


@contextlib.contextmanager
def memory_bound(limit: int = MAX_PEAK_BYTES):
    """Fail when the traced peak allocation inside the block exceeds ``limit`` bytes."""
    tracemalloc.start()
    try:
        yield
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak <= limit, f"peak {peak:,} bytes > {limit:,}"


@pytest.fixture(scope="module")
def fuzz_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


CELLS = hs.one_of(
    hs.sampled_from(["", "A", "B", "b1", "b2", "math", "code", "1", "2.5", "-3", "nan", "inf",
                     "1e400", "true", "no", "maybe", "2025-01-01", "2025-13-40", "independent",
                     "vendor", '"', '"a,b"', " ", "\x00", "é"]),
    hs.text(max_size=8),
)
HEADERS = hs.lists(
    hs.sampled_from([*elo.REQUIRED_COLUMNS, *elo.OPTIONAL_COLUMNS, "extra", "model"]),
    min_size=1,
    max_size=8,
)
CSV_TEXT = hs.builds(
    lambda head, rows: "\n".join([",".join(head), *(",".join(r) for r in rows)]),
    HEADERS,
    hs.lists(hs.lists(CELLS, max_size=8), max_size=40),
).filter(lambda text: len(text.encode("utf-8", "surrogatepass")) <= MAX_INPUT_BYTES)


def _read_scores_ok(path: Path) -> None:
    """read_scores either returns a frame or raises its one-line InputError naming the file."""
    try:
        frame = elo_cli.read_scores(path)
    except elo_cli.InputError as err:
        message = str(err)
        assert len(message.splitlines()) == 1 and "; fix: " in message and str(path) in message
    else:
        assert set(elo.REQUIRED_COLUMNS) <= set(frame.columns)
        assert frame["score"].map(math.isfinite).all()


@FUZZ
@given(data=hs.binary(max_size=MAX_INPUT_BYTES))
def test_fuzz_elo_reader_random_bytes(fuzz_dir: Path, data: bytes) -> None:
    path = fuzz_dir / "bytes.csv"
    path.write_bytes(data)
    with memory_bound():
        _read_scores_ok(path)


@pytest.mark.parametrize(
    "text",
    ["model,benchmark,category,score\n,,,,\n", "model,benchmark,category,score\nA,b,c,1,2\n"],
    ids=["empty-extra", "one-extra"],
)
def test_elo_reader_refuses_rows_longer_than_the_header(tmp_path: Path, text: str) -> None:
    """Found by the fuzz below: pandas made the first column the index (old code: a ValueError
    traceback for the first, silently shifted columns for the second)."""
    path = tmp_path / "long.csv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(elo_cli.InputError) as caught:
        elo_cli.read_scores(path)
    assert caught.value.where == str(path) and "more fields than the header" in caught.value.what
    assert caught.value.fix == "quote fields with commas"


@FUZZ
@given(text=CSV_TEXT)
@example(text="model,benchmark,category,score\n,,,,")
def test_fuzz_elo_reader_and_cli_csv_text(fuzz_dir: Path, text: str) -> None:
    path = fuzz_dir / "text.csv"
    path.write_bytes(text.encode("utf-8", "surrogatepass"))
    with memory_bound():
        _read_scores_ok(path)
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = elo_cli.main(["elo", str(path)])
    lines = err.getvalue().strip().splitlines()
    if rc == 1:
        assert out.getvalue() == "" and len(lines) == 1 and lines[0].startswith("error: ")
        assert "; fix: " in lines[0]
    else:
        assert rc == 0 and len(lines) <= 1 and out.getvalue().startswith("model,rating,rank,")


NUMBER_TEXT = hs.one_of(
    hs.floats(allow_nan=True, allow_infinity=True).map(repr),
    hs.floats(allow_nan=True, allow_infinity=True).map(lambda v: f"{v:g}"),
    hs.integers(-(10**30), 10**30).map(str),
    hs.sampled_from(["nan", "-nan", "NaN", "inf", "-inf", "Infinity", "1e400", "-1e400", "1e-400",
                     "0", "-0", "0x10", "1_000", " 7 ", "", "7\n8", "٣", "²"]),
    hs.text(max_size=12),
)
FIT_OPTIONS = ("--params-b", "--vram-gb", "--vram-q4-gb", "--count")
FT_OPTIONS = ("--params-b", "--active-params-b", "--vram-gb", "--count", "--bf16-tflops",
              "--usd-per-hour", "--samples")


def _calculator_ok(argv: list[str]) -> None:
    """Exit 0 with finite figures (strict JSON), or the one-line error with exit 2."""
    with memory_bound(16 * 2**20):
        rc, out, err = run_cli(argv)
    if rc == 0:
        assert err == ""
        got = strict_json(out)
        numbers = [v for v in got.values() if isinstance(v, int | float)]
        numbers += list(got.get("parts", {}).values())
        assert all(math.isfinite(v) for v in numbers)
    else:
        assert_one_line_error(rc, out, err)


@FUZZ
@given(values=hs.fixed_dictionaries({o: NUMBER_TEXT for o in FIT_OPTIONS}))
def test_fuzz_fit_cli_numbers(values: dict[str, str]) -> None:
    _calculator_ok(["fit", *(f"{o}={v}" for o, v in values.items()), "--json"])


@FUZZ
@given(
    values=hs.fixed_dictionaries({o: NUMBER_TEXT for o in FT_OPTIONS}),
    method=hs.sampled_from([*finetune.METHODS, "auto"]),
    recipe=hs.sampled_from(finetune.RECIPES),
)
def test_fuzz_finetune_cli_numbers(values: dict[str, str], method: str, recipe: str) -> None:
    argv = ["finetune", *(f"{o}={v}" for o, v in values.items())]
    _calculator_ok([*argv, f"--method={method}", f"--recipe={recipe}", "--json"])


@FUZZ
@given(
    params=hs.floats(1e-3, hwfit.MAX_PARAMS_B),
    memory=hs.floats(1e-3, hwfit.MAX_MEMORY_GB),
    count=hs.integers(1, hwfit.MAX_GPU_COUNT),
    tflops=hs.floats(1e-3, finetune.MAX_TFLOPS),
    price=hs.floats(1e-3, finetune.MAX_USD_PER_HOUR),
    samples=hs.integers(1, finetune.MAX_SAMPLES),
)
def test_valid_extremes_stay_finite(
    params: float, memory: float, count: int, tflops: float, price: float, samples: int
) -> None:
    argv = ["finetune", f"--params-b={params!r}", f"--vram-gb={memory!r}", f"--count={count}"]
    argv += [f"--bf16-tflops={tflops!r}", f"--usd-per-hour={price!r}", f"--samples={samples}"]
    rc, out, err = run_cli([*argv, "--recipe=rl", "--json"])
    assert rc == 0, err
    assert all(math.isfinite(v) for v in strict_json(out)["parts"].values())
