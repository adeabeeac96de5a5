"""Display names a reader can tell apart (issue 26): every variant says its setting, no two
models share a name, and no model is shown under its bare id.

- :func:`name_the_variants`: a non-default variant whose name does not state its setting gets
  it in parentheses ('Claude Opus 4 (16k thinking)', 'Grok 4 Fast (high)');
- :func:`readable_names`: a model still named by its id gets a readable spelling of that id
  ('claude-instant-1.1' -> 'Claude Instant 1.1', 'bloom-7b1' -> 'BLOOM 7B1');
- :func:`unique_names`: names that still clash after both take their checkpoint's date or,
  failing that, the id in brackets.
"""

from __future__ import annotations

import re
from collections import defaultdict

from analytics.llm.ingest.identity import match_key, name_tokens, split_variant

_UPPER = {
    "gpt",
    "gpt2",
    "glm",
    "llm",
    "moe",
    "vl",
    "rm",
    "it",
    "dpo",
    "sft",
    "rl",
    "ai",
    "qwq",
    "mpt",
    "opt",
    "t5",
    "umt5",
    "bloom",
    "dbrx",
    "exaone",
    "ernie",
    "jais",
    "hf",
    "fp8",
    "gguf",
    "awq",
    "tts",
    "ocr",
    "api",
}
_KEEP = {"mini", "nano", "pro", "plus", "max", "flash", "lite", "turbo", "preview", "chat"}
_SIZE = re.compile(r"^(\d+(?:\.\d+)?)([bmk])(\d*)$")
_MOE = re.compile(r"^a(\d+(?:\.\d+)?)([bm])$")
_EXPERTS = re.compile(r"^(\d+)x(\d+(?:\.\d+)?)([bm])$")


def variant_label(variant: str) -> str:
    """How a variant reads in a name: '16k' -> '16k thinking', 'high' -> 'high'."""
    if re.fullmatch(r"\d+k", variant):
        return f"{variant} thinking"
    return variant.replace("-", " ")


def _states_setting(name: str) -> bool:
    """Whether a name spells a setting ('(high)', '(16k thinking)', 'Thinking xHigh Effort');
    a parenthesised date ('(Jun 2025)') is not one."""
    return split_variant(name)[1] is not None


def name_the_variants(rows: list[dict]) -> None:
    """Append the setting to a non-default variant's name that does not state one."""
    for row in rows:
        variant = str(row.get("variant") or "default")
        if variant != "default" and not _states_setting(row["display_name"]):
            row["display_name"] = f"{row['display_name']} ({variant_label(variant)})"


def _word(word: str) -> str:
    size = _SIZE.match(word)
    if size:
        return f"{size.group(1)}{size.group(2).upper()}{size.group(3)}"
    for pattern in (_MOE, _EXPERTS):
        if pattern.match(word):
            return word.upper().replace("X", "x")
    if word in _UPPER:
        return word.upper()
    if re.fullmatch(r"o\d+", word):  # OpenAI's o-series is written in lower case
        return word
    if word in _KEEP or not word[:1].isalpha():
        return word.capitalize() if word in _KEEP else word
    return word[:1].upper() + word[1:]


_ID_PART = re.compile(r"20\d\d-\d\d-\d\d|(?<![\d.])\d\d-20\d\d|20\d\d-\d\d(?![\d-])|[^-_]+")
"""A date written in an id stays one word ('2026-02-23', '03-2025'); else words split at '-'."""


def readable_name(model_id: str) -> str:
    """A readable spelling of an id: words split at '-' (a date kept whole), sizes and known
    acronyms in capitals."""
    return " ".join(_word(w) for w in _ID_PART.findall(model_id) if w)


def _is_raw(name: str, model_id: str) -> bool:
    """A name that is only an id: the model's own id, a repo path, or an id-like spelling of
    it ('grok-4-1', 'finix_s1_32b': lower case, no space, the same match key)."""
    if name in (model_id, "") or "/" in name:
        return True
    return " " not in name and name == name.lower() and match_key(name) == match_key(model_id)


def readable_names(rows: list[dict]) -> None:
    """A model still shown under its id (or an id-like spelling of it) is shown under
    :func:`readable_name`; the variant's setting, when the id ends in it, stays in brackets."""
    for row in rows:
        if _is_raw(row["display_name"], row["model_id"]):
            row["display_name"] = readable_name(row["model_id"])


def unique_names(rows: list[dict]) -> None:
    """Names that clash (case-insensitive) take their checkpoint's written date, else the id."""
    groups: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        groups[row["display_name"].casefold()].append(row)
    for members in groups.values():
        if len(members) < 2:
            continue
        for row in members:
            _, date = name_tokens(str(row.get("checkpoint_id") or row["model_id"]))
            if date and None not in date:
                row["display_name"] = f"{row['display_name']} {date[0]}-{date[1]:02d}-{date[2]:02d}"
    groups.clear()
    for row in rows:
        groups[row["display_name"].casefold()].append(row)
    for members in groups.values():
        if len(members) > 1:
            for row in members:
                row["display_name"] = f"{row['display_name']} [{row['model_id']}]"
