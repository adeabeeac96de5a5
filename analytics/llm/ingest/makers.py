"""Per-maker spellings of one checkpoint, in one table (docs/data.md, "Identity").

Makers and hosts write one checkpoint several ways: a lab or API prefix before the family
('c4ai-aya-expanse-32b', 'open-mixtral-8x7b', 'moonshotai-kimi-k2-instruct'), a version number
where the API writes a YYMM tag ('Magistral Medium 1.2' = 'magistral-medium-2509'), or a month
where the API writes a '-00N' build ("Gemini 1.5 Flash (Sep '24)", read as
'gemini-1.5-flash-09-2024', = 'gemini-1.5-flash-002'). Each row here names the maker's page that
states the equivalence. The rows do not rename anything by themselves: each becomes a link of the
cross-link graph (``crosslinks.py``), so a recorded contradiction (another release date, another
size, co-listed rows) still keeps two ids apart.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from analytics.llm.ingest.identity import slugify

MISTRAL_VERSIONS = "https://docs.mistral.ai/getting-started/models/models_overview/"
GEMINI_VERSIONS = "https://ai.google.dev/gemini-api/docs/models/gemini#model-versions"
COHERE_MODELS = "https://docs.cohere.com/docs/models"
MISTRAL_OPEN = "https://docs.mistral.ai/getting-started/open_weight_models/"
MOONSHOT_HUB = "https://huggingface.co/moonshotai"
NVIDIA_HUB = "https://huggingface.co/nvidia"


@dataclass(frozen=True)
class Prefix:
    """A maker's or host's word written before a family: '<prefix><family>...' names the same
    checkpoint as '<family>...'."""

    maker: str
    prefix: str
    families: tuple[str, ...]
    source_url: str


@dataclass(frozen=True)
class Spelling:
    """Two ids of one checkpoint that no rule of names can equate (a version number and the
    API's date tag, a month and a build number)."""

    maker: str
    kind: str
    one: str
    other: str
    source_url: str


PREFIXES: tuple[Prefix, ...] = (
    Prefix("Cohere", "c4ai-", ("aya-", "command-"), COHERE_MODELS),
    Prefix("Mistral AI", "open-", ("mistral-", "mixtral-", "codestral-"), MISTRAL_OPEN),
    Prefix("Moonshot AI", "moonshotai-", ("kimi-",), MOONSHOT_HUB),
    Prefix("NVIDIA", "nvidia-", ("llama-", "mistral-nemo", "nemotron"), NVIDIA_HUB),
)
"""Lab and API prefixes (Cohere's 'C4AI' repositories, Mistral's 'open-' API ids, the Hub
namespace written into an Arena key)."""

SPELLINGS: tuple[Spelling, ...] = (
    Spelling("Mistral AI", "version-yymm", "magistral-medium-1", "magistral-medium-2506",
             MISTRAL_VERSIONS),
    Spelling("Mistral AI", "version-yymm", "magistral-medium-1.1", "magistral-medium-2507",
             MISTRAL_VERSIONS),
    Spelling("Mistral AI", "version-yymm", "magistral-medium-1.2", "magistral-medium-2509",
             MISTRAL_VERSIONS),
    Spelling("Mistral AI", "version-yymm", "magistral-small-1", "magistral-small-2506",
             MISTRAL_VERSIONS),
    Spelling("Mistral AI", "version-yymm", "magistral-small-1.1", "magistral-small-2507",
             MISTRAL_VERSIONS),
    Spelling("Mistral AI", "version-yymm", "magistral-small-1.2", "magistral-small-2509",
             MISTRAL_VERSIONS),
    Spelling("Mistral AI", "version-yymm", "devstral-small-1", "devstral-small-2505",
             MISTRAL_VERSIONS),
    Spelling("Mistral AI", "version-yymm", "devstral-small-1.1", "devstral-small-2507",
             MISTRAL_VERSIONS),
    Spelling("Mistral AI", "version-yymm", "devstral-small-2", "devstral-small-2512",
             MISTRAL_VERSIONS),
    Spelling("Mistral AI", "version-yymm", "devstral-2", "devstral-2512", MISTRAL_VERSIONS),
    Spelling("Mistral AI", "version-yymm", "devstral-medium-1", "devstral-medium-2507",
             MISTRAL_VERSIONS),
    Spelling("Mistral AI", "version-yymm", "mistral-small-3", "mistral-small-2501",
             MISTRAL_VERSIONS),
    Spelling("Mistral AI", "version-yymm", "mistral-small-3.1", "mistral-small-2503",
             MISTRAL_VERSIONS),
    Spelling("Mistral AI", "version-yymm", "mistral-small-3.2", "mistral-small-2506",
             MISTRAL_VERSIONS),
    Spelling("Mistral AI", "version-yymm", "mistral-medium-3", "mistral-medium-2505",
             MISTRAL_VERSIONS),
    Spelling("Mistral AI", "version-yymm", "mistral-medium-3.1", "mistral-medium-2508",
             MISTRAL_VERSIONS),
    Spelling("Mistral AI", "month-yymm", "mistral-large-2-07-2024", "mistral-large-2407",
             MISTRAL_VERSIONS),
    Spelling("Mistral AI", "month-yymm", "mistral-large-2-11-2024", "mistral-large-2411",
             MISTRAL_VERSIONS),
    Spelling("Mistral AI", "api-weights", "open-mistral-7b", "mistral-7b-instruct",
             MISTRAL_OPEN),
    Spelling("Mistral AI", "api-weights", "open-mistral-nemo-2407", "mistral-nemo-instruct-2407",
             MISTRAL_OPEN),
    Spelling("Mistral AI", "api-weights", "mistral-small-3.1",
             "mistral-small-3.1-24b-instruct-2503",
             MISTRAL_VERSIONS),
    Spelling("Google", "stable-build", "gemini-1.5-flash-8b", "gemini-1.5-flash-8b-001",
             GEMINI_VERSIONS),
    Spelling("Google", "month-build", "gemini-1.5-flash-05-2024", "gemini-1.5-flash-001",
             GEMINI_VERSIONS),
    Spelling("Google", "month-build", "gemini-1.5-flash-09-2024", "gemini-1.5-flash-002",
             GEMINI_VERSIONS),
    Spelling("Google", "month-build", "gemini-1.5-pro-05-2024", "gemini-1.5-pro-001",
             GEMINI_VERSIONS),
    Spelling("Google", "month-build", "gemini-1.5-pro-09-2024", "gemini-1.5-pro-002",
             GEMINI_VERSIONS),
)
"""Version number <-> YYMM tag (Mistral lists both for each release); Mistral's API id <-> the
instruct weights it serves (the API names the tuned release without '-instruct' and with 'open-'
or a version number where the repository writes size and YYMM); Artificial Analysis'
"(Mon 'YY)" label <-> Google's '-00N' build (Google dates each build); Google's undated stable
name <-> its only '-001' build (Google lists the alias and the build it points to)."""

_DOTZERO = re.compile(r"(?<=\d)\.0(?=-|$)")


def spelling_key(checkpoint_id: str) -> str:
    """A checkpoint id as this table compares it ('magistral-medium-1.0' = '...-1')."""
    return _DOTZERO.sub("", slugify(checkpoint_id))


def other_spellings(checkpoint_id: str) -> list[tuple[str, str, str]]:
    """(other id, rule, source_url) for every way the table spells this checkpoint otherwise."""
    key = spelling_key(checkpoint_id)
    out = []
    for row in PREFIXES:
        if key.startswith(row.prefix) and key[len(row.prefix):].startswith(row.families):
            out.append((key[len(row.prefix):], f"prefix {row.prefix}", row.source_url))
    for row in SPELLINGS:
        for mine, theirs in ((row.one, row.other), (row.other, row.one)):
            if key == mine or key.startswith(mine + "-"):
                out.append((theirs + key[len(mine):], f"{row.kind} {row.one} = {row.other}",
                            row.source_url))
    return out
