"""The cross-link graph (analytics/llm/ingest/crosslinks.py, makers.py): one golden case per
split class, one per contradiction kind, and the committed evidence extract against the committed
catalog (no ../shared needed)."""

from __future__ import annotations

import pandas as pd
import pytest

from analytics.core import paths
from analytics.llm.ingest import crosslinks as cl
from analytics.llm.ingest.arena_2026 import LEDGER, ROUTER
from analytics.llm.ingest.common import ScoreObs
from analytics.llm.ingest.identity import slugify, split_variant
from analytics.llm.ingest.makers import other_spellings


def _link(a: str, b: str, source: str = "artificial-analysis") -> cl.Link:
    return cl.Link(*sorted((a, b)), source, "llms.json", "open_weights.huggingface_url", "x/y")


def _spelled(checkpoint: str) -> set[str]:
    return {other for other, _, _ in other_spellings(checkpoint)}


# --- split classes: each becomes a link, and a link without contradiction merges ---------------


@pytest.mark.parametrize(
    ("checkpoint", "other"),
    [
        ("c4ai-aya-expanse-32b", "aya-expanse-32b"),  # lab prefix
        ("open-mixtral-8x7b", "mixtral-8x7b"),  # Mistral's API prefix
        ("moonshotai-kimi-k2-instruct", "kimi-k2-instruct"),  # Hub namespace in an Arena key
        ("nvidia-llama-3.1-nemotron-70b-instruct", "llama-3.1-nemotron-70b-instruct"),
    ],
)
def test_a_lab_or_host_prefix_is_another_spelling(checkpoint, other):
    assert other in _spelled(checkpoint)


def test_a_prefix_is_only_dropped_before_that_makers_families():
    assert not _spelled("open-llama-3b")  # OpenLLaMA is no Mistral model
    assert not _spelled("nvidia-smi-bench")


@pytest.mark.parametrize(
    ("checkpoint", "other"),
    [
        ("magistral-medium-1", "magistral-medium-2506"),
        ("magistral-medium-1.0", "magistral-medium-2506"),
        ("magistral-medium-2506", "magistral-medium-1"),
        ("devstral-small-2", "devstral-small-2512"),
        ("magistral-medium-1.2", "magistral-medium-2509"),
    ],
)
def test_a_version_number_and_its_yymm_tag_are_one_checkpoint(checkpoint, other):
    assert other in _spelled(checkpoint)
    assert "magistral-medium-2506" not in _spelled("magistral-medium-1.2")


def test_an_artificial_analysis_month_label_is_googles_build_number():
    base, variant = split_variant("Gemini 1.5 Flash (Sep '24)")
    assert (slugify(base), variant) == ("gemini-1.5-flash-09-2024", None)
    assert "gemini-1.5-flash-002" in _spelled(slugify(base))
    assert "gemini-1.5-flash-001" not in _spelled(slugify(base))


@pytest.mark.parametrize(
    ("checkpoint", "other"),
    [
        ("open-mistral-7b", "mistral-7b-instruct"),
        ("open-mistral-nemo-2407", "mistral-nemo-instruct-2407"),
        ("mistral-small-3.1", "mistral-small-3.1-24b-instruct-2503"),
        ("mistral-small-3.1-24b-instruct-2503", "mistral-small-3.1"),
    ],
)
def test_a_mistral_api_id_is_the_instruct_weights_it_serves(checkpoint, other):
    assert other in _spelled(checkpoint)
    assert "mistral-small-3.1-24b-base-2503" not in _spelled("mistral-small-3.1")


def test_googles_undated_stable_name_is_its_only_001_build():
    assert "gemini-1.5-flash-8b-001" in _spelled("gemini-1.5-flash-8b")
    assert "gemini-1.5-flash-8b" in _spelled("gemini-1.5-flash-8b-001")
    assert not {"gemini-1.5-flash-001", "gemini-1.5-flash-002"} & _spelled("gemini-1.5-flash")


