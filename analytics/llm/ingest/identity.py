"""Model identity across sources: checkpoint -> variant -> score rows (docs/data.md, "Identity").

- A **checkpoint** is one weights artifact or one API model snapshot (``gpt-4o-2024-08-06``,
  ``llama-3.1-8b-instruct``). Base, instruct and third-party fine-tunes are different checkpoints;
  a preview or unreleased system is not the released checkpoint.
- A **variant** is an inference setting of one checkpoint: reasoning effort (``minimal`` …
  ``max``), thinking mode (``thinking`` / ``non-thinking``) or a thinking budget (``16k``). The
  rated entity (``model_id``) is the checkpoint for its ``default`` variant and
  ``<checkpoint>-<variant>`` otherwise.
- **Unqualified claims** (a source that names no setting) belong to the ``default`` variant, which
  is the setting the vendor's API uses when the caller chooses none (``DEFAULT_VARIANTS``): so
  "o3 (medium)" and an unqualified "o3" are one rated model, "o3 (high)" is another.

Each raw name is reduced to a *match key* (case, punctuation and date format removed); names with
one key are one model. When no key matches, a *loose key* (the same words in any order, an
organisation word dropped) is tried, and a name without a date may join the one dated snapshot
of the same name (``checkpoint_for_undated``). Cases no rule can see are rows of the override
table ``data/catalog/overrides.csv`` (``analytics.llm.ingest.overrides``).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

_SEP = re.compile(r"[^a-z0-9.]+")
_DIGIT_PAIR = re.compile(r"(?<![0-9.])(\d)-(\d)(?=-|$)")
_SUFFIXES = ("-hf",)
_BARE_SIZE = re.compile(r"^\d+(\.\d+)?[bm]\b")
_UNDERSCORE_DECIMAL = re.compile(r"(?<![0-9])(\d)_(\d+)(?=[bm](?![a-z]))")

EFFORTS = ("minimal", "low", "medium", "high", "xhigh", "max")
VARIANT_SYNONYMS = {
    "reasoning": "thinking",
    "thinking": "thinking",
    "extended thinking": "thinking",
    "adaptive reasoning": "thinking",
    "adaptive": "thinking",
    "non-reasoning": "non-thinking",
    "non reasoning": "non-thinking",
    "nonreasoning": "non-thinking",
    "non-thinking": "non-thinking",
    "no-thinking": "non-thinking",
    "no thinking": "non-thinking",
    "nothinking": "non-thinking",
    "x-high": "xhigh",
    "extra high": "xhigh",
    "extra-high": "xhigh",
    "xhigh": "xhigh",
    "max": "max",
    "maximum": "max",
    "none": "non-thinking",  # OpenAI reasoning_effort "none" (GPT-5.1 and later)
}
"""Spelling -> canonical variant (efforts map to themselves)."""

DEFAULT_VARIANTS: tuple[tuple[str, str], ...] = (
    (r"^(o\d|gpt-5|gpt-oss|codex)", "medium"),  # OpenAI reasoning_effort defaults to medium
    (r"^claude", "non-thinking"),  # extended thinking is off unless requested
    (r"^gemini-(2\.5|3)(?!.*lite)", "thinking"),  # 2.5 / 3 think by default (Flash-Lite: off)
    (r"^deepseek-v3\.[1-9]", "non-thinking"),  # deepseek-chat is the non-thinking mode
    (r"^qwen-?3(?!-?(max|coder|next))", "thinking"),  # enable_thinking defaults to true
)
"""(checkpoint regex, the API's default setting): that setting is the ``default`` variant."""

_REASONING_FAMILY = re.compile(
    r"^(o\d|gpt-5|gpt-oss|codex|claude|anthropic|gemini|grok|deepseek|qwen-?3|kimi|glm|magistral"
    r"|minimax|seed|doubao|hunyuan|ernie|mimo|step|nemotron|exaone|sonar|mistral-medium"
    r"|mistral-large-3|devstral|apriel|ring|ling|lfm|olmo-3|k2)"
)
"""Families whose names may end in a bare effort word ('o3-high', 'gpt-5-mini-low')."""

_HOSTS = {
    "chutes", "fireworks", "together", "deepinfra", "openrouter", "bedrock", "azure", "vertex",
    "groq", "cerebras", "sambanova", "novita", "hyperbolic", "nebius", "baseten", "fc", "api",
    "bf16",
}
_SERVED_FORMAT = re.compile(r"[- _]bf16$", re.IGNORECASE)
"""A trailing 'BF16' names the weights as released ('NVIDIA-Nemotron-3-Nano-30B-A3B (BF16)'); a
quantised format (FP8, NVFP4) stays in the id: other weights, other scores."""
_CHAT_LATEST = re.compile(r"([- ]chat)[- ]latest\b", re.IGNORECASE)
"""OpenAI's '-chat-latest' names the chat snapshot of its day ('gpt-5.3-chat-latest' is
'gpt-5.3-chat'); 'chatgpt-4o-latest' keeps its name (it is no '-chat-' id)."""

"""Parenthesised words naming where a model ran (or 'BF16', the released precision), not what it
is (dropped from names)."""

_HOST_SUFFIX = re.compile(
    r"[-_ ](openrouter|together|bedrock|fireworks|deepinfra|chutes|vertex|azure)$", re.IGNORECASE
)
"""A host appended to a model id ('grok-3-openrouter'): where it ran, not what it is."""
_PAREN = re.compile(r"\s*[\(\[]([^()\[\]]*)[\)\]]")
_BUDGET = re.compile(r"^(?:thinking[- ]?)?(\d+)\s*k(?:[- ]?thinking)?$")
_UNDERSCORE_VARIANT = (
    re.compile(r"_([a-z0-9]+[-_][a-z0-9]+)$", re.IGNORECASE),
    re.compile(r"_([a-z0-9]+)$", re.IGNORECASE),
)
"""An underscore-spelled setting at the end ('gemini_2_5_pro_thinking_16k', and one word where two
are no setting: 'claude_sonnet_4_6_max', whose '6_max' is not one)."""
_TRAIL_EFFORT = re.compile(
    r"[- ](none|minimal|low|medium|high|xhigh|x-high)(?:[- ](?:effort|reasoning))?$"
    r"|[- ](max)[- ]effort$|(?<=k)[- ](max)$|[- ](high|low|medium|max)thinking$"
)
"""A bare trailing effort word; 'max' only as 'max effort' ('qwen3-max', 'gpt-5.1-codex-max'
are models)."""
_TRAIL_THINK = re.compile(
    r"[- ](thinking|non-thinking|no-thinking|nothinking)(?:-auto)?(?:[- ](\d+)k)?$"
)
_TRAIL_BUDGET = re.compile(r"[- ](\d+)k$")
_DATE8 = re.compile(r"(?<!\d)(20\d{2})-?(0[1-9]|1[0-2])-?([0-3]\d)(?!\d)")


_API_VERSION_TAG = re.compile(r"[-_]v\d+:\d+$")
"""A cloud API's version suffix on a model id ('amazon.nova-2-lite-v1:0', Bedrock's form): the
route's revision, not part of the model's name."""
_BEDROCK_NOVA = re.compile(r"^((us|eu|jp|apac|global)[.-])?amazon[.-]nova-.*?(?P<tag>-v\d+\.\d+)$")
"""Amazon's Bedrock id of a Nova model with its ':' written as '.' (Arena's
'amazon-nova-lite-v1.0'): the same route tag."""


def _ascii_lower(name: str) -> str:
    text = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    text = _API_VERSION_TAG.sub("", text.lower().strip())
    nova = _BEDROCK_NOVA.match(text)
    return text[: nova.start("tag")] if nova else text


def _drop_org(text: str) -> str:
    """'org/repo' -> 'repo', unless the repo name alone says nothing ('CausalLM/14B', 'x/K2')."""
    org, _, repo = text.rpartition("/")
    if org and (_BARE_SIZE.match(repo) or len(repo) <= 2):
        return f"{org.rsplit('/', 1)[-1]}-{repo}"
    return repo


def slugify(name: str) -> str:
    """Readable id: lower case, one '-' between words, single-digit versions '3-5' -> '3.5'.

    The organisation prefix of a Hugging Face id ("meta-llama/") and a leading "meta-" before
    "llama" are dropped, '+' becomes 'plus', a trailing '-hf' (format marker) is removed.
    """
    text = _ascii_lower(name)
    text = _drop_org(text).replace("+", "plus")
    text = _UNDERSCORE_DECIMAL.sub(r"\1.\2", text)
    text = _SEP.sub("-", text).strip("-.")
    text = re.sub(r"-{2,}", "-", text)
    text = re.sub(r"\.(?![0-9])|(?<![0-9])\.", "-", text).strip("-")
    for _ in range(2):
        text = _DIGIT_PAIR.sub(r"\1.\2", text)
    if text.startswith("meta-llama"):
        text = text.removeprefix("meta-")
    for suffix in _SUFFIXES:
        text = text.removesuffix(suffix)
    return re.sub(r"-{2,}", "-", text).strip("-")


_HOST_PREFIX = re.compile(
    r"^(parasail|fireworks|together|deepinfra|openrouter|chutes|novita|hyperbolic|nebius)-"
    r"|^openai-(?=(gpt|o\d|chatgpt|codex)-)|^nvidia-(?=(llama-[\d.]+-)?nemotron)|^xai-(?=grok-)"
    r"|^((us|eu|jp|apac|global)-)?amazon-(?=nova-)|^arcee(-ai)?-(?=(trinity|afm|virtuoso)-)"
)
"""A host or lab written before an id whose own name says it ('parasail-qwen3-235b-...',
'openai-gpt-5.4-...', 'nvidia-nemotron-3-nano-30b-a3b', 'nvidia-llama-3.3-nemotron-super-49b',
'amazon-nova-2-lite', Bedrock's regional
'us.amazon.nova-...', 'arcee-trinity-large-preview'): not part of the model's name."""
_IT = re.compile(r"-it(?=-|$)")
_EXPERIMENTAL = re.compile(r"-experimental(?=-|$)")


def match_key(name: str) -> str:
    """Key under which spellings of one model coincide: the slug without separators, with a
    leading host (:data:`_HOST_PREFIX`) dropped, Google's '-it' read as '-instruct' and
    '-experimental' as '-exp'."""
    slug = _IT.sub("-instruct", _HOST_PREFIX.sub("", slugify(name)))
    slug = _EXPERIMENTAL.sub("-exp", slug)
    return slug.replace("-", "")


_LOOSE_DROP = {
    "meta", "google", "openai", "anthropic", "alibaba", "microsoft", "xai", "amazon", "the"
}


def loose_key(name: str) -> str:
    """The name's words with the purely alphabetic ones sorted and organisation words dropped;
    parts holding digits keep their order ('Claude 4.5 Sonnet' = 'claude-sonnet-4-5', but
    'bloom-7b1' != 'bloom-1b7' and 'preview-05-06' != 'preview-06-05'). Dates are one part."""
    slug = _DATE8.sub(lambda m: "-" + "".join(m.groups()) + "-", slugify(name))
    parts = [p for p in slug.split("-") if p and p not in _LOOSE_DROP]
    words = sorted(p for p in parts if p.isalpha())
    numbered = [p for p in parts if not p.isalpha()]
    return " ".join(words) + " | " + " ".join(numbered)


def date_of(name: str) -> str | None:
    """The YYYYMMDD snapshot date written in a name, if any."""
    match = _DATE8.search(slugify(name))
    return "".join(match.groups()) if match else None


def without_date(key: str) -> str:
    """A loose key without its date part."""
    return " ".join(t for t in key.split(" ") if not (len(t) == 8 and t.isdigit()))


def canonical_variant(text: str | None) -> str | None:
    """Canonical variant for a source's spelling, or None when the text is not a setting."""
    if text is None:
        return None
    word = re.sub(r"\s+", " ", text.strip().lower().replace("_", "-"))
    word = re.sub(r"[- ](effort|reasoning effort)$", "", word).strip()
    if word in EFFORTS:
        return word
    if word in VARIANT_SYNONYMS:
        return VARIANT_SYNONYMS[word]
    budget = _BUDGET.match(word)
    if budget:
        return f"{int(budget.group(1))}k"
    return None


_MONTH_YEAR = re.compile(r"^([A-Z][a-z]{2})\s*'\s*(\d{2})$")
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")


def _month_year(text: str) -> str:
    """"Sep '25" -> '09-2025' (the form other sources write in model names)."""
    month, year = _MONTH_YEAR.match(text).groups()
    if month.lower() not in _MONTHS:
        return text
    return f"{_MONTHS.index(month.lower()) + 1:02d}-20{year}"


def _group_variant(group: str) -> str | None:
    """Variant of one parenthesised group; 'Adaptive Reasoning, Max Effort' -> 'max' (an
    effort implies thinking), 'Non-reasoning, High Effort' -> 'non-thinking-high'."""
    found = [canonical_variant(part) for part in group.split(",")]
    if not found or None in found:
        return None
    modes = [f for f in found if f in ("thinking", "non-thinking")]
    efforts = [f for f in found if f not in ("thinking", "non-thinking")]
    if efforts and modes == ["non-thinking"]:
        return f"non-thinking-{efforts[0]}"
    return efforts[0] if efforts else modes[0]


def split_variant(name: str) -> tuple[str, str | None]:
    """(checkpoint name, variant or None) of a raw name.

    Parenthesised settings ('GPT-5 (high)', 'Claude 4.5 Sonnet (Reasoning)', '(thinking-16k)')
    and Epoch-style '_high' suffixes always count; bare trailing words ('o3-high',
    'claude-3-7-sonnet-thinking', 'gemini-2.5-flash-16k') count only for reasoning-model families,
    so 'gpt2-medium' and 'yarn-llama-2-7b-64k' keep their names. Host names in parentheses
    ('(Chutes)', '(FC)') are dropped.
    """
    variant = None
    kept: list[str] = []
    for group in _PAREN.findall(name):
        found = _group_variant(group)
        if found is None and "," in group:  # 'High, 32K, 20251101': settings plus a date
            parts = [part.strip() for part in group.split(",")]
            settings = [part for part in parts if canonical_variant(part)]
            found = _group_variant(", ".join(settings)) if settings else None
            kept += [part for part in parts if part not in settings and part]
            variant = variant or found
            continue
        if found:
            variant = variant or found
        elif _MONTH_YEAR.match(group.strip()):
            kept.append(_month_year(group.strip()))
        elif group.strip().lower() not in _HOSTS:
            kept.append(group.strip())
    base = _PAREN.sub("", name).strip()
    base = " ".join([base, *kept]).strip()
    base = _HOST_SUFFIX.sub("", base)
    base = _SERVED_FORMAT.sub("", base)
    base = _CHAT_LATEST.sub(r"\1", base)
    for pattern in _UNDERSCORE_VARIANT:
        under = pattern.search(base)
        if under and canonical_variant(under.group(1)):
            variant = variant or canonical_variant(under.group(1))
            base = base[: under.start()]
            break
    slug = slugify(base)
    if _REASONING_FAMILY.match(_HOST_PREFIX.sub("", slug)):
        settings = []
        while True:  # 'gemini-3-flash-preview-thinking-high', '...-thinking-120k-max-effort'
            base, found = _strip_trailing_setting(base)
            if found is None:
                break
            settings.append(found)
        variant = variant or _combine(settings)
    return base.strip(" -_"), variant


def _combine(settings: list[str]) -> str | None:
    """One variant from several stated settings: an effort or budget wins over 'thinking'
    (it implies thinking); 'non-thinking' with an effort keeps both."""
    if not settings:
        return None
    modes = [f for f in settings if f in ("thinking", "non-thinking")]
    efforts = [f for f in settings if f not in ("thinking", "non-thinking")]
    if efforts and "non-thinking" in modes and efforts[-1] != "non-thinking":
        return f"non-thinking-{efforts[-1]}"
    if "non-thinking" in settings:
        return "non-thinking"
    return efforts[0] if efforts else modes[0]


_EFFORT_BEFORE_DATE = re.compile(
    r"[- ](minimal|low|medium|high|xhigh)(?=[- ]20\d{2}-?\d{2}-?\d{2}$)"
    r"|[- ](minimal|low|medium|high|xhigh)(?=[- ]preview$)"  # 'deepseek-v4-flash-high-preview'
)
_GROK_MODE = re.compile(r"[- ](non-reasoning|reasoning)$")


def _strip_trailing_setting(base: str) -> tuple[str, str | None]:
    text = base.strip()
    lower = text.lower()
    before_date = _EFFORT_BEFORE_DATE.search(lower)  # 'o4-mini-high-2025-04-16'
    if before_date:
        effort = before_date.group(1) or before_date.group(2)
        return text[: before_date.start()] + text[before_date.end():], effort
    grok = _GROK_MODE.search(lower)
    if grok and _HOST_PREFIX.sub("", slugify(text)).startswith("grok"):  # xAI: modes as ids
        return text[: grok.start()], canonical_variant(grok.group(1))
    for pattern in (_TRAIL_EFFORT, _TRAIL_THINK):
        match = pattern.search(lower)
        if match:
            found = canonical_variant(next(g for g in match.groups() if g))
            if pattern is _TRAIL_THINK and match.group(2):  # thinking-16k: a budget
                found = f"{int(match.group(2))}k"
            return text[: match.start()], found
    if re.search(r"-base$", lower) and re.match(r"^claude", slugify(text)):
        return text[: -len("-base")], "non-thinking"  # LiveBench's runs without thinking
    claude_max = re.search(r"[- ]max$", lower)
    if claude_max and re.match(r"^(claude|anthropic)", slugify(text)):  # Claude has no Max model
        return text[: claude_max.start()], "max"
    match = _TRAIL_BUDGET.search(lower)
    if match and re.match(r"^(claude|gemini|qwen)", slugify(text)):
        return text[: match.start()], f"{int(match.group(1))}k"
    return text, None


def default_variant(checkpoint_id: str) -> str | None:
    """The setting the checkpoint's API uses when the caller names none (None: not known)."""
    for pattern, setting in DEFAULT_VARIANTS:
        if re.match(pattern, checkpoint_id):
            return setting
    return None


def variant_model_id(checkpoint_id: str, variant: str | None) -> tuple[str, str]:
    """(model_id, variant label) of a checkpoint's variant; the default setting -> 'default'."""
    if variant is None or variant == default_variant(checkpoint_id):
        return checkpoint_id, "default"
    return f"{checkpoint_id}-{variant}", variant


def checkpoint_of(model_id: str) -> str:
    """Checkpoint part of a rated model id ('o3-2025-04-16-high' -> 'o3-2025-04-16')."""
    base, variant = split_variant(model_id)
    return slugify(base) if variant else model_id


@dataclass
class ModelRegistry:
    """Assigns ids: curated map first, then the exact key, then the loose key; else the first
    spelling seen defines the id. ``resolve`` works on checkpoint names (no variant)."""

    curated: dict[str, str] = field(default_factory=dict)
    by_key: dict[str, str] = field(default_factory=dict)
    by_loose: dict[str, set[str]] = field(default_factory=dict)
    aliases: dict[str, set[str]] = field(default_factory=dict)
    pinned: set[str] = field(default_factory=set)
    """match keys the override table pins to an id (never merged by the loose rules)."""

    def resolve(self, name: str, loose: bool = True) -> str:
        """model_id for a raw source name, recording the name as an alias."""
        key = match_key(name)
        if not key:
            raise ValueError(f"model name {name!r} has no letters or digits")
        model_id = self.curated.get(key) or self.by_key.get(key)
        if model_id is None and loose and key not in self.pinned:
            candidates = self.by_loose.get(loose_key(name), set())
            if len(candidates) == 1:
                model_id = next(iter(candidates))
        if model_id is None:
            model_id = _HOST_PREFIX.sub("", slugify(name))
        self.by_key.setdefault(key, model_id)
        self.by_loose.setdefault(loose_key(model_id), set()).add(model_id)
        self.by_loose.setdefault(loose_key(name), set()).add(model_id)
        self.aliases.setdefault(model_id, set()).add(name.strip())
        return model_id

    def lookup(self, name: str) -> str | None:
        """model_id already known for a spelling, without creating a model."""
        key = match_key(name)
        found = self.curated.get(key) or self.by_key.get(key)
        if found is None:
            candidates = self.by_loose.get(loose_key(name), set())
            found = next(iter(candidates)) if len(candidates) == 1 else None
        return found

    def add_alias(self, name: str, model_id: str) -> bool:
        """Attach another spelling (e.g. a weights repo id) to a model; False if it is taken."""
        key = match_key(name)
        owner = self.curated.get(key) or self.by_key.get(key)
        if owner not in (None, model_id) or not key:
            return False
        self.by_key[key] = model_id
        self.aliases.setdefault(model_id, set()).add(name.strip())
        return True

    def alias_string(self, model_id: str) -> str:
        """';'-joined raw names of one model, excluding the id itself, sorted case-insensitively."""
        names = {a for a in self.aliases.get(model_id, set()) if ";" not in a and a != model_id}
        return ";".join(sorted(names, key=lambda s: (s.lower(), s)))


_TUNED = re.compile(r"(^|-)(instruct|it|chat|sft|dpo|rlhf|thinking|reasoning|coder-instruct)(-|$)")


def weights_link_fits(repo: str, name: str) -> bool:
    """Whether a weights repo may be an alias of a model name: a name that says it is tuned
    (instruct, chat, it, ...) never takes an untuned (base) repo's identity."""
    return not (_TUNED.search(slugify(name)) and not _TUNED.search(slugify(repo)))


# --- date spellings and the audit's name key ----------------------------------------

_MONTH_WORD = re.compile(
    r"\(?\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?[ -]'?(\d{2}|20\d{2})\b\)?"
)
_DATE_SPELLINGS: tuple[tuple[re.Pattern, str], ...] = (
    (re.compile(r"(?<![\d.])(20\d\d)-?(0[1-9]|1[0-2])-?([0-3]\d)(?![\d.])"), "ymd"),
    (re.compile(r"(?<![\d.])(0[1-9]|1[0-2])-([0-3]\d)-(20\d\d)(?![\d.])"), "mdy"),
    (re.compile(r"(?<![\d.])(0[1-9]|1[0-2])-(20\d\d)(?![\d.])"), "my"),
    (re.compile(r"(?<![\d.])(20\d\d)-(0[1-9]|1[0-2])(?![\d.])"), "ym"),
    (re.compile(r"(?<![\d.])(0[1-9]|1[0-2])-([0-3]\d)$"), "md"),
    (re.compile(r"(?<![\d.])(0[1-9]|1[0-2])([0-3]\d)(?![\d.])"), "md"),
    (re.compile(r"(?<![\d.])(2[3-9])(0[1-9]|1[0-2])(?![\d.])"), "yym"),
)
"""Date spellings in model names, tried in order: YYYY-MM-DD / YYYYMMDD, MM-DD-YYYY, MM-YYYY
(Artificial Analysis' "(Oct '24)" after conversion), YYYY-MM, a trailing MM-DD (Google's
'preview-05-06'), a four-digit MMDD token (OpenAI's '0613', xAI's '1212') and a four-digit YYMM
token (Mistral's '2411', Qwen's '2507': a first pair above 12 cannot be a month)."""

DateSpec = tuple[int | None, int, int | None]
"""(year or None, month, day or None) of a date written in a name."""


def _ascii_words(name: str) -> str:
    text = _ascii_lower(name).rsplit("/", 1)[-1].replace("+", "-plus")
    text = _MONTH_WORD.sub(
        lambda m: f"-{_MONTHS.index(m.group(1)) + 1:02d}-{int(m.group(2)) % 100 + 2000}-", text
    )
    text = re.sub(r"-{2,}", "-", _SEP.sub("-", text)).strip("-.")
    for _ in range(2):
        text = _DIGIT_PAIR.sub(r"\1.\2", text)  # 'claude-3-5-sonnet' -> 'claude-3.5-sonnet'
    return text


def _spec(kind: str, parts: list[int]) -> DateSpec:
    """The DateSpec of one matched spelling (:data:`_DATE_SPELLINGS`)."""
    if kind == "ymd":
        return (parts[0], parts[1], parts[2])
    if kind == "mdy":
        return (parts[2], parts[0], parts[1])
    if kind == "my":
        return (parts[1], parts[0], None)
    if kind == "ym":
        return (parts[0], parts[1], None)
    if kind == "md":
        return (None, parts[0], parts[1])
    return (2000 + parts[0], parts[1], None)  # yym


def name_date(name: str) -> tuple[str, DateSpec | None]:
    """(the name without its date, the date) for any spelling in :data:`_DATE_SPELLINGS`;
    month names ('june-24', "(Oct '24)") count as MM-YYYY."""
    text = _ascii_words(name)
    for pattern, kind in _DATE_SPELLINGS:
        found = pattern.search(text)
        if not found:
            continue
        date = _spec(kind, [int(g) for g in found.groups()])
        stem = re.sub(r"-{2,}", "-", text[: found.start()] + "-" + text[found.end():]).strip("-")
        return stem, date
    return text, None


def dates_agree(a: DateSpec | None, b: DateSpec | None) -> bool:
    """Whether two written dates may be the same day (each field known on both is equal)."""
    if a is None or b is None:
        return False
    return all(x is None or y is None or x == y for x, y in zip(a, b, strict=True))


def date_of_release(text: str | None) -> DateSpec | None:
    """A catalog release date 'YYYY-MM-DD' as a DateSpec (None when empty)."""
    if not text or not re.match(r"^\d{4}-\d{2}-\d{2}$", str(text)):
        return None
    y, m, d = (int(p) for p in str(text).split("-"))
    return (y, m, d)


RELEASE_WORDS = {
    "preview": "preview", "exp": "exp", "experimental": "exp", "latest": "latest", "beta": "beta"
}
"""Words that name a release stage, not a different model (the audit groups across them)."""
TUNING_WORDS = {"instruct": "instruct", "it": "instruct", "chat": "chat", "base": "base",
                "hf": ""}
"""Words that name a tuning: Google's '-it' is its '-instruct'; 'chat' is its own tuning."""


def name_tokens(name: str) -> tuple[list[str], DateSpec | None]:
    """(the name's words without date or host, split at letter-digit joins, the date)."""
    stem, date = name_date(name)
    stem = _HOST_PREFIX.sub("", stem)
    words = []
    for part in stem.split("-"):
        words += re.sub(r"(?<=[a-z])(?=\d)", " ", part).split()
    return [w for w in words if w], date


def audit_key(name: str) -> str:
    """The identity audit's grouping key: words in any order, with no date, host, release
    stage or tuning word ('Claude 3.5 Sonnet (Oct '24)' = 'claude-3-5-sonnet-20241022')."""
    words, _ = name_tokens(name)
    kept = [w for w in words if w not in RELEASE_WORDS and w not in TUNING_WORDS]
    return " ".join(sorted(kept))


def tuning_of(name: str) -> str:
    """'instruct', 'chat', 'base' or '' (no tuning word) as the name writes it."""
    words, _ = name_tokens(name)
    found = [TUNING_WORDS[w] for w in words if TUNING_WORDS.get(w)]
    return found[-1] if found else ""


def stage_of(name: str) -> str:
    """'preview', 'exp', 'latest' or '' as the name writes it."""
    words, _ = name_tokens(name)
    found = [RELEASE_WORDS[w] for w in words if w in RELEASE_WORDS]
    return found[-1] if found else ""
