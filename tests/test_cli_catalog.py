"""``python -m analytics fit|finetune --model ID`` over the committed catalog: every
open-weight checkpoint answers in-process, in under 30 s of CPU time, and bad input is one line."""

from __future__ import annotations

import json
import shutil
import time

import pandas as pd
import pytest

from analytics.core import db, derived, paths
from analytics.llm import checkpoints, fit_cli
from tests.fixtures.cli import run_main
from tests.fixtures.store import StorePaths

COMMITTED_DERIVED = derived.folder("_").parent  # data/derived of this checkout
CPU_LIMIT_S = 30.0  # the budget for both commands over every open-weight checkpoint


def _open_checkpoints() -> pd.DataFrame:
    """One row per open-weight checkpoint of the committed catalog (its default variant)."""
    models = pd.read_csv(paths.CATALOG_DIR / "models.csv")
    open_weights = models[models["open_weights"].fillna(False).astype(bool)]
    return checkpoints.one_row_per_checkpoint(open_weights, None)


def test_every_open_weight_checkpoint_answers(store_paths: StorePaths, capsys) -> None:
    """fit --model (with --context) and finetune --model (with --samples, on one RTX 4090, so
    most jobs are priced elsewhere) for every open-weight checkpoint: each answers with JSON or,
    without a parameter count, says so in one line (exit 2). A won't-fit job names the hardware
    its cost is for (``priced_on``). Prints the CPU time; asserts it stays under 30 s."""
    rows = _open_checkpoints()
    assert len(rows) > 100
    run_main(capsys, fit_cli.main, "fit", "--params-b", "7", "--gpu", "h100")  # builds snapshot
    # the served version's derived files, as a user's checkout has them: the commands read the
    # stored fit inputs (the path without them is compared in tests/test_fit_inputs.py)
    version = db.current_version()
    shutil.copytree(COMMITTED_DERIVED / version, derived.folder(version), dirs_exist_ok=True)
    argv = {
        "fit": ("--gpu", "rtx-4090", "--context", "8192", "--json"),
        "finetune": ("--gpu", "rtx-4090", "--samples", "10000", "--json"),
    }
    start = time.process_time()
    answered = priced_elsewhere = 0
    for row in rows.to_dict("records"):
        known = not pd.isna(row["total_params_b"])
        for command, extra in argv.items():
            rc, out, err = run_main(
                capsys, fit_cli.main, command, "--model", row["model_id"], *extra
            )
            if rc != 0:
                assert rc == 2 and not known and "no parameter count" in err, err
                assert len(err.strip().splitlines()) == 1
                continue
            got = json.loads(out)
            assert got["model_id"] == row["model_id"] and got["params_b"] == row["total_params_b"]
            answered += 1
            if command == "finetune" and got["verdict"] == "won't fit" and got["priced_on"]:
                assert got["priced_on_note"].startswith("won't fit on 1× ")
                assert got["usd_per_hour_source"] and got["price_providers"] >= 1
                priced_elsewhere += 1
    cpu_s = time.process_time() - start
    print(f"fit + finetune over {len(rows)} open-weight checkpoints: {cpu_s:.1f} s CPU")
    assert answered > len(rows) and priced_elsewhere > 10
    assert cpu_s < CPU_LIMIT_S


@pytest.mark.parametrize(
    ("argv", "what"),
    [
        (("fit", "--model", "no-such-model", "--gpu", "h100"), "unknown model"),
        (("fit", "--model", "llama-3.1-8b", "--gpu", "h100", "--context", "nan"), "--context"),
        (("fit", "--model", "llama-3.1-8b", "--gpu", "h100", "--count", "inf"), "--count"),
        (("finetune", "--model", "llama-3.1-8b", "--gpu", "h100", "--samples", "NaN"), "--samples"),
        (("finetune", "--params-b", "inf", "--gpu", "h100"), "--params-b"),
        (("finetune", "--model", "llama-3.1-8b", "--gpu", "no-gpu"), "unknown GPU"),
    ],
)
def test_bad_input_is_one_line(tiny_store, capsys, argv: tuple[str, ...], what: str) -> None:
    rc, out, err = run_main(capsys, fit_cli.main, *argv)
    assert rc == 2 and not out and len(err.strip().splitlines()) == 1
    assert what in err and "fix:" in err


def test_finetune_json_names_the_price_basis(tiny_store, capsys) -> None:
    argv = ("finetune", "--model", "llama-3.1-8b", "--gpu", "h100", "--samples", "1000", "--json")
    rc, out, _ = run_main(capsys, fit_cli.main, *argv)
    got = json.loads(out)
    assert rc == 0 and got["priced_on"] == "1× H100 SXM"
    for key in ("price_offers", "price_providers", "price_date", "price_thin", "price_sources"):
        assert key in got
    assert got["price"].startswith(f"${got['usd_per_hour']:,.2f}/GPU-hour · ")


def test_finetune_json_lists_the_smallest_cheapest_and_fastest_configs(
    store_paths: StorePaths, capsys
) -> None:
    """A 70B QLoRA job does not fit one RTX 4090: it is priced on the smallest rentable config
    that fits (the seed's rule), and the JSON and the text also name the cheapest and the fastest
    configs that fit, each with its hours and cost."""
    argv = ("finetune", "--model", "llama-3.1-70b-instruct", "--method", "qlora", "--gpu",
            "rtx-4090", "--samples", "10000")
    rc, out, _ = run_main(capsys, fit_cli.main, *argv, "--json")
    assert rc == 0
    got = json.loads(out)
    configs = {c["role"]: c for c in got["configs"]}
    assert list(configs) == ["smallest", "cheapest", "fastest"]
    assert configs["smallest"]["config"] == got["priced_on"]
    assert configs["smallest"]["cost_usd"] == pytest.approx(got["cost_usd"])
    assert configs["cheapest"]["cost_usd"] <= configs["smallest"]["cost_usd"]
    fastest = configs["fastest"]["wall_clock_hours"]
    assert all(fastest <= c["wall_clock_hours"] for c in configs.values())
    rc, text, _ = run_main(capsys, fit_cli.main, *argv)
    assert rc == 0 and f"fastest   {configs['fastest']['config']}:" in text