def test_a_numbered_build_shares_its_name_with_the_releases_other_snapshots():
    # so one publisher's rows of both (Arena's Gemini-1.5-Pro-002 and -Exp-0827) are a co-listing
    assert cl.sibling_key("gemini-1.5-pro-002") == cl.sibling_key("gemini-1.5-pro-exp-0827")
    assert cl.sibling_key("gemini-1.5-pro-002") == cl.sibling_key("gemini-1.5-pro")
    assert cl.sibling_key("gemini-1.5-flash-8b-001") != cl.sibling_key("gemini-1.5-flash-001")
    assert cl.sibling_key("acme-2002") != cl.sibling_key("acme")  # a year is no build


@pytest.mark.parametrize(
    ("raw", "base", "variant"),
    [
        ("claude_sonnet_4_6_max", "claude_sonnet_4_6", "max"),
        ("claude_sonnet_4_6_high", "claude_sonnet_4_6", "high"),
        ("gemini_2_5_pro_thinking_16k", "gemini_2_5_pro", "16k"),
        ("llama_3_70b", "llama_3_70b", None),
    ],
)
def test_an_underscore_spelling_states_its_setting(raw, base, variant):
    assert split_variant(raw) == (base, variant)


def test_a_marketing_name_joins_the_repository_its_record_links():
    graph = cl.decide([_link("mixtral-8x7b-instruct", "mixtral-8x7b-instruct-v0.1")], cl.Facts(),
                      {"mixtral-8x7b-instruct-v0.1": 5, "mixtral-8x7b-instruct": 2})
    assert graph.merged == {"mixtral-8x7b-instruct": "mixtral-8x7b-instruct-v0.1"}
    assert not graph.refused


def _arena(name: str, origin: str, votes: int, rating: float) -> tuple[str, ScoreObs]:
    row = ScoreObs(name, "arena-text-sc", rating, "arena", "Arena", "https://lmarena.ai", None,
                   origin, votes=votes)
    return slugify(name), row


def test_one_arena_entry_under_two_keys_of_the_two_copies_is_one_model():
    scored = [
        _arena("claude-opus-4-5-20251101-high-32k", ROUTER, 37448, 1470.0),
        _arena("Claude Opus 4.5 (High, 32K)", LEDGER, 37900, 1471.0),
        _arena("gpt-5", ROUTER, 37000, 1465.0),  # rated by both copies: no link
        _arena("gpt-5", LEDGER, 37500, 1466.0),
        _arena("claude-3-haiku", ROUTER, 20000, 1300.0),  # only one copy, no partner
    ]
    links = cl.arena_copy_links(scored, lambda m: m)
    assert [(x.a, x.b) for x in links] == [
        ("claude-opus-4.5-20251101-high-32k", "claude-opus-4.5-high-32k")
    ]


def test_two_arena_entries_with_far_apart_votes_are_not_linked():
    scored = [
        _arena("claude-opus-4-5-high-32k", ROUTER, 37448, 1470.0),
        _arena("Claude Opus 4.5 (Max)", LEDGER, 20000, 1471.0),
    ]
    assert not cl.arena_copy_links(scored, lambda m: m)


# --- contradictions: each refuses a link, and the refusal is kept with its evidence kind --------


def _refused(facts: cl.Facts, a: str = "m-1", b: str = "m-1-instruct") -> str:
    graph = cl.decide([_link(a, b)], facts)
    assert not graph.merged
    [(_, kind, reason)] = graph.refused
    assert kind in cl.EVIDENCE_KINDS and reason
    return kind


def test_two_rows_of_one_publishers_snapshot_are_two_models():
    facts = cl.Facts()
    facts.listed["m-1"].add("lmarena|2025-08-06|lmarena-text|default")
    facts.listed["m-1-instruct"].add("lmarena|2025-08-06|lmarena-text|default")
    assert _refused(facts) == "co-listing"


def test_a_co_listed_pair_from_the_extract_is_two_models():
    slot = "lmarena|x|lmarena-text|default"
    facts = cl.Facts(colisted={frozenset(("m-1", "m-1-instruct")): slot})
    assert _refused(facts) == "co-listing"


