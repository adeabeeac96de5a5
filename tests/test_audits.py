"""Issue 26: the identity, protocol and metadata audits, the rules that merge one model's date
spellings, readable and unique display names, and the committed catalog passing the audits."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

from analytics.core import paths
from analytics.llm.audit import cli as audit_cli
from analytics.llm.audit import identity as ai
from analytics.llm.audit import metadata as am
from analytics.llm.audit import protocols as ap
from analytics.llm.ingest import crosslinks, llmfit, names, protocols
from analytics.llm.ingest.dated import dated_merges, stem_key
from analytics.llm.ingest.families import canonical_org, org_key
from analytics.llm.ingest.identity import audit_key, dates_agree, match_key, name_date

# --- date spellings -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, stem, date",
    [
        ("claude-3.5-sonnet-20241022", "claude-3.5-sonnet", (2024, 10, 22)),
        ("gpt-4o-2024-08-06", "gpt-4o", (2024, 8, 6)),
        ("Claude 3.5 Sonnet (Oct '24)", "claude-3.5-sonnet", (2024, 10, None)),
        ("claude-3.5-sonnet-10-2024", "claude-3.5-sonnet", (2024, 10, None)),
        ("chatgpt-4o-03-27-2025", "chatgpt-4o", (2025, 3, 27)),
        ("jamba-large-1.7-2025-07", "jamba-large-1.7", (2025, 7, None)),
        ("gemini-2.5-pro-preview-05-06", "gemini-2.5-pro-preview", (None, 5, 6)),
        ("grok-2-1212", "grok-2", (None, 12, 12)),
        ("mistral-large-2411", "mistral-large", (2024, 11, None)),
        ("gpt-5.5-instant-june-2026", "gpt-5.5-instant", (2026, 6, None)),
        ("qwen2.5-0.5b", "qwen2.5-0.5b", None),  # a size is not a date
        ("llama-3.1-8b", "llama-3.1-8b", None),
    ],
)
def test_every_date_spelling_is_read(name, stem, date):
    assert name_date(name) == (stem, date)


def test_dates_agree_on_every_field_both_know():
    assert dates_agree((2024, 10, None), (2024, 10, 22))
    assert dates_agree((None, 12, 12), (2024, 12, None))
    assert not dates_agree((2024, 5, None), (2024, 8, 6))
    assert not dates_agree(None, (2024, 8, 6))


def test_audit_key_ignores_dates_hosts_stages_tunings_and_word_order():
    same = ["Claude 3.5 Sonnet (Oct '24)", "claude-3-5-sonnet-20241022", "claude-sonnet-3.5"]
    assert len({audit_key(n) for n in same}) == 1
    assert audit_key("parasail-qwen3-235b-a22b-instruct-2507") == audit_key("qwen3-235b-a22b")
    assert audit_key("gemma-3-12b-it") == audit_key("gemma-3-12b-instruct")
    assert audit_key("Command R+") != audit_key("Command R")
    assert audit_key("qwen2.5-coder-7b") != audit_key("qwen2.5-7b")


def test_match_key_reads_it_as_instruct_and_drops_a_host_prefix():
    assert match_key("gemma-3-4b-it") == match_key("gemma-3-4b-instruct")
    assert match_key("parasail-qwen3-8b") == match_key("qwen3-8b")
    assert match_key("openai-gpt-5.4-2026-03-05") == match_key("gpt-5.4-2026-03-05")
    assert match_key("gemini-2.0-flash-experimental") == match_key("gemini-2.0-flash-exp")
    assert match_key("openai-whisper") != match_key("whisper")  # only before a name that says it


def test_a_maker_before_its_family_name_and_a_cloud_api_version_tag_are_not_the_name():
    """Issue 26, class "lab prefix / API route": BFCL's 'Amazon-Nova-2-Lite-v1:0', Arena's
    'nova-2-lite' and Amazon's own display name are one model; so are LiveBench's
    'arcee-trinity-large-preview' and Arena's 'trinity-large-preview'."""
    nova = ["Amazon-Nova-2-Lite-v1:0", "amazon.nova-2-lite-v1:0", "us.amazon.nova-2-lite-v1:0",
            "nova-2-lite", "Amazon Nova 2 Lite"]
    assert match_key("amazon-nova-lite-v1.0") == match_key("Nova Lite")  # Arena: '.' for ':'
    assert len({match_key(n) for n in nova}) == 1
    assert len({audit_key(n) for n in nova if "." not in n}) == 1
    trinity = [
        "arcee-trinity-large-preview", "Trinity Large Preview", "arcee-ai/trinity-large-preview",
    ]
    assert len({match_key(n) for n in trinity}) == len({audit_key(n) for n in trinity}) == 1
    assert match_key("amazon-titan-text") != match_key("titan-text")  # only before Nova
    assert match_key("Nvidia-Llama-3.3-Nemotron-Super-49B-v1.5") == match_key(
        "Llama 3.3 Nemotron Super 49B v1.5"
    )  # NVIDIA's name before its Llama-based Nemotron (LMArena vs Arena)
    assert match_key("model-v1.0") != match_key("model")  # a written version stays a version


