"""Layers, KV heads and head dim from a copy of the release under its own name, or from a stated
base of the same size; each fill names the repository it read, and the committed catalog is
re-checked against the Hub table."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest

from analytics.core import paths
from analytics.llm.ingest import llmfit, shapes

HUB_TABLE = paths.SHARED_DATA_DIR / llmfit.CONFIGS_FILE
MODELS_CSV = Path(__file__).parents[1] / "data" / "catalog" / "models.csv"


def _config(name: str, layers: int = 40, kv: int = 8, head: int = 128, raw: int = 0) -> dict:
    return {"name": name, "parameters_raw": raw or None, "architecture": "cohere",
            "num_hidden_layers": layers, "num_key_value_heads": kv, "head_dim": head}


def _row(checkpoint: str, params_b: float | None, repo: str | None = None) -> dict:
    return {"model_id": checkpoint, "checkpoint_id": checkpoint, "total_params_b": params_b,
            "weights_repo": repo, "n_layers": None, "n_kv_heads": None, "head_dim": None,
            "metadata_source_url": "https://example.org/card"}


def _index(tmp_path: Path, configs: list[dict]) -> list[tuple]:
    path = tmp_path / "hf_models.json"
    path.write_text(json.dumps(configs), encoding="utf-8")
    return shapes.copy_index(path)


def test_a_quantised_copy_under_the_release_name_gives_its_shapes(tmp_path):
    index = _index(tmp_path, [_config("mlx-community/aya-expanse-32b-8bit"),
                              _config("Orion-zhen/aya-expanse-32b-AWQ")])
    rows = [_row("aya-expanse-32b", 32.3)]
    assert shapes.fill_from_copies(rows, index) == 1
    assert (rows[0]["n_layers"], rows[0]["n_kv_heads"], rows[0]["head_dim"]) == (40, 8, 128)
    assert rows[0]["metadata_source_url"] == (
        "https://example.org/card;https://huggingface.co/Orion-zhen/aya-expanse-32b-AWQ")


@pytest.mark.parametrize("repo", [
    "x/aya-expanse-32b-abliterated",  # another model: an extra word
    "x/Aya-Expanse-46B-Merge",  # another size
    "x/aya-expanse-8b",  # a size that disagrees with the checkpoint's
])
def test_a_name_with_other_words_or_another_size_is_another_model(tmp_path, repo):
    rows = [_row("aya-expanse-32b", 32.3)]
    assert shapes.fill_from_copies(rows, _index(tmp_path, [_config(repo, layers=79)])) == 0
    assert rows[0]["n_layers"] is None


def test_single_letters_and_digits_are_part_of_the_name(tmp_path):
    index = _index(tmp_path, [_config("openbmb/MiniCPM-V-2_6-int4", 28, 4),
                              _config("ministral/Ministral-3b-instruct", 14, 8)])
    rows = [_row("minicpm-o-2.6", 8.0), _row("ministral-3-3b", 3.0), _row("minicpm-v-2.6", 8.1)]
    assert shapes.fill_from_copies(rows, index) == 1
    assert [r["n_layers"] for r in rows] == [None, None, 28]


def test_copies_that_disagree_or_a_name_without_a_version_or_size_fill_nothing(tmp_path):
    index = _index(tmp_path, [_config("a/Acme-Chat-7B", 32), _config("b/Acme-Chat-7B-GGUF", 30),
                              _config("c/Reka-Flash-NVFP4")])
    rows = [_row("acme-chat-7b", 7.0), _row("reka-flash", 21.0)]
    assert shapes.fill_from_copies(rows, index) == 0


def test_a_name_without_a_version_needs_a_copy_stating_its_size(tmp_path):
    index = _index(tmp_path, [_config("x/Muse-Glimmer-30B-NVFP4", 52, 2),
                              _config("y/Muse-Glimmer-NVFP4", 52, 2)])
    rows = [_row("muse-glimmer", 30.0), _row("muse-glimmer", 7.0)]  # 30B agrees; 7B does not
    assert shapes.fill_from_copies(rows, index) == 1
    assert (rows[0]["n_layers"], rows[1]["n_layers"]) == (52, None)


def test_an_unpacked_count_that_disagrees_is_another_model(tmp_path):
    index = _index(tmp_path, [_config("x/K9", raw=13_000_000_001)])
    rows = [_row("k9", 65.3)]
    assert shapes.fill_from_copies(rows, index) == 0


def test_a_row_with_any_shape_is_never_touched(tmp_path):
    index = _index(tmp_path, [_config("x/aya-expanse-32b-8bit")])
    rows = [{**_row("aya-expanse-32b", 32.3), "n_kv_heads": 4}]
    assert shapes.fill_from_copies(rows, index) == 0
    assert rows[0]["n_layers"] is None and rows[0]["n_kv_heads"] == 4


def _leaderboard(tmp_path: Path, rows: list[tuple[str, str, str]]) -> Path:
    path = tmp_path / "huggingface_v2.csv"
    with path.open("w", newline="", encoding="utf-8") as handle:
        out = csv.writer(handle)
        out.writerow(shapes.BASE_COLUMNS)
        out.writerows(rows)
    return path


def test_a_fine_tune_of_the_bases_size_takes_the_bases_shapes(tmp_path):
    bases = shapes.stated_bases(_leaderboard(tmp_path, [
        ("argilla/notus-7b-v1", "mistralai/Mistral-7B-v0.1", "7.242"),
        ("x/grown-9b", "mistralai/Mistral-7B-v0.1", "8.987"),  # layers added: another count
        ("x/merged-7b", "x/merged-7b (Merge)", "7.242"),  # a merge names no base
        ("x/self-7b", "x/self-7b", "7.242"),  # itself
        ("x/gone-7b", "Removed", "7.242"),
    ]))
    assert set(bases) == {"argilla/notus-7b-v1", "x/grown-9b"}
    shapes_of = {"mistralai/mistral-7b-v0.1": ((32, 8, 128), 7.241732096)}
    rows = [_row("notus-7b-v1", 7.242, "argilla/notus-7b-v1"),
            _row("grown-9b", 8.987, "x/grown-9b")]
    assert shapes.fill_from_base(rows, bases, shapes_of) == 1
    assert (rows[0]["n_layers"], rows[0]["metadata_source_url"]) == (
        32, "https://example.org/card;https://huggingface.co/mistralai/mistral-7b-v0.1")
    assert rows[1]["n_layers"] is None


def test_the_bases_shapes_come_from_its_config_or_a_catalog_row(tmp_path):
    path = tmp_path / "hf_models.json"
    path.write_text(json.dumps([_config("Qwen/Qwen2-7B", 28, 4, raw=7_615_616_512)]),
                    encoding="utf-8")
    rows = [{**_row("gemma-7b", 8.538, "google/gemma-7b"), "n_layers": 28, "n_kv_heads": 16,
             "head_dim": 256}]
    found = shapes.base_shapes(path, rows)
    assert found["qwen/qwen2-7b"] == ((28, 4, 128), 7.615616512)
    assert found["google/gemma-7b"] == ((28, 16, 256), 8.538)


HUB_URL = re.compile(r"https://huggingface\.co/([^;]+)")


@pytest.mark.skipif(not HUB_TABLE.is_file(), reason="needs ../shared/data/llmfit-1.1.17")
def test_every_shape_fill_in_the_catalog_names_a_repository_that_states_it():
    """Re-checks the committed catalog: a row whose shapes cite a Hub repository has that
    repository's shapes in the Hub table, or those of the catalog row whose weights it is."""
    hub = {}
    for entry in llmfit.read_models(HUB_TABLE):
        obs = llmfit.config_obs(entry, frozenset())
        hub[entry["name"].lower()] = (obs.n_layers, obs.n_kv_heads, obs.head_dim)
    rows = list(csv.DictReader(MODELS_CSV.open(encoding="utf-8")))
    by_repo = {r["weights_repo"].lower(): r for r in rows if r["weights_repo"]}
    checked = 0
    for row in rows:
        cited = HUB_URL.findall(row["metadata_source_url"] or "")
        if not cited or not row["n_layers"]:
            continue
        have = (int(row["n_layers"]), int(row["n_kv_heads"]), int(row["head_dim"]))
        repo = cited[-1].lower()
        other = by_repo.get(repo)
        from_row = other and (int(other["n_layers"] or 0), int(other["n_kv_heads"] or 0),
                              int(other["head_dim"] or 0))
        assert have in (hub.get(repo), from_row), (row["model_id"], repo, have)
        checked += 1
    assert checked >= 25  # the copies and stated bases of the committed catalog (28 on 12-07)
