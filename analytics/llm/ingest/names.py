"""Display names a reader can tell apart: every variant says its setting, no two
models share a name, and no model is shown under its bare id.

- :func:`human_spellings`: a name spelled as an id ('muse-spark-1.3-max (max)',
  'gemini-2.5-flash-06-05-highthinking') or carrying a source's placeholder for an unstated
  setting ('Claude Opus 4.7 (unknown)') takes the most readable name a source gives the same
  checkpoint and setting ('Muse Spark 1.3 (Max)'), else loses the placeholder;
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

from analytics.llm.ingest.identity import (
    canonical_variant,
    loose_key,
    match_key,
    name_tokens,
    split_variant,
)

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
    "oss",
}
_BRANDS = {
    "deepseek": "DeepSeek", "internlm": "InternLM", "minicpm": "MiniCPM", "chatglm": "ChatGLM",
    "openchat": "OpenChat", "smollm": "SmolLM", "olmo": "OLMo", "starcoder": "StarCoder",
}
"""How makers write their names, also as a word's start ('internlm2.5' -> 'InternLM2.5')."""
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


_PLACEHOLDER = re.compile(r"\s*\(unknown(?:[ -](?:thinking|reasoning|effort))?\)", re.I)
"""A source's word for a setting it does not know (Epoch: 'Claude Opus 4.7 (unknown)')."""


def readability(name: str) -> tuple[int, int, int]:
    """Sort key (lower is better): words with spaces, then capitals, then shorter."""
    return (" " not in name, name == name.lower(), len(name))


def _checkpoint(row: dict) -> str:
    return str(row.get("checkpoint_id") or row["model_id"])


_PAREN_TAIL = re.compile(r"\s*\([^)]*\)\s*$")


def _one_word(text: str) -> bool:
    return bool(text) and " " not in text and text == text.lower()


def id_spelled(name: str, row: dict) -> bool:
    """Whether ``name`` is only an id's spelling of ``row``'s model: one lower-case word (the
    name with a setting it names set aside, or, for a variant, its words before any bracket:
    'x-1 (Default thinking length) (thinking)') that is the model's or its checkpoint's id, or
    that ends in the variant's setting ('deepseek-v4.1-flash-max (max)')."""
    ids = {loose_key(row["model_id"]), loose_key(_checkpoint(row))}
    variant = str(row.get("variant") or "default")
    base = split_variant(name)[0].strip()
    texts = [base, _PAREN_TAIL.sub("", name).strip()] if _one_word(base) else []
    if variant != "default":  # a variant's brackets hold settings
        texts.append(name.split(" (")[0].strip())
    for text in filter(_one_word, texts):
        if loose_key(text) in ids or (variant != "default" and text.endswith(f"-{variant}")):
            return True
    return False


def _names_this(name: str, row: dict) -> bool:
    """Whether a source's ``name`` is the same checkpoint with the same setting as ``row``."""
    base, setting = split_variant(name)
    variant = str(row.get("variant") or "default")
    same_setting = (canonical_variant(setting) or setting or "default") == variant
    return same_setting and loose_key(base) == loose_key(split_variant(_checkpoint(row))[0])


def _checkpoint_spelling(members: list[dict]) -> str | None:
    """The most readable spelling of a checkpoint's name (setting set aside) that any of its
    variants' names or aliases gives, if one is more than an id."""
    row = members[0]
    own = loose_key(split_variant(_checkpoint(row))[0])
    found = []
    for member in members:
        for name in [member["display_name"], *str(member.get("aliases") or "").split(";")]:
            base = split_variant(name.strip())[0]
            if base and "/" not in base and not _PLACEHOLDER.search(name) and (
                " " in base or base != base.lower()) and loose_key(base) == own:
                found.append(base)
    return min(found, key=readability) if found else None


def human_spellings(rows: list[dict]) -> None:
    """Names spelled as ids or holding a placeholder take a source's readable spelling of the
    same checkpoint and setting (the most readable one), else the checkpoint's readable
    spelling (a source's, else :func:`readable_name` of its id) with the setting after it; a
    name that is not an id only loses its placeholder."""
    by_checkpoint: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        by_checkpoint[_checkpoint(row)].append(row)
    for row in rows:
        name = row["display_name"]
        placeholder = bool(_PLACEHOLDER.search(name))
        if not placeholder and not id_spelled(name, row):
            continue
        names = [n.strip() for n in str(row.get("aliases") or "").split(";")]
        fitting = [
            n for n in names
            if n and "/" not in n and not _PLACEHOLDER.search(n) and not id_spelled(n, row)
            and _names_this(n, row)
        ]
        if fitting:
            row["display_name"] = min(fitting, key=readability)
            continue
        spelling = _checkpoint_spelling(by_checkpoint[_checkpoint(row)]) or (
            readable_name(_checkpoint(row)) if not placeholder or id_spelled(name, row) else None)
        variant = str(row.get("variant") or "default")
        if spelling:
            setting = split_variant(name)[1]
            tail = _PAREN_TAIL.search(name)
            said = tail.group(0).strip()[1:-1] if tail and setting else variant_label(variant)
            row["display_name"] = spelling if variant == "default" else f"{spelling} ({said})"
        else:
            row["display_name"] = _PLACEHOLDER.sub("", name).strip()


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
    brand = next((b for b in _BRANDS if word.startswith(b)), None)
    if brand and not word[len(brand):].isalpha():
        return _BRANDS[brand] + word[len(brand):]
    if re.fullmatch(r"o\d+", word):  # OpenAI's o-series is written in lower case
        return word
    if word in _KEEP or not word[:1].isalpha():
        return word.capitalize() if word in _KEEP else word
    return word[:1].upper() + word[1:]


_ID_PART = re.compile(
    r"20\d\d-\d\d-\d\d|(?<![\d.])\d\d-20\d\d|20\d\d-\d\d(?![\d-])"
    r"|(?<![\d.])\d\d-[01]\d-[0-3]\d(?![\d.-])|(?<![\d.])[01]\d-[0-3]\d(?![\d.-])|[^-_]+"
)
"""A date written in an id stays one word ('2026-02-23', '03-2025', '26-01-10', '06-05'); else
words split at '-'."""


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
    :func:`readable_name`; a variant's id is read as its checkpoint's, so that
    :func:`name_the_variants`, run after, adds the setting once ('Muse Spark 1.3 (max)')."""
    for row in rows:
        name, variant = row["display_name"], str(row.get("variant") or "default")
        tail_set = split_variant(name)[1] is not None and _PAREN_TAIL.search(name)
        if _is_raw(name, row["model_id"]) or (
            tail_set and _is_raw(_PAREN_TAIL.sub("", name), row["model_id"])
        ):
            row["display_name"] = readable_name(
                _checkpoint(row) if variant != "default" else row["model_id"]
            )


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