# --- the merge rule ---------------------------------------------------------------------------


def test_a_month_label_joins_the_one_snapshot_of_that_month():
    cps = {"gpt-4o-08-2024", "gpt-4o-2024-08-06", "gpt-4o-2024-05-13", "gpt-4o-11-2024"}
    out = dated_merges(cps, {}, set())
    assert out == {"gpt-4o-08-2024": "gpt-4o-2024-08-06"}  # November has no dated snapshot


def test_a_month_label_joins_the_undated_name_released_that_month():
    cps = {"deepseek-v3", "deepseek-v3-12-2024", "deepseek-v3-0324"}
    out = dated_merges(cps, {"deepseek-v3": "2024-12-26"}, set())
    assert out == {"deepseek-v3-12-2024": "deepseek-v3"}


def test_two_candidates_or_a_pinned_id_keep_the_label_apart():
    cps = {"x-05-2024", "x-2024-05-13", "x-2024-05-20"}
    assert dated_merges(cps, {}, set()) == {}  # which of the two May snapshots? nobody says
    pair = {"y-10-2024", "y-2024-10-22"}
    assert dated_merges(pair, {}, {"y-10-2024"}) == {}
    assert dated_merges({"z-2407", "z-07-2024"}, {}, set()) == {"z-07-2024": "z-2407"}
    assert dated_merges({"z-instruct-07-2024", "z-2407"}, {}, set()) == {}  # tunings differ
    assert stem_key("jamba-large-1.7-2025-07") == stem_key("jamba-1.7-large")


# --- the identity audit -----------------------------------------------------------------------


def _models(rows: list[tuple]) -> pd.DataFrame:
    cols = ["model_id", "display_name", "organisation", "release_date", "total_params_b",
            "open_weights", "checkpoint_id", "variant", "aliases"]
    return pd.DataFrame(rows, columns=cols).astype(str).replace("None", "")


NO_SCORES = pd.DataFrame(columns=["model_id", "benchmark_id", "score", "source_name"])


def test_the_audit_finds_a_split_and_the_rules_keep_real_pairs_apart():
    models = _models([
        ("acme-7b", "Acme 7B", "Acme", "2024-01-01", 7, "true", "acme-7b", "default",
         "acme/Acme-7B"),
        ("acme-7b-instruct", "Acme 7B Instruct", "Acme", "2024-01-01", 7, "true",
         "acme-7b-instruct", "default", "acme/Acme-7B-Instruct"),
        ("bolt-7b", "Bolt 7B", "Bolt", "2024-01-01", 7, "true", "bolt-7b", "default", ""),
        ("bolt-7b-instruct", "Bolt 7B Instruct", "Bolt", "2024-01-01", 7, "true",
         "bolt-7b-instruct", "default", "bolt/Bolt-7B-Instruct"),
        ("zed-pro-2024-05-13", "Zed Pro", "Zed", "2024-05-13", None, "false",
         "zed-pro-2024-05-13", "default", ""),
        ("zed-pro-2024-08-06", "Zed Pro (Aug)", "Zed", "2024-08-06", None, "false",
         "zed-pro-2024-08-06", "default", ""),
        ("zed-ultra-preview", "Zed Ultra Preview", "Zed", "2024-09-01", None, "false",
         "zed-ultra-preview", "default", ""),
        ("zed-ultra", "Zed Ultra", "Zed", "2024-09-03", None, "false", "zed-ultra", "default", ""),
    ])
    repos = crosslinks.Facts(repos={"acme-7b": "acme/Acme-7B", "acme-7b-instruct":
                                    "acme/Acme-7B-Instruct", "bolt-7b-instruct": "bolt/B-7B-It"})
    found = {frozenset((c.a, c.b)): c for c in ai.audit(models, NO_SCORES, {}, repos)}
    base = found[frozenset(("acme-7b", "acme-7b-instruct"))]
    assert base.resolved and base.resolution.startswith("repository: acme/Acme-7B ")
    no_base = found[frozenset(("bolt-7b", "bolt-7b-instruct"))]  # no base repository exists
    assert not no_base.resolved
    dated = found[frozenset(("zed-pro-2024-05-13", "zed-pro-2024-08-06"))]
    assert dated.resolved and dated.resolution.startswith("stated-date: ")
    split = found[frozenset(("zed-ultra", "zed-ultra-preview"))]
    assert not split.resolved and "UNRESOLVED" in split.line()
    again = ai.audit(models, NO_SCORES, {frozenset(("zed-ultra", "zed-ultra-preview")): "why"})
    line = next(c for c in again if {c.a, c.b} == {"zed-ultra", "zed-ultra-preview"})
    assert not line.resolved and "why" in line.line()  # a free-text reason alone settles nothing


