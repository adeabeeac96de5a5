"""Licence classes for model weights (seed 002, licence paragraph).

Every curated licence string maps to exactly one of three classes. The raw string is always shown
beside the class; the class only answers "may I build a product on these weights?".

Rules, in order:

1. Mixed strings ("code: Apache-2.0, weights: CC-BY-NC-4.0", "MIT + Model License") are split into
   parts; the parts about the weights decide, because the weights are what you run or fine-tune.
   Parts labelled as code are ignored when other parts exist. Unlabelled parts joined by "or" are a
   choice (the most permissive wins); any other unlabelled combination needs all of them (the
   most restrictive wins).
2. A part with a non-commercial or research clause is ``research-only``.
3. A part made only of Apache/MIT/BSD-family identifiers (plus version numbers and filler words
   such as "license" or "version") is ``permissive``.
4. Everything else - community licences (Llama, Gemma, Qwen), custom or proprietary terms,
   "other", "unknown", empty or missing strings - is ``conditional / custom``.
"""

from __future__ import annotations

import re

PERMISSIVE = "permissive"
CONDITIONAL = "conditional / custom"
RESEARCH_ONLY = "research-only"

LICENCE_CLASSES: tuple[str, ...] = (PERMISSIVE, CONDITIONAL, RESEARCH_ONLY)
"""The three classes, from least to most restrictive."""

_RESTRICTIVENESS = {PERMISSIVE: 0, CONDITIONAL: 1, RESEARCH_ONLY: 2}

# Non-commercial / research clauses: CC *-NC-*, "non-commercial", research licences (Mistral MRL,
# Qwen Research), non-production licences (Mistral MNPL).
_RESEARCH = re.compile(
    r"by[\s_-]*(?:sa[\s_-]*)?nc\b|\bnc[\s_-]+(?:sa|nd)\b|non[\s_-]?commercial|"
    r"\bresearch\b(?![\s_-]*preview)|\bmrl\b|"
    r"non[\s_-]?production|\bmnpl\b|academic[\s_-]+(?:use|only)"
)

# Words that identify a permissive licence (SPDX ids split into words) and filler words.
_PERMISSIVE_WORDS = frozenset(
    "apache mit bsd 0bsd isc unlicense wtfpl zlib bsl boost cc0 cc by afl upl postgresql "
    "ncsa x x11 public domain clause clear new simplified expat".split()
)
_FILLER_WORDS = frozenset(
    "license licence licenses licences licensed under the a version v or later only and "
    "software open source for".split()
)
_NUMBER = re.compile(r"^v?\d+(?:\.\d+)*$")

_SPLIT = re.compile(r"[;,+|\n]|\s&\s|\band\b|\bor\b(?!\s+later)|\s/\s")
_LABEL = re.compile(
    r"^\s*\(?\s*(code|source code|source|software|inference code|weights|model weights|model|"
    r"checkpoints?|parameters|params)\s*\)?\s*[:=]\s*(.*)$"
)
_PAREN_LABEL = re.compile(r"\((code|source|weights|model weights|model|checkpoints?)\)")
_WEIGHT_WORDS = re.compile(r"\b(weights?|model|checkpoints?|parameters)\b")
_CODE_LABELS = {"code", "source code", "source", "software", "inference code"}


def licence_class(raw: str | None) -> str:
    """Class of a licence string: one of ``LICENCE_CLASSES`` (unknown -> conditional / custom)."""
    if not isinstance(raw, str):  # None, NaN from a missing CSV cell
        return CONDITIONAL
    text = raw.strip().lower()
    if not text or text in {"nan", "none", "unknown", "n/a", "-", "—"}:
        return CONDITIONAL
    parts = _labelled_parts(text)
    weights = [body for label, body in parts if label == "weights"]
    if weights:
        return _most_restrictive(weights)
    others = [body for label, body in parts if label != "code"] or [body for _, body in parts]
    if len(others) > 1 and re.search(r"\bor\b(?!\s+later)", text):
        return _most_permissive(others)
    return _most_restrictive(others)


def _labelled_parts(text: str) -> list[tuple[str, str]]:
    """Split a licence string into (label, body) parts; label is weights, code or ''."""
    parts: list[tuple[str, str]] = []
    for chunk in _SPLIT.split(text):
        chunk = chunk.strip(" .")
        if not _has_content(chunk):
            continue
        label, body = "", chunk
        match = _LABEL.match(chunk)
        paren = _PAREN_LABEL.search(chunk)
        if match:
            label, body = match.group(1), match.group(2)
        elif paren:
            label, body = paren.group(1), _PAREN_LABEL.sub(" ", chunk)
        if label in _CODE_LABELS:
            parts.append(("code", body))
        elif label or _WEIGHT_WORDS.search(chunk):
            parts.append(("weights", body if label else _WEIGHT_WORDS.sub(" ", chunk)))
        else:
            parts.append(("", body))
    return parts or [("", text)]


def _words(text: str) -> list[str]:
    return [w.strip(".") for w in re.split(r"[^a-z0-9.]+", text) if w.strip(".")]


def _has_content(chunk: str) -> bool:
    return any(w not in _FILLER_WORDS and not _NUMBER.match(w) for w in _words(chunk))


def _part_class(body: str) -> str:
    if _RESEARCH.search(body):
        return RESEARCH_ONLY
    words = _words(body)
    content = [w for w in words if w not in _FILLER_WORDS and not _NUMBER.match(w)]
    permissive = content and all(_stem(w) in _PERMISSIVE_WORDS for w in content)
    if permissive and not _is_cc_restricted(words):
        return PERMISSIVE
    return CONDITIONAL


def _stem(word: str) -> str:
    """'apache2' -> 'apache', 'x11' -> 'x'; leaves '0bsd' and 'cc0' alone."""
    return word if word in _PERMISSIVE_WORDS else re.sub(r"[\d.]+$", "", word)


def _is_cc_restricted(words: list[str]) -> bool:
    """CC licences are permissive only as plain CC-BY / CC0 (SA and ND add conditions)."""
    return "cc" in words and any(w in {"sa", "nd"} for w in words)


def _most_restrictive(bodies: list[str]) -> str:
    return max((_part_class(b) for b in bodies), key=_RESTRICTIVENESS.__getitem__)


def _most_permissive(bodies: list[str]) -> str:
    return min((_part_class(b) for b in bodies), key=_RESTRICTIVENESS.__getitem__)


def licence_verdict(code_licence: str, weights_licence: str) -> str:
    """The stricter of the code and weights licence classes, named with both raw strings.

    Used by the vision track (seed 000, section 06); a licence that is not stated counts as
    "conditional / custom".
    """
    classes = [licence_class(code_licence), licence_class(weights_licence)]
    strictest = max(classes, key=LICENCE_CLASSES.index)
    return f"{strictest} (code {code_licence or '?'}; weights {weights_licence or '?'})"
