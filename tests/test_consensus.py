"""Issue 26: publishers that disagree on a weight fact (release date, total parameters): the
value most of them agree on is shown, and every disagreement is settled or listed by the
metadata audit (``analytics/llm/ingest/consensus.py``)."""

from __future__ import annotations

import pandas as pd
import pytest

from analytics.core import paths
from analytics.llm.audit import metadata as am
from analytics.llm.ingest import consensus, llmfit
from analytics.llm.ingest.common import Drops, ModelObs
from analytics.llm.ingest.models_table import FIELD_PRIORITY

DATES = FIELD_PRIORITY["release_date"]
COUNTS = FIELD_PRIORITY["total_params_b"]


def _day(source: str, day: str, basis: str | None = None) -> ModelObs:
    return ModelObs(name="m", source=source, release_date=day, release_date_basis=basis)


def _count(source: str, total: float) -> ModelObs:
    return ModelObs(name="m", source=source, total_params_b=total)


QWEN2_72B = [  # the four publishers' days for Qwen2-72B-Instruct in the data
    _day("llmstats", "2024-07-23"), _day("epoch-2026", "2024-06-07"), _day("epoch", "2024-06-07"),
    _day("artificial-analysis", "2024-06-07"), _day("open-llm-leaderboard", "2024-05-28"),
    _day("llmfit", "2024-05-28"),
]


def test_the_day_most_publishers_agree_on_beats_the_first_source():
    chosen, support = consensus.choose(QWEN2_72B, "release_date", DATES)
    assert (chosen.release_date, support) == ("2024-06-07", 2)  # Epoch AI + Artificial Analysis
    assert chosen.source == "epoch-2026"  # within the agreeing day, the field's source order


def test_a_publisher_votes_once_whatever_its_files():
    cast = consensus.votes(QWEN2_72B, "release_date", DATES)
    assert [p for p, _, _ in cast] == [
        "LLM Stats", "Epoch AI", "Artificial Analysis", consensus.HUB]
    # two Epoch files and two Hub readers do not outvote one publisher that stands alone
    alone = [_day("llmstats", "2024-01-01"), _day("epoch", "2024-06-01"),
             _day("epoch-2026", "2024-06-01")]
    assert consensus.choose(alone, "release_date", DATES) == (alone[0], 1)


def test_the_hub_day_is_its_earliest_upload_and_the_migration_day_is_no_upload():
    hub = [_day("llmfit", "2025-03-28"), _day("open-llm-leaderboard", "2024-09-16")]
    assert consensus.votes(hub, "release_date", DATES)[0][1] == "2024-09-16"
    migrated = [
        _day("open-llm-leaderboard", "2022-03-02"), _day("epoch", "2019-11-05")]
    assert [p for p, _, _ in consensus.votes(migrated, "release_date", DATES)] == ["Epoch AI"]


def test_a_proxy_day_never_votes():
    proxy = [
        _day("llmstats", "2026-01-01", basis="first seen in LiteLLM"), _day("epoch", "2025-06-01")]
    assert consensus.choose(proxy, "release_date", DATES)[0] is proxy[1]
    assert consensus.choose(proxy[:1], "release_date", DATES) == (None, 0)


def test_a_count_read_from_the_weights_wins_a_tie_and_near_counts_agree():
    llama_1b = [_count("artificial-analysis", 1.0), _count("open-llm-leaderboard", 1.24)]
    assert consensus.choose(llama_1b, "total_params_b", COUNTS)[0].total_params_b == 1.24
    near = [_count("llmstats", 7.0), _count("open-llm-leaderboard", 7.24)]  # within 10 %
    assert consensus.choose(near, "total_params_b", COUNTS) == (near[1], 2)  # the exact one
    assert consensus.disagreement("m", near, "total_params_b", COUNTS) is None


def test_a_disagreement_is_recorded_beyond_a_month_and_settled_by_rule_or_left_open():
    close = [_day("llmstats", "2024-03-13"), _day("artificial-analysis", "2024-03-07")]
    assert consensus.disagreement("m", close, "release_date", DATES) is None  # within 31 days
    rows = [{"model_id": c, "checkpoint_id": c, "release_date": d, "total_params_b": None}
            for c, d in [("major", "2024-06-07"), ("hub", "2023-02-24"), ("tie", "2024-03-15"),
                         ("set", "2024-10-03"), ("x-2024-01-25", "2024-01-25")]]
    pooled = {
        "major": QWEN2_72B,
        "hub": [_day("epoch", "2023-02-24"), _day("llmfit", "2023-04-03")],
        "tie": [_day("llmstats", "2024-03-15"), _day("artificial-analysis", "2024-10-03")],
        "set": [_day("llmstats", "2024-03-15"), _day("artificial-analysis", "2024-10-03")],
        "x-2024-01-25": [_day("llmstats", "2024-06-21"), _day("epoch", "2024-01-25")],
    }
    orders = {"release_date": DATES, "total_params_b": COUNTS}
    table = consensus.table_rows(rows, pooled, orders, {("set", "release_date")}, {"x-2024-01-25"})
    settled = {r["checkpoint_id"]: r["settled"] for r in table}
    assert settled["major"] == "2 of 4 publishers agree"
    assert settled["hub"].startswith("Epoch AI's day stands against Hugging Face Hub's")
    assert settled["tie"] == ""  # two editorial publishers, no majority: open until a row cites
    assert settled["set"] == "an override row sets it, citing its source"
    assert settled["x-2024-01-25"] == "the id writes its release day"
    before = [_day("llmstats", "2023-03-21"), _day("epoch", "2024-01-25")]  # before the id's day
    assert consensus.disagreement("x-2024-01-25", before, "release_date", DATES) is None
    tie = next(r for r in table if r["checkpoint_id"] == "tie")
    assert tie["values"] == "LLM Stats 2024-03-15; Artificial Analysis 2024-10-03"


