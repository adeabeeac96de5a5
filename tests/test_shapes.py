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
        free = entry.get("architecture") in shapes.ATTENTION_FREE  # no attention: 0 KV heads
        hub[entry["name"].lower()] = (obs.n_layers, 0 if free else obs.n_kv_heads,
                                      0 if free else obs.head_dim)
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
        other = None if other is row else other  # a row's own repository is checked on the Hub
        from_row = other and (int(other["n_layers"] or 0), int(other["n_kv_heads"] or 0),
                              int(other["head_dim"] or 0))
        assert have in (hub.get(repo), from_row), (row["model_id"], repo, have)
        checked += 1
    assert checked >= 60  # copies, stated and named bases of the committed catalog (66 on 12-07)


def _named(tmp_path: Path, configs: list[dict], rows: list[dict]) -> int:
    path = tmp_path / "hf_models.json"
    path.write_text(json.dumps(configs), encoding="utf-8")
    index = shapes.named_base_index(path, rows)
    return shapes.fill_from_named_base(rows, index, shapes.hub_architectures(path))


def test_a_name_that_writes_its_bases_whole_name_takes_the_bases_shapes(tmp_path):
    configs = [_config("meta-llama/Llama-3.1-8B", 32, 8, raw=8_030_261_248)]
    rows = [_row("dolphin-2.9.4-llama3.1-8b", 8.03, "cognitivecomputations/dolphin-2.9.4-llama3.1"),
            _row("yarn-llama-3.1-8b-128k", 8.03)]
    assert _named(tmp_path, configs, rows) == 2
    assert (rows[0]["n_layers"], rows[0]["n_kv_heads"]) == (32, 8)
    assert rows[1]["metadata_source_url"].endswith(";https://huggingface.co/meta-llama/Llama-3.1-8B")


def test_a_catalog_models_own_weights_are_cited_before_a_copy(tmp_path):
    configs = [_config("someone/Qwen2-7B", 28, 4, raw=7_615_616_512)]
    base = {**_row("qwen2-7b", 7.616, "Qwen/Qwen2-7B"), "n_layers": 28, "n_kv_heads": 4,
            "head_dim": 128}
    rows = [base, _row("long-llava-qwen2-7b", 7.9)]
    assert _named(tmp_path, configs, rows) == 1
    assert rows[1]["metadata_source_url"].endswith("https://huggingface.co/Qwen/Qwen2-7B")


@pytest.mark.parametrize(("configs", "row"), [
    # two bases the name writes disagree: Video-LLaVA 7B (Llama) or Qwen2 7B
    ([_config("LanguageBind/Video-LLaVA-7B", 32, 32, raw=7_000_000_000),
      _config("Qwen/Qwen2-7B", 28, 4, raw=7_615_616_512)],
     _row("llava-video-7b-qwen2", 7.6)),
    # the row's own config states another architecture: a state-space model is no transformer
    ([_config("tiiuae/falcon-7b", 32, 71, raw=7_217_189_760),
      {**_config("tiiuae/falcon-mamba-7b", None, None, None), "architecture": "falcon_mamba"}],
     _row("falcon-mamba-7b", 7.27, "tiiuae/falcon-mamba-7b")),
    # a size more than 10 % away: layers were added (depth up-scaling)
    ([_config("meta-llama/Meta-Llama-3-8B", 32, 8, raw=8_030_261_248)],
     _row("meta-llama-3-8b-pro", 10.0)),
    # a base name without a size is a family word, not a base
    ([_config("mistralai/Mistral", 32, 8, raw=7_241_732_096)], _row("mistral-openorca", 7.24)),
    # the same name is a copy, not a base that a longer name writes
    ([_config("x/Acme-7B", 32, 8, raw=7_000_000_000)], _row("acme-7b", 7.0)),
])
def test_no_named_base_without_agreement_architecture_size_or_more_words(tmp_path, configs, row):
    for config in configs:
        config.setdefault("architecture", "llama")
    assert _named(tmp_path, configs, [row]) == 0
    assert row["n_layers"] is None


def test_a_copy_of_the_weights_repository_under_its_name_gives_its_shapes(tmp_path):
    """The checkpoint id ('codestral-22b') writes no version; the maker's repository does, and
    a quantised copy carries it ('-FP8-dynamic' is a packing format, not another model)."""
    index = _index(tmp_path, [_config("TechxGenus/Codestral-22B-v0.1-AWQ", 56, 8),
                              _config("RedHatAI/Codestral-22B-v0.1-FP8-dynamic", 56, 8),
                              _config("x/Codestral-22B-v0.1-abliterated", 57, 8)])
    rows = [_row("codestral-22b", 22.2, "mistralai/Codestral-22B-v0.1")]
    assert shapes.fill_from_copies(rows, index) == 1
    assert rows[0]["n_layers"] == 56