def test_stated_release_dates_more_than_a_month_apart_are_two_models():
    facts = cl.Facts(dates={"m-1": ("2024-05-01", "llmstats"),
                            "m-1-instruct": ("2024-09-24", "epoch-2026")})
    assert _refused(facts) == "stated-date"
    near = cl.Facts(dates={"m-1": ("2024-09-01", "llmstats"),
                           "m-1-instruct": ("2024-09-24", "epoch-2026")})
    assert cl.decide([_link("m-1", "m-1-instruct")], near).merged


def test_stated_sizes_more_than_ten_percent_apart_are_two_models():
    facts = cl.Facts(sizes={"m-1": (67.0, "a"), "m-1-instruct": (7.0, "b")})
    assert _refused(facts) == "stated-size"
    near = cl.Facts(sizes={"m-1": (7.0, "a"), "m-1-instruct": (7.3, "b")})
    assert cl.decide([_link("m-1", "m-1-instruct")], near).merged


def test_base_and_tuned_weights_that_both_exist_are_two_models():
    facts = cl.Facts(repos={"m-1": "org/M-1", "m-1-instruct": "org/M-1-Instruct"})
    assert _refused(facts) == "repository"
    only_one = cl.Facts(repos={"m-1-instruct": "org/M-1-Instruct"})  # no base repository
    assert cl.decide([_link("m-1", "m-1-instruct")], only_one).merged


def test_a_base_repository_linked_from_a_tuned_record_is_refused_when_the_tuned_one_exists():
    facts = cl.Facts(repos={"m-3.1-24b-base-2503": "org/M-3.1-24B-Base-2503"},
                     tuned={"m-3.1-24b-base-2503": "org/M-3.1-24B-Instruct-2503"})
    assert _refused(facts, "m-3.1", "m-3.1-24b-base-2503") == "repository"


def test_an_override_row_keeps_two_ids_apart():
    facts = cl.Facts(apart={frozenset(("m-1", "m-1-instruct")): "overrides.csv: why"})
    assert _refused(facts) == "override"


def test_a_contradiction_anywhere_in_two_components_beats_a_link():
    facts = cl.Facts(dates={"a-1": ("2024-01-01", "s"), "c-1": ("2025-01-01", "s")})
    links = [_link("a-1", "b-1"), _link("b-1", "c-1")]
    graph = cl.decide(links, facts, {"a-1": 3})
    assert graph.merged == {"b-1": "a-1"}
    assert [kind for _, kind, _ in graph.refused] == ["stated-date"]


def test_the_extract_round_trips(tmp_path):
    facts = cl.Facts(dates={"a-1": ("2024-01-01", "s")}, sizes={"a-1": (7.0, "s")},
                     repos={"a-1": "o/A-1"}, tuned={"a-1": "o/A-1-Instruct"},
                     apart={frozenset(("a-1", "c-1")): "why"}, pinned={"b-1": "why"})
    facts.listed["a-1"].add("slot")
    facts.colisted[frozenset(("a-1", "a-1-preview"))] = "lmarena|2025-08-06|lmarena-text|default"
    links = [_link("a-1", "b-1"), _link("a-1", "c-1")]
    path = tmp_path / "x.csv"
    path.write_text(cl.extract_text(cl.extract_rows(links, facts, {"a-1": 2})), encoding="utf-8")
    again, facts2, weight = cl.read_extract(path)
    assert sorted(again, key=str) == sorted(links, key=str) and weight == {"a-1": 2}
    assert (facts2.dates, facts2.sizes, facts2.repos, facts2.tuned, facts2.apart,
            facts2.pinned, dict(facts2.listed), facts2.colisted) == (
        facts.dates, facts.sizes, facts.repos, facts.tuned, facts.apart, facts.pinned,
        dict(facts.listed), facts.colisted)


# --- the committed extract against the committed catalog -----------------------------------------


@pytest.fixture(scope="module")
def graph() -> cl.Graph:
    return cl.decide(*cl.read_extract(cl.EVIDENCE_CSV))