def test_a_publishers_two_rows_keep_two_ids_apart():
    models = _models([
        ("zed-ultra-preview", "Zed Ultra Preview", "Zed", "2024-09-01", None, "false",
         "zed-ultra-preview", "default", ""),
        ("zed-ultra", "Zed Ultra", "Zed", "2024-09-03", None, "false", "zed-ultra", "default", ""),
    ])
    scores = pd.DataFrame(
        [(m, "arena", 1.0, "Arena", "2025-01-01") for m in ("zed-ultra", "zed-ultra-preview")],
        columns=["model_id", "benchmark_id", "score", "source_name", "date"],
    )
    [line] = ai.audit(models, scores, {})
    assert line.resolution == "co-listing: both are rows of Arena | arena | 2025-01-01 | default"


def test_an_undated_name_is_kept_apart_from_builds_only_when_they_state_different_dates():
    models = _models([
        ("gem-1.5-flash", "Gem 1.5 Flash", "G", "2024-05-01", None, "false", "gem-1.5-flash",
         "default", ""),
        ("gem-1.5-flash-001", "Gem 1.5 Flash", "G", "2024-05-23", None, "false",
         "gem-1.5-flash-001", "default", ""),
        ("gem-1.5-flash-002", "Gem 1.5 Flash 002", "G", "2024-09-24", None, "false",
         "gem-1.5-flash-002", "default", ""),
        ("gem-1.5-lite", "Gem 1.5 Lite", "G", "2024-10-03", None, "false", "gem-1.5-lite",
         "default", ""),
        ("gem-1.5-lite-001", "Gem 1.5 Lite", "G", "2024-10-03", None, "false",
         "gem-1.5-lite-001", "default", ""),
    ])
    found = {frozenset((c.a, c.b)): c for c in ai.audit(models, NO_SCORES, {})}
    two = found[frozenset(("gem-1.5-flash", "gem-1.5-flash-001"))]
    assert two.resolution == ("stated-date: gem-1.5-flash writes no date; its dated snapshots "
                              "gem-1.5-flash-001, gem-1.5-flash-002 state different dates")
    assert not found[frozenset(("gem-1.5-lite", "gem-1.5-lite-001"))].resolved  # its only build


def test_two_repositories_of_one_tuning_or_a_base_beside_its_tuned_one_keep_ids_apart():
    models = _models([
        ("yo-34b-chat", "Yo 34B Chat", "Y", "2024-05-12", 34, "true", "yo-34b-chat", "default",
         ""),
        ("yo-34b-chat-16k", "Yo 34B Chat 16K", "Y", "2024-05-12", 34, "true", "yo-34b-chat-16k",
         "default", ""),
        ("ms-3.1", "MS 3.1", "M", "2025-03-17", 24, "true", "ms-3.1", "default", ""),
        ("ms-3.1-base", "MS 3.1 Base", "M", "2025-03-17", 24, "true", "ms-3.1-base", "default",
         ""),
    ])
    facts = crosslinks.Facts(
        repos={"yo-34b-chat": "y/Yo-34B-Chat", "yo-34b-chat-16k": "y/Yo-34B-Chat-16K",
               "ms-3.1-base": "m/MS-3.1-Base"},
        tuned={"ms-3.1-base": "m/MS-3.1-Instruct"})
    found = {frozenset((c.a, c.b)): c for c in ai.audit(models, NO_SCORES, {}, facts)}
    chat = found[frozenset(("yo-34b-chat", "yo-34b-chat-16k"))]
    assert chat.resolution == ("repository: y/Yo-34B-Chat (chat) and y/Yo-34B-Chat-16K (chat) "
                               "both exist")
    base = found[frozenset(("ms-3.1", "ms-3.1-base"))]
    assert base.resolution == ("repository: m/MS-3.1-Base (base) and m/MS-3.1-Instruct (tuned) "
                               "both exist; ms-3.1 is not the base")
    one = crosslinks.Facts(repos={"yo-34b-chat": "y/Yo", "yo-34b-chat-16k": "y/Yo"})
    same = {frozenset((c.a, c.b)): c for c in ai.audit(models, NO_SCORES, {}, one)}
    assert not same[frozenset(("yo-34b-chat", "yo-34b-chat-16k"))].resolved  # one repository