def test_a_written_date_pins_the_release_a_copy_must_share(tmp_path):
    index = _index(tmp_path, [_config("lmstudio-community/Devstral-Small-2507-MLX-8bit", 40),
                              _config("mistralai/Devstral-Small-2505", 41)])
    rows = [_row("devstral-small-07-2025", 24.0), _row("devstral-small-03-2025", 24.0)]
    assert shapes.fill_from_copies(rows, index) == 1
    assert (rows[0]["n_layers"], rows[1]["n_layers"]) == (40, None)


def test_a_repository_may_leave_out_the_size_its_count_states(tmp_path):
    index = _index(tmp_path, [_config("openbmb/MiniCPM-V-4.6", 24, 2, 256, raw=1_300_428_016)])
    rows = [_row("minicpm-v-4.6-1.3b", 1.3), _row("minicpm-v-4.6-8b", 8.0)]
    assert shapes.fill_from_copies(rows, index) == 1
    assert (rows[0]["head_dim"], rows[1]["head_dim"]) == (256, None)
    packed = _index(tmp_path, [_config("openbmb/MiniCPM-V-4.6-AWQ", 24, 2, 256)])
    assert shapes.fill_from_copies([_row("minicpm-v-4.6-1.3b", 1.3)], packed) == 0


def test_a_size_written_to_fewer_digits_names_the_base_but_not_another_size(tmp_path):
    configs = [_config("upstage/SOLAR-10.7B", 48, 8, raw=10_731_524_096),
               _config("Qwen/Qwen3-32B", 64, 8, raw=32_762_123_264)]
    rows = [_row("yarn-solar-10b-32k", 10.0), _row("qwen3-omni-30b-a3b", 31.0)]
    assert _named(tmp_path, configs, rows) == 1
    assert (rows[0]["n_layers"], rows[1]["n_layers"]) == (48, None)


def test_a_row_stating_some_shapes_takes_a_named_base_only_when_they_agree(tmp_path):
    configs = [_config("meta-llama/Meta-Llama-3-8B", 32, 8, raw=8_030_261_248)]
    agree = {**_row("llama3-llava-next-8b", 8.355), "n_kv_heads": 8}
    differ = {**_row("llama3-other-next-8b", 8.355), "n_kv_heads": 32}
    assert _named(tmp_path, configs, [agree, differ]) == 1
    assert (agree["n_layers"], differ["n_layers"]) == (32, None)


def test_an_attention_free_architecture_has_no_kv_heads(tmp_path):
    path = tmp_path / "hf_models.json"
    path.write_text(json.dumps([
        {**_config("tiiuae/falcon-mamba-7b", 64, None, None), "architecture": "falcon_mamba"},
        {**_config("ai21labs/Jamba-v0.1", 32, 8, 128), "architecture": "jamba"},  # a hybrid
    ]), encoding="utf-8")
    mamba = {**_row("falcon-mamba-7b", 7.27, "tiiuae/falcon-mamba-7b"), "n_layers": 64}
    jamba = {**_row("jamba-v0.1", 51.6, "ai21labs/Jamba-v0.1"), "n_layers": 32}
    assert shapes.fill_attention_free([mamba, jamba], shapes.hub_architectures(path)) == 1
    assert (mamba["n_kv_heads"], mamba["head_dim"], jamba["n_kv_heads"]) == (0, 0, None)
    assert mamba["metadata_source_url"].endswith("https://huggingface.co/tiiuae/falcon-mamba-7b")


def test_a_checkpoint_of_the_same_release_shares_shapes_filled_late():
    from analytics.llm.ingest.hardware_tables import share_release_shapes

    donor = {**_row("falcon3-mamba-7b-instruct", 7.27), "n_layers": 64, "n_kv_heads": 0,
             "head_dim": 0, "weights_release": "tii/falcon3-mamba-7b"}
    base = {**_row("falcon3-mamba-7b-base", 7.27), "weights_release": "tii/falcon3-mamba-7b"}
    alone = {**_row("other-7b", 7.0), "weights_release": "x/other-7b"}
    assert share_release_shapes([donor, base, alone]) == 1
    assert (base["n_layers"], base["n_kv_heads"], alone["n_layers"]) == (64, 0, None)