def test_an_open_disagreement_is_an_unresolved_metadata_line_on_a_busy_checkpoint():
    models = pd.DataFrame({"model_id": ["busy", "quiet"], "checkpoint_id": ["busy", "quiet"]})
    scores = pd.DataFrame({"model_id": ["busy"] * 5 + ["quiet"]})
    table = pd.DataFrame([
        {"checkpoint_id": c, "field": "release_date", "value": "2024-03-15",
         "values": "LLM Stats 2024-03-15; Artificial Analysis 2024-10-03", "settled": ""}
        for c in ("busy", "quiet")
    ])
    found = am.disagreement_findings(models, scores, table)
    assert [f.subject for f in found] == ["busy"]  # a model with one score is not audited
    assert found[0].line().endswith("shown: 2024-03-15  UNRESOLVED")
    assert am.disagreement_findings(models, scores, None) == []


def test_a_count_the_name_contradicts_does_not_vote():
    """The Open LLM Leaderboard lists internlm2-1_8b at 8B: the name's one size says 1.8B."""
    counts = [_count("open-llm-leaderboard", 8.0)]
    assert consensus.choose(counts, "total_params_b", COUNTS, "internlm2-1.8b") == (None, 0)
    assert consensus.choose(counts, "total_params_b", COUNTS, "internlm2-8b")[1] == 1
    moe = [_count("open-llm-leaderboard", 6.92)]  # 'olmoe-1b-7b' writes active and total
    assert consensus.choose(moe, "total_params_b", COUNTS, "olmoe-1b-7b-0924")[1] == 1


def test_llmfit_drops_a_count_its_name_contradicts(tmp_path):
    path = tmp_path / "hf.json"
    path.write_text(
        '[{"name": "allenai/Olmo-3-7B-Instruct", "parameters_raw": 528384},'
        ' {"name": "acme/Acme-7B", "parameters_raw": 7241732096}]', "utf-8")
    drops = Drops()
    rows = {m.name: m.total_params_b for m in llmfit.load(path, drops)}
    assert rows["allenai/Olmo-3-7B-Instruct"] is None
    assert rows["acme/Acme-7B"] == pytest.approx(7.241732096)
    assert sum(drops.counts.values()) == 1


def test_the_committed_catalog_keeps_its_disagreements_with_how_each_is_settled():
    table = pd.read_csv(paths.CATALOG_DIR / "disagreements.csv", dtype=str, keep_default_na=False)
    assert len(table) >= 30 and set(table["field"]) == set(consensus.FIELDS)
    assert (table["settled"] != "").all(), table[table["settled"] == ""].to_string()
    qwen2 = table[(table["checkpoint_id"] == "qwen2-72b-instruct")].iloc[0]
    assert (qwen2["value"], qwen2["settled"]) == ("2024-06-07", "2 of 4 publishers agree")


def test_within_the_winning_count_the_weights_exact_count_is_shown():
    """Publishers round ('4B'); the Hub reads the maker's weights (4.3 billion, the vision
    tower included): they agree, and the catalog shows the count the weights hold."""
    gemma = [_count("llmstats", 4.0), _count("artificial-analysis", 4.0), _count("llmfit", 4.3)]
    chosen, support = consensus.choose(gemma, "total_params_b", COUNTS)
    assert (chosen.total_params_b, chosen.source, support) == (4.3, "llmfit", 3)
    apart = [_count("llmstats", 4.0), _count("artificial-analysis", 4.0), _count("llmfit", 5.5)]
    chosen, support = consensus.choose(apart, "total_params_b", COUNTS)
    assert (chosen.total_params_b, support) == (4.0, 2)  # a Hub count outside the majority: not


@pytest.mark.skipif(not (paths.SHARED_DATA_DIR / llmfit.CONFIGS_FILE).is_file(),
                    reason="needs ../shared/data/llmfit-1.1.17")
def test_every_committed_count_near_its_repositorys_is_the_repositorys_exact_count():
    """Re-reads the Hub table: a model whose weights repository has an unpacked count there
    within 10 % of the catalog's shows the exact count of that repository or of the maker's
    own conversion of it (``Video-LLaVA-7B-hf``), not a publisher's rounded size; an override
    row citing the maker's page is the one exception."""
    counts = {}
    for entry in llmfit.read_models(paths.SHARED_DATA_DIR / llmfit.CONFIGS_FILE):
        count = llmfit.config_obs(entry, frozenset()).total_params_b
        if count:
            counts[entry["name"].lower()] = round(count, 3)
    overrides = pd.read_csv(paths.CATALOG_DIR / "overrides.csv")
    set_by_hand = set(overrides.loc[overrides["field"] == "total_params_b", "subject"])
    models = pd.read_csv(paths.CATALOG_DIR / "models.csv")
    checked, wrong = 0, []
    for row in models.dropna(subset=["weights_repo", "total_params_b"]).itertuples():
        repo = row.weights_repo.lower()
        if row.model_id in set_by_hand or not consensus.same_count(
            counts.get(repo, 0) or 1e-9, row.total_params_b
        ):
            continue
        checked += 1
        own = {c for name, c in counts.items() if name == repo or name.startswith(repo + "-")}
        if not any(abs(row.total_params_b - c) <= 0.0015 for c in own):
            wrong.append((row.model_id, row.total_params_b, sorted(own)))
    assert checked > 300 and not wrong, wrong[:10]