def test_stated_dates_of_the_evidence_extract_keep_two_ids_apart():
    models = _models([
        ("qx-max", "QX Max", "Q", "2025-09-23", None, "false", "qx-max", "default", ""),
        ("qx-max-2025-09-23", "QX Max (2025-09-23)", "Q", "2025-09-24", None, "false",
         "qx-max-2025-09-23", "default", ""),
    ])
    facts = crosslinks.Facts(dates={"qx-max": ("2026-01-26", "aa"),
                                    "qx-max-2025-09-23": ("2025-09-24", "epoch")})
    [line] = ai.audit(models, NO_SCORES, {}, facts)
    assert line.resolution == ("stated-date: qx-max 2026-01-26 (aa) vs qx-max-2025-09-23 "
                               "2025-09-24 (epoch) (evidence extract)")
    near = crosslinks.Facts(dates={"qx-max": ("2025-10-01", "aa"),
                                   "qx-max-2025-09-23": ("2025-09-24", "epoch")})
    assert not ai.audit(models, NO_SCORES, {}, near)[0].resolved


@pytest.mark.parametrize(
    ("a", "b", "kept"),
    [
        ("acme-7b", "acme-coder-7b", True),
        ("acme-7b", "acme-math-7b", True),
        ("acme-7b", "acme-vl-7b", True),
        ("acme-7b", "acme-open-7b", False),  # 'open' names no other product
        ("acme-7b", "acme-7b-2", False),  # nor a digit
        ("acme-7b", "acme-24b-7b", False),  # nor a size
        ("acme-7b", "acme-7b-001", False),
    ],
)
def test_another_product_is_only_a_word_of_the_product_list(a, b, kept):
    assert bool(ai.word_apart(a, b)) == kept


def test_identical_score_rows_and_cross_links_are_signals():
    models = _models([
        ("m-one", "M One", "Lab", "", None, "false", "m-one", "default", "Other Name"),
        ("other-name", "Other Name", "Lab", "", None, "false", "other-name", "default", ""),
        ("q-1", "Q 1", "Lab", "", None, "false", "q-1", "default", ""),
        ("r-2", "R 2", "Lab", "", None, "false", "r-2", "default", ""),
    ])
    scores = pd.DataFrame(
        [
            (m, b, s, "src")
            for m in ("q-1", "r-2")
            for b, s in (("b1", 1.0), ("b2", 2.0), ("b3", 3))
        ],
        columns=["model_id", "benchmark_id", "score", "source_name"],
    )
    signals = {(c.a, c.b): c.signal for c in ai.audit(models, scores, {})}
    assert signals[("m-one", "other-name")] == "cross-link"
    assert signals[("q-1", "r-2")] == "same-scores"


