"""The source-kind rule: which provenance class a published score belongs to.

Rule (documented in docs/data.md):
- LMArena (human pairwise votes) -> ``arena``.
- A third-party harness or leaderboard run (HELM, Epoch AI, Open LLM Leaderboard, Artificial
  Analysis, Vals, Scale SEAL, LiveBench, Aider, ARC Prize, ...) or the paper that introduced a
  benchmark and evaluated other groups' models -> ``independent``.
- Everything else -> ``self-reported``: a lab's model card, paper, blog or announcement, and any
  source we do not recognise (the conservative choice: lowest headline precedence). A lab's
  technical report counts as self-reported for every model in it, competitors' baselines included.
"""

from __future__ import annotations

from urllib.parse import urlparse

ARENA_HOSTS = ("lmarena.ai", "lmsys.org", "chat.lmsys.org", "arena.lmsys.org")

# Host (or host + path prefix) of third-party harnesses and leaderboards.
INDEPENDENT_SOURCES: dict[str, str] = {
    "crfm.stanford.edu/helm": "Stanford HELM",
    "epoch.ai": "Epoch AI",
    "logs.epoch.ai": "Epoch AI",
    "huggingface.co/spaces/open-llm-leaderboard": "Open LLM Leaderboard",
    "huggingface.co/spaces/HuggingFaceH4/open_llm_leaderboard": "Open LLM Leaderboard",
    "artificialanalysis.ai": "Artificial Analysis",
    "vals.ai": "Vals AI",
    "scale.com/leaderboard": "Scale SEAL",
    "livebench.ai": "LiveBench",
    "aider.chat": "Aider",
    "arcprize.org": "ARC Prize",
    "balrogai.com": "BALROG",
    "willpatrick.xyz": "CadEval",
    "cybench.github.io": "Cybench",
    "drb.futuresearch.ai": "DeepResearch Bench",
    "jackhopkins.github.io/factorio-learning-environment": "Factorio Learning Environment",
    "fiction.live": "Fiction.LiveBench",
    "geobench.org": "GeoBench",
    "gso-bench.github.io": "GSO",
    "rowanzellers.com/hellaswag": "HellaSwag leaderboard",
    "mcbench.ai": "MC-Bench",
    "metr.org": "METR",
    "os-world.github.io": "OSWorld",
    "scienceqa.github.io": "ScienceQA leaderboard",
    "simple-bench.com": "SimpleBench",
    "tbench.ai": "Terminal-Bench",
    "the-agent-company.com": "TheAgentCompany",
    "github.com/theagentcompany": "TheAgentCompany",
    "cbrower.dev/vpct": "VPCT",
    "video-mme.github.io": "Video-MME",
    "htihle.github.io": "WeirdML",
    "github.com/lechmazur": "Lech Mazur writing benchmark",
    "paperswithcode.com": "Papers with Code",
    "swebench.com": "SWE-bench",
    "gorilla.cs.berkeley.edu": "Berkeley Function-Calling Leaderboard",
    # Papers that introduced a benchmark and evaluated other groups' models.
    "arxiv.org/abs/1910.14599": "ANLI paper",
    "arxiv.org/pdf/1910.14599": "ANLI paper",
    "arxiv.org/abs/2201.05320": "CSQA2 paper",
    "arxiv.org/pdf/2201.05320": "CSQA2 paper",
    "arxiv.org/abs/2505.03570": "OSUniverse paper",
    "arxiv.org/pdf/2505.03570": "OSUniverse paper",
}

# Names that identify a third-party run even without a URL.
INDEPENDENT_NAMES = (
    "helm",
    "epoch ai",
    "open llm leaderboard",
    "artificial analysis",
    "vals ai",
    "scale seal",
    "livebench",
)


def _host_path(url: str) -> str:
    parsed = urlparse(url.strip())
    host = parsed.netloc.lower().removeprefix("www.")
    return host + parsed.path.lower().rstrip("/")


def _matches(host_path: str, key: str) -> bool:
    key = key.lower()
    if host_path == key or host_path.startswith(key + "/"):
        return True
    return "/" not in key and host_path.split("/")[0].endswith("." + key)


def source_kind(url: str | None, name: str | None = None) -> str:
    """Provenance class (``arena``, ``independent`` or ``self-reported``) of one source."""
    host_path = _host_path(url or "")
    label = (name or "").strip().lower()
    if any(host_path.split("/")[0].endswith(h) for h in ARENA_HOSTS) or "lmarena" in label:
        return "arena"
    if any(_matches(host_path, key) for key in INDEPENDENT_SOURCES):
        return "independent"
    if label and any(word in label for word in INDEPENDENT_NAMES):
        return "independent"
    return "self-reported"


def publisher(url: str | None) -> str | None:
    """Display name of a known third-party source, else None."""
    host_path = _host_path(url or "")
    for key, label in INDEPENDENT_SOURCES.items():
        if _matches(host_path, key):
            return label
    return None


def is_placeholder_url(url: str | None) -> bool:
    """True for empty links and documentation placeholders such as example.com."""
    host = _host_path(url or "").split("/")[0]
    return not host or host in {"example.com", "example.org", "localhost"} or "." not in host