@pytest.fixture(scope="module")
def owner() -> dict[str, str]:
    """Every id and alias of the catalog -> its checkpoint."""
    models = pd.read_csv(paths.CATALOG_DIR / "models.csv", dtype=str, keep_default_na=False)
    out: dict[str, str] = {}
    for model_id, cp in zip(models["model_id"], models["checkpoint_id"], strict=True):
        out.setdefault(model_id, cp or model_id)
        out.setdefault(cp or model_id, cp or model_id)
    for model_id, cp, aliases in zip(models["model_id"], models["checkpoint_id"],
                                     models["aliases"], strict=True):
        for alias in aliases.split(";"):
            out.setdefault(alias.strip(), cp or model_id)
    return out


def test_no_component_of_the_graph_is_split_in_the_catalog(graph, owner):
    split = {
        root: sorted({owner[n] for n in nodes if n in owner})
        for root, nodes in graph.components().items()
        if len({owner[n] for n in nodes if n in owner}) > 1
    }
    assert not split, list(split.items())[:10]


def test_no_merge_in_the_catalog_is_one_a_contradiction_forbids(graph, owner):
    joined = [
        (link.a, link.b, kind, why) for link, kind, why in graph.refused
        if link.a in owner and owner[link.a] == owner.get(link.b)
    ]
    assert not joined, joined[:10]


def test_every_refused_link_names_an_evidence_kind(graph):
    assert {kind for _, kind, _ in graph.refused} <= set(cl.EVIDENCE_KINDS)


def test_a_name_rules_merge_is_judged_by_the_same_contradictions():
    facts = cl.Facts(dates={"qmax": ("2026-01-26", "artificial-analysis"),
                            "qmax-2025-09-23": ("2025-09-24", "epoch-2026")})
    mapping = {"qmax": "qmax-2025-09-23", "other": "other-2024-01-01"}
    kept, refused = cl.allowed(mapping, facts, "undated name = its one dated snapshot")
    assert kept == {"other": "other-2024-01-01"}
    [(link, kind, _)] = refused
    assert (link.a, link.b, link.source, kind) == (
        "qmax", "qmax-2025-09-23", "name-rule", "stated-date")


def test_an_arena_rows_hub_link_is_its_weights_repository(tmp_path):
    from analytics.llm.ingest import lmarena
    from analytics.llm.ingest.common import Drops

    path = tmp_path / "lmarena_text.csv"
    path.write_text(
        "rank,rank_stylectrl,model,arena_score,95_pct_ci,votes,organization,license,"
        "knowledge_cutoff,url\n"
        "1,1,MPT-30B-chat,1075,+12/-12,2644,MosaicML,CC-BY-NC-SA-4.0,2023/6,"
        "https://huggingface.co/mosaicml/mpt-30b-chat\n"
        "2,2,Zed-Pro,1000,+5/-5,100,Zed,Proprietary,,https://zed.example/blog/zed-pro\n",
        "utf-8")
    models, _ = lmarena.load(path, Drops())
    assert [m.hf_id for m in models] == ["mosaicml/mpt-30b-chat", None]


def test_a_checkpoint_rated_only_in_thinking_mode_is_its_thinking_repository():
    from types import SimpleNamespace as NS

    ids = {"q-next-80b-thinking": ("q-next-80b", "thinking"),
           "q-next-80b-instruct": ("q-next-80b-instruct", "default")}
    resolver = NS(checkpoints={m: c for m, (c, _) in ids.items()},
                  variants={m: v for m, (_, v) in ids.items()},
                  registry=NS(curated={}), overrides=NS(distinct={}, apart={}, rows=[]))
    row = NS(origin=None, source_name="AA", date="2025-09-11", benchmark_id="gpqa")
    repos = {cl.weights_key(r): r for r in ("q/Q-Next-80B-Thinking", "q/Q-Next-80B-Instruct")}
    facts = cl.collect_facts(resolver, [], [(m, row) for m in ids], set(), repos)
    assert facts.repos == {"q-next-80b": "q/Q-Next-80B-Thinking",
                           "q-next-80b-instruct": "q/Q-Next-80B-Instruct"}