def test_the_cli_exits_1_naming_an_unresolved_pair(tmp_path, capsys):
    for name in ("models", "scores", "benchmarks", "overrides"):
        src = (paths.CATALOG_DIR / f"{name}.csv").read_text("utf-8").splitlines()[0]
        (tmp_path / f"{name}.csv").write_text(src + "\n", "utf-8")  # headers only
    models = pd.read_csv(tmp_path / "models.csv", dtype=str)
    rows = [{"model_id": m, "display_name": m, "organisation": "Zed", "checkpoint_id": m,
             "variant": "default", "release_date": "2024-09-01"}
            for m in ("zed-ultra", "zed-ultra-preview")]
    pd.concat([models, pd.DataFrame(rows)]).to_csv(tmp_path / "models.csv", index=False)
    assert audit_cli.main(["audit", "identity", "--catalog", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "zed-ultra | zed-ultra-preview" in out and "1 unresolved" in out
    assert audit_cli.main(["audit", "identity", "--catalog", str(tmp_path / "none")]) == 2


# --- the committed catalog ------------------------------------------------------------------


@pytest.fixture(scope="module")
def committed() -> dict[str, pd.DataFrame]:
    return audit_cli.read_catalog(paths.CATALOG_DIR)


OPEN_IDENTITY = Path(__file__).parent / "golden" / "identity_open.csv"
"""Identity pairs no file in the data settles either way (kept apart, never called settled):
each names the sources searched; the closing notes and docs/data.md list them."""


def _findings(name: str, committed: dict[str, pd.DataFrame]) -> list:
    """The audit's findings on the committed catalog. Without ../shared (a fresh clone) the
    metadata audit cannot re-check flags against the Hub config table and says so in one line;
    that line is about the machine, not the catalog, so it is left out here (the re-check
    itself is tested on a fixture table in tests/test_model_facts.py)."""
    found = audit_cli.findings(name, committed, paths.CATALOG_DIR)
    if not (paths.SHARED_DATA_DIR / llmfit.CONFIGS_FILE).is_file():
        found = [f for f in found if f.subject != llmfit.CONFIGS_FILE]
    return found


@pytest.mark.parametrize("name", ["identity", "protocols", "metadata"])
def test_the_committed_catalog_passes_the_audit(committed, name):
    found = _findings(name, committed)
    open_ = {(f.a, f.b): f.line() for f in found if not f.resolved} if name == "identity" else {
        (f.line(), ""): f.line() for f in found if not f.resolved}
    listed = set()
    if name == "identity":
        table = pd.read_csv(OPEN_IDENTITY, dtype=str)
        assert table["searched"].str.len().gt(0).all() and table["why_open"].str.len().gt(0).all()
        listed = set(zip(table["model_a"], table["model_b"], strict=True))
    new = [line for pair, line in open_.items() if pair not in listed]
    assert not new, "\n".join(new)  # a new open line: settle it with evidence
    settled = listed - set(open_)
    assert not settled, f"settled now: drop {settled} from {OPEN_IDENTITY.name}"


def _recheck(line, models: pd.DataFrame, scores: pd.DataFrame, facts) -> bool:
    """Whether the data bears out the evidence a settled identity line cites (read here from
    the tables and the extract, not through the audit's own rules)."""
    kind, _, said = line.resolution.partition(": ")
    said = said.split("; override: ")[0]
    cp = {m: (c or m) for m, c in zip(models["model_id"], models["checkpoint_id"], strict=True)}
    if kind == "co-listing":
        slot = said.removeprefix("both are rows of ").removesuffix(" (evidence extract)")
        if said.endswith("(evidence extract)"):
            return facts.colisted.get(frozenset((line.a, line.b))) == slot
        source, bench, day, setting = slot.split(" | ")
        setting_of = dict(zip(models["model_id"], models["variant"], strict=True))
        rows = scores[(scores["source_name"] == source) & (scores["benchmark_id"] == bench)
                      & (scores["date"].fillna("") == day)]
        owners = {cp.get(m, m) for m in rows["model_id"] if setting_of.get(m) == setting}
        return {line.a, line.b} <= owners
    if kind == "stated-date":
        release = dict(zip(models["checkpoint_id"], models["release_date"], strict=False))

        def day(checkpoint: str) -> str:
            written = name_date(checkpoint)[1]
            if written is None:
                return str(release.get(checkpoint, ""))
            y, m, d = written
            return "-".join(p for p in (str(y or "????"), f"{m:02d}", f"{d:02d}" if d else "")
                            if p)

        shown = re.findall(r"(\S+) ((?:\d{4}|\?{4})-\d\d(?:-\d\d)?) \(", said)
        if said.endswith("(evidence extract)"):
            stated = re.findall(r"(\S+) (\d{4}-\d\d-\d\d) \(([^)]*)\)", said)
            return len(stated) == 2 and all(facts.dates.get(c) == (d, s) for c, d, s in stated)
        if shown:
            return len({d for _, d in shown}) == 2 and all(day(c) == d for c, d in shown)
        undated, _, rest = said.partition(" writes no date; its dated snapshots ")
        snaps = rest.removesuffix(" state different dates").split(", ")
        return name_date(undated)[1] is None and len({day(s) for s in snaps} - {""}) > 1
    if kind == "repository":
        known = set(facts.repos.values()) | set(facts.tuned.values())
        repos = re.findall(r"(\S+/\S+) \(([^)]*)\)", said)
        return len(repos) == 2 and {r for r, _ in repos} <= known and repos[0][0] != repos[1][0]
    if kind == "product-word":
        words = said.removeprefix("the names differ by ").split(", ")
        return all(w in ai.PRODUCT_WORDS for w in words)
    return False


def test_every_settled_identity_line_cites_evidence_the_data_bears_out(committed):
    facts = crosslinks.read_extract(crosslinks.EVIDENCE_CSV)[1]
    settled = [f for f in audit_cli.findings("identity", committed, paths.CATALOG_DIR)
               if f.resolved]
    wrong = [f.line() for f in settled
             if not _recheck(f, committed["models"], committed["scores"], facts)]
    assert settled and not wrong, "\n".join(wrong[:10])


def test_every_settled_metadata_line_on_the_committed_catalog_says_how(committed):
    found = _findings("metadata", committed)
    ids = set(committed["models"]["model_id"]) | set(committed["models"]["checkpoint_id"])
    assert all(f.subject in ids for f in found)
    missing = [f for f in found if not f.what.startswith("sources disagree")]
    assert missing and all("no public source states it: " in f.line() for f in missing)
    assert sum(f.what.startswith("sources disagree") for f in found) >= 25


def test_no_two_models_share_a_display_name_and_none_is_shown_by_its_id(committed):
    models = committed["models"]
    shown = models["display_name"].str.casefold()
    assert not shown.duplicated().any(), models[shown.duplicated(keep=False)]["model_id"].tolist()
    assert not (models["display_name"] == models["model_id"]).any()
    spelled = [f"{r['model_id']}: {r['display_name']}" for r in models.to_dict("records")
               if names.id_spelled(r["display_name"], r) or "(unknown" in r["display_name"]]
    assert not spelled, spelled  # no id spelling, no source's placeholder for a setting


def test_variants_of_one_checkpoint_name_one_organisation_spelled_one_way(committed):
    models = committed["models"]
    assert not am.organisation_findings(models), am.organisation_findings(models)
    assert set(models.loc[models["checkpoint_id"] == "inkling", "organisation"]) == {
        "Thinking Machines Lab"}  # 'unknown' on the default, two spellings on the variants


def test_the_protocol_exclusions_reach_the_catalog(committed):
    used = set(committed["scores"]["benchmark_id"])
    assert not used & set(protocols.EXCLUDED_BENCHMARKS)
    assert "frontiermath-tier4-public" not in used  # 26 zeros of 26: draws only


# --- protocol and metadata audits on small tables ------------------------------------------


def test_protocol_audit_flags_excluded_ids_draws_and_undeclared_benchmarks():
    scores = pd.DataFrame(
        [("a", "livebench", 50.0), ("b", "livebench", 60.0)]
        + [(f"m{i}", "flat", 0.0) for i in range(6)]
        + [("a", "odd", 1.0)],
        columns=["model_id", "benchmark_id", "score"],
    ).assign(source_name="src")
    benches = pd.DataFrame({"benchmark_id": ["livebench", "flat"]})
    lines = [f.line() for f in ap.audit(scores, benches)]
    assert any(line.startswith("livebench:") and "composite" in line for line in lines)
    assert any(line.startswith("flat:") and "6 of 6 equal" in line for line in lines)
    assert any(line.startswith("odd:") and "not in benchmarks.csv" in line for line in lines)
    mixed = [{"benchmark_id": "b", "score": float(i % 2)} for i in range(10)]
    assert protocols.draw_only(mixed) == {}


def test_metadata_audit_flags_missing_and_contradicting_facts():
    models = _models([
        ("open-1", "Open 1", "", "", None, "true", "open-1", "default", ""),
        ("snap-2024-05-13", "Snap", "Lab", "2024-09-30", None, "false", "snap-2024-05-13",
         "default", ""),
        ("fine", "Fine", "Lab", "2024-01-01", 7, "true", "fine", "default", ""),
    ]).assign(active_params_b="", is_moe="false")
    scores = pd.DataFrame({"model_id": ["open-1", "snap-2024-05-13", "fine"] * 5})
    lines = [f.line() for f in am.audit(models, scores)]
    assert "open-1: no release date  UNRESOLVED" in lines
    assert "open-1: no organisation  UNRESOLVED" in lines
    assert "open-1: open weights without a parameter count  UNRESOLVED" in lines
    late = "snap-2024-05-13: release date 2024-09-30, but the id's snapshot is 2024-05-13"
    assert f"{late}  UNRESOLVED" in lines
    assert not any(line.startswith("fine:") for line in lines)
    documented = {"open-1": {"release_date": "no page dates it"}}
    settled = {f.what: f for f in am.audit(models, scores, documented) if f.subject == "open-1"}
    assert settled["no release date"].line() == (
        "open-1: no release date  resolved: no public source states it: no page dates it"
    )
    assert not settled["no organisation"].resolved  # only the fact the row names is settled
    unknown = models.assign(organisation=["unknown", "Lab", "Lab"])  # the rule's own blank
    assert "open-1: no organisation  UNRESOLVED" in [f.line() for f in am.audit(unknown, scores)]


def test_metadata_audit_flags_an_organisation_spelled_two_ways_and_split_variants():
    models = _models([
        ("p-1", "P 1", "PrimeIntellect", "", None, "true", "p-1", "default", ""),
        ("p-2", "P 2", "Prime Intellect", "", None, "true", "p-2", "default", ""),
        ("m-1", "M 1", "unknown", "", None, "false", "m-1", "default", ""),
        ("m-1-high", "M 1 (high)", "Meta", "", None, "false", "m-1", "high", ""),
        ("j-1", "J 1", "Lab A,Lab B", "", None, "true", "j-1", "default", ""),
    ])
    lines = [f.line() for f in am.organisation_findings(models)]
    assert lines == [
        "Prime Intellect | PrimeIntellect: one organisation, several spellings; fix: "
        "families.ORG_SYNONYMS  UNRESOLVED",
        "m-1: variants name different organisations: Meta, unknown  UNRESOLVED",
    ]
    assert org_key("Thinking Machines Lab") == org_key("thinking-machines") != org_key("Meta")
    assert canonical_org("PrimeIntellect") == "Prime Intellect"


# --- display names ----------------------------------------------------------------------------


def test_a_name_spelled_as_an_id_takes_a_sources_readable_spelling():
    def row(mid, shown, variant="default", checkpoint=None, aliases=""):
        return {"model_id": mid, "display_name": shown, "variant": variant,
                "checkpoint_id": checkpoint or mid, "aliases": aliases}

    rows = [
        row("ms-1.3-max", "ms-1.3-max (max)", "max", "ms-1.3", "Ms 1.3 (Max)"),  # an alias
        row("ms-1.3-xhigh", "ms-1.3 (xHigh)", "xhigh", "ms-1.3"),  # the sibling's spelling
        row("c-4.7", "C 4.7 (unknown)", aliases="C 4.7;c-4-7"),  # Epoch's placeholder
        row("gemini-2.5-flash-06-05-high", "gemini-2.5-flash-06-05-highthinking", "high",
            "gemini-2.5-flash-06-05"),  # no source spells it: the id, read
        row("d-4.1-flash-20260910-max", "d-4.1-flash-max (max)", "max", "d-4.1-flash-20260910",
            "D-4.1-Flash-20260910 (Max)"),  # the setting glued to the id
        row("o3-2025-04-16", "o3"),  # a product's own lower-case name is not an id
        row("gemini-2.5-x-06-17-thinking", "gemini-2.5-x-06-17 (Default thinking length) "
            "(thinking)", "thinking", "gemini-2.5-x-06-17",
            "Gemini 2.5 X (Thinking, 06-17)"),  # a variant: the id before its brackets
        row("o3-preview", "o3-preview (Dec 2024 announcement)"),  # a default's bracket stays
    ]
    names.human_spellings(rows)
    names.readable_names(rows)
    names.name_the_variants(rows)
    assert [r["display_name"] for r in rows] == [
        "Ms 1.3 (Max)",
        "Ms 1.3 (xHigh)",
        "C 4.7",
        "Gemini 2.5 Flash 06-05 (high)",
        "D-4.1-Flash-20260910 (Max)",
        "o3",
        "Gemini 2.5 X (Thinking, 06-17)",
        "o3-preview (Dec 2024 announcement)",
    ]
    assert names.readable_name("internlm2.5-20b-chat") == "InternLM2.5 20B Chat"
    assert names.readable_name("nova-experimental-chat-26-01-10") == (
        "Nova Experimental Chat 26-01-10")
    assert names.readable_name("gpt-oss-20b") == "GPT OSS 20B"


def test_variants_say_their_setting_and_ids_read_as_names():
    rows = [
        {"model_id": "c-4-16k", "display_name": "C 4", "variant": "16k", "checkpoint_id": "c-4"},
        {"model_id": "c-4", "display_name": "C 4", "variant": "default", "checkpoint_id": "c-4"},
        {"model_id": "g-4-high", "display_name": "G 4 (high)", "variant": "high",
         "checkpoint_id": "g-4"},
        {"model_id": "bloom-7b1", "display_name": "bloom-7b1", "variant": "default",
         "checkpoint_id": "bloom-7b1"},
    ]
    names.readable_names(rows)
    names.name_the_variants(rows)
    assert [r["display_name"] for r in rows] == [
        "C 4 (16k thinking)",
        "C 4",
        "G 4 (high)",
        "BLOOM 7B1",
    ]
    clash = [
        {"model_id": "x-2024-05-13", "display_name": "X", "checkpoint_id": "x-2024-05-13"},
        {"model_id": "x-2024-08-06", "display_name": "X", "checkpoint_id": "x-2024-08-06"},
        {"model_id": "y-a", "display_name": "Y", "checkpoint_id": "y-a"},
        {"model_id": "y-b", "display_name": "y", "checkpoint_id": "y-b"},
    ]
    names.unique_names(clash)
    assert [r["display_name"] for r in clash] == [
        "X 2024-05-13",
        "X 2024-08-06",
        "Y [y-a]",
        "y [y-b]",
    ]


# --- recorded methods, declared protocols, wrong attachments, snapshot dates ---------------


def test_a_method_is_read_into_the_declared_keys():
    assert protocols.method_terms("0-shot CoT") == {"shots": "0", "cot": "yes"}
    assert protocols.method_terms("Main, 5-shot CoT") == {
        "shots": "5",
        "cot": "yes",
        "subset": "main",
    }
    assert protocols.method_terms("Extended thinking (up to 64K tokens)") == {"thinking": "yes"}
    assert protocols.method_terms("Score, Reasoning Off") == {"thinking": "no"}
    assert protocols.method_terms("5-shot, Commonsense reasoning") == {"shots": "5"}
    assert protocols.method_terms("Enhanced reasoning on competition-level math") == {}
    assert protocols.stated_variant("Pass@1, Reasoning On") == "thinking"
    parallel = "With multiple parallel attempts and advanced scaffolding"
    assert protocols.method_drop_reason(parallel) == protocols.PARALLEL


def test_lab_reported_swe_bench_is_its_own_benchmark(committed):
    scores = committed["scores"]
    lab = scores[scores["benchmark_id"] == "swe-bench-verified-lab"]
    runs = scores[scores["benchmark_id"] == "swe-bench-verified"]
    assert set(lab["source_kind"]) == {"self-reported"} and len(lab) >= 10
    assert not runs["source_name"].str.startswith("LLM Stats").any()


def test_a_method_that_contradicts_the_declared_protocol_is_a_conflict():
    assert protocols.method_conflict("shots=5;cot=no", "5-shot") is None
    assert protocols.method_conflict("shots=5;cot=no", "Accuracy") is None  # states nothing
    assert "shots 0 (declared 5)" in protocols.method_conflict("shots=5;cot=no", "0-shot CoT")
    assert "subset test (declared val)" in protocols.method_conflict("subset=val", "test")
    with pytest.raises(ValueError, match="write shots"):
        protocols.declared_terms("shot=5")


def test_a_bad_declared_protocol_is_one_line_naming_the_file_and_line(tmp_path, monkeypatch):
    from analytics.llm.ingest import benchmarks

    bad = tmp_path / "benchmarks.csv"
    bad.write_text(
        "benchmark_id,name,category,higher_is_better,lower_bound,upper_bound,unit,"
        "source_names,protocol\nx,X,math,true,0,100,%,,shots5\n",
        "utf-8",
    )
    with pytest.raises(ValueError, match=r"benchmarks\.csv:2: protocol term 'shots5'"):
        benchmarks._read_into(bad, {}, {})


def test_the_protocol_audit_flags_a_row_against_its_declared_protocol():
    scores = pd.DataFrame(
        {"model_id": ["a", "b"], "benchmark_id": ["mmlu", "mmlu"], "score": [70.0, 71.0],
         "source_name": ["s", "s"], "method": ["0-shot CoT", "5-shot"]}
    )
    benches = pd.DataFrame({"benchmark_id": ["mmlu"], "protocol": ["shots=5;cot=no"]})
    lines = [f.line() for f in ap.audit(scores, benches)]
    assert len(lines) == 1 and lines[0].startswith("mmlu / a: protocol: method differs")


def test_a_base_checkpoint_never_keeps_its_tuned_siblings_copied_rows(committed):
    from analytics.llm.ingest.attachments import copied_base_rows

    rows = [
        {"model_id": "g-8b-base", "benchmark_id": "aime", "source_name": "s", "score": 81.2},
        {"model_id": "g-8b-instruct", "benchmark_id": "aime", "source_name": "s", "score": 81.2},
        {"model_id": "g-8b-base", "benchmark_id": "mmlu", "source_name": "s", "score": 63.9},
        {"model_id": "g-8b-instruct", "benchmark_id": "mmlu", "source_name": "s", "score": 65.5},
        {"model_id": "g-8b-base", "benchmark_id": "bbh", "source_name": "t", "score": 50.0},
        {"model_id": "g-8b-instruct", "benchmark_id": "bbh", "source_name": "u", "score": 50.0},
    ]
    assert copied_base_rows(rows) == {0}  # a different score or another source stays
    scores = committed["scores"]
    base = scores[scores["model_id"] == "granite-3.3-8b-base"]
    assert "aime-2024" not in set(base["benchmark_id"]) and "mmlu" in set(base["benchmark_id"])


def test_rows_run_with_extended_thinking_sit_on_the_thinking_variant(committed):
    scores = committed["scores"]
    stated = scores["method"].str.contains("Extended thinking", na=False)
    assert stated.any()
    assert scores.loc[stated, "model_id"].str.endswith("-thinking").all()


def test_a_snapshot_date_bounds_the_release_date(committed):
    from analytics.llm.ingest.dated import release_for_snapshot

    assert release_for_snapshot("x-2025-06-17", "2025-05-20") == ("2025-06-17", True)
    assert release_for_snapshot("x-2025-06-17", "2025-06-20") == ("2025-06-20", False)
    assert release_for_snapshot("x-2025-06-17", "2025-09-30") == ("2025-06-17", True)
    assert release_for_snapshot("x", "2025-05-20") == ("2025-05-20", False)
    models = committed["models"].set_index("model_id")
    assert models.loc["gemini-2.5-pro-2025-06-17", "release_date"] == "2025-06-17"
    assert models.loc["glm-4.5-thinking", "release_date"] == "2025-07-28"  # set on the checkpoint
