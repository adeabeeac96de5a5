"""One checkpoint, several date spellings: Artificial Analysis writes "(Oct '24)",
LiveBench '2024-10-22', LMArena '20241022', xAI '1212', Mistral '2411'. A checkpoint whose name
writes a partial date joins the one checkpoint of the same name whose date agrees and says more.

The *name* is :func:`stem_key`: the words without the date or a leading host, in any order, with
'-it' read as 'instruct' and 'experimental' as 'exp' (tuning and release-stage words still count:
a preview never joins a release by this rule). A checkpoint without a date in its name is dated
by its release date. Completeness: year, month and day > month and day > year and month; on a
tie the vendor's spelling wins over the MM-YYYY one (Artificial Analysis' month labels), and of
two names that write one date alike the smaller id is kept.
"""

from __future__ import annotations

import re
from collections import defaultdict
from datetime import date, timedelta

from analytics.llm.ingest.identity import (
    DateSpec,
    date_of_release,
    dates_agree,
    name_tokens,
)

_WORDS = {"it": "instruct", "experimental": "exp"}
_MONTH_YEAR = re.compile(r"(?<![\d.])(0[1-9]|1[0-2])-20\d\d(?![\d.])")


def stem_key(checkpoint: str) -> str:
    """The checkpoint's words without date or host, sorted, synonyms unified."""
    words, _ = name_tokens(checkpoint)
    return " ".join(sorted(_WORDS.get(w, w) for w in words))


def _rank(checkpoint: str, date: DateSpec) -> tuple[int, int]:
    known = sum(part is not None for part in date)
    day = int(date[2] is not None)
    return (known + day, 0 if _MONTH_YEAR.search(checkpoint) else 1)


def _twin(checkpoint: str, other: str) -> bool:
    """Both names write the same date the same way ('june-2024' and 'june-24'): the smaller
    id is kept."""
    return name_tokens(other)[1] == name_tokens(checkpoint)[1] and other < checkpoint


def dated_merges(
    checkpoints: set[str], release_dates: dict[str, str], pinned: set[str]
) -> dict[str, str]:
    """Checkpoint -> the checkpoint it joins (see the module docstring); ``pinned`` ids (the
    override table's ``distinct`` rows) neither move nor take others in."""
    by_stem: dict[str, list[str]] = defaultdict(list)
    for cp in sorted(checkpoints):
        by_stem[stem_key(cp)].append(cp)
    dates: dict[str, DateSpec | None] = {
        cp: name_tokens(cp)[1] or date_of_release(release_dates.get(cp)) for cp in checkpoints
    }
    out: dict[str, str] = {}
    for cp in sorted(checkpoints):
        written = name_tokens(cp)[1]
        if cp in pinned or written is None or None not in written:
            continue
        mine = _rank(cp, written)
        better = [
            other
            for other in by_stem[stem_key(cp)]
            if other != cp
            and other not in pinned
            and other not in out
            and dates[other] is not None
            and dates_agree(written, dates[other])
            and (_rank(other, dates[other]) > mine or _twin(cp, other))
        ]
        if len(better) == 1:
            out[cp] = better[0]
    return _settled(out)


def _settled(mapping: dict[str, str]) -> dict[str, str]:
    """Follow chains (a -> b -> c becomes a -> c)."""
    out = {}
    for start, target in mapping.items():
        seen = {start}
        while target in mapping and target not in seen:
            seen.add(target)
            target = mapping[target]
        out[start] = target
    return out


RELEASE_SLACK_DAYS = 31
"""A release may follow its snapshot by up to this many days (announcements trail the frozen
snapshot); it never precedes it."""


def release_for_snapshot(checkpoint: str, stated: str | None) -> tuple[str | None, bool]:
    """(release date, whether it is the id's own date): a checkpoint whose id writes a full
    snapshot date ('gemini-2.5-pro-2025-06-17') was not released before it, nor long after; a
    stated date outside that window belongs to an older release or a refresh, and the written
    date stands instead. Other checkpoints keep the stated date."""
    written = name_tokens(checkpoint)[1]
    if not written or None in written:
        return stated, False
    snapshot = date(*written)
    if stated:
        released = date.fromisoformat(stated)
        if snapshot <= released <= snapshot + timedelta(days=RELEASE_SLACK_DAYS):
            return stated, False
    return snapshot.isoformat(), True


PLACEHOLDER_DAYS: dict[str, str] = {
    "2022-03-02": "the day the Hugging Face Hub moved every repository to git, not a release",
}
"""Days that sources copy from file metadata rather than from a release (each with why)."""


def refused_release_day(day: object, name: str = "") -> str | None:
    """Why ``day`` cannot be the release date of the model ``name`` (None when it can): a
    placeholder day (:data:`PLACEHOLDER_DAYS`), or a day before the month (or day) that the name
    writes, which belongs to an earlier release ('mistral-large-2411' was not out in
    2024-07). The one rule every importer, the consensus and the metadata audit apply."""
    text = str(day or "")[:10]
    if text in PLACEHOLDER_DAYS:
        return f"placeholder day {text}: {PLACEHOLDER_DAYS[text]}"
    written = name_tokens(name)[1] if name else None
    if not written or written[0] is None or not re.match(r"^\d{4}-\d{2}-\d{2}$", text):
        return None
    year, month, day_of_month = written
    bound = date(year, month, day_of_month or 1)
    if date.fromisoformat(text) >= bound:
        return None
    shown = bound.isoformat() if day_of_month else bound.isoformat()[:7]
    return f"{text} is before {shown}, the date the name writes"
