"""Issue 29: `fit --model ID --gpu G --json` lists the measured speeds the hardware-fit page shows
for that checkpoint and hardware, each with its kind; a community figure carries its runs."""

from __future__ import annotations

import json

from analytics.core import db
from analytics.llm import catalog, throughput
from analytics.llm.fit_cli import main


def _cli(capsys, *args: str) -> dict:
    assert main(["fit", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_cli_lists_the_pages_measured_speeds(capsys):
    tables = catalog.of_version(db.serving_version().version)
    speeds = throughput.measured_speeds(tables.throughput, tables.models, "rtx-4090", 1)
    community = speeds[speeds["community_tokens_per_s"].notna()]
    assert not community.empty, "no community speed on an RTX 4090 in the committed catalog"
    checkpoint = community.index[0]
    out = _cli(capsys, "--model", checkpoint, "--gpu", "RTX 4090")
    kinds = {s["kind"]: s for s in out["measured_speeds"]}
    assert throughput.COMMUNITY in kinds
    shown = kinds[throughput.COMMUNITY]
    assert shown["tokens_per_s"] == community.loc[checkpoint, "community_tokens_per_s"]
    assert shown["n_runs"] >= 1 and shown["tokens_per_s_min"] <= shown["tokens_per_s_max"]
    assert shown["source_url"].startswith("https://")
    for kind, entry in kinds.items():
        column = f"{throughput.KIND_PREFIX[kind]}_tokens_per_s"
        assert entry["tokens_per_s"] == speeds.loc[checkpoint, column]


def test_cli_lists_a_vendor_aggregate_on_two_h100(capsys):
    out = _cli(capsys, "--model", "llama-3.3-70b-instruct", "--gpu", "H100 SXM", "--count", "2")
    kinds = {s["kind"] for s in out["measured_speeds"]}
    assert throughput.VENDOR in kinds


def test_cli_without_a_measured_row_lists_none(capsys):
    out = _cli(capsys, "--model", "llama-3.3-70b-instruct", "--gpu", "RTX 4090")
    assert out["measured_speeds"] == []
