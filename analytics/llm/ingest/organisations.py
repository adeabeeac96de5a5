"""Organisations: the one table of makers, their spellings and their Hugging Face namespaces.

Every importer names a model's maker through :func:`canonical_org`: a source's spelling
('Mistral', 'Google DeepMind', 'zai') becomes the catalog's one name, a Hub namespace
('meta-llama', 'mlabonne') becomes the maker that publishes under it, and a list of
organisations ('DeepSeek,Peking University', as Epoch writes co-authored work) becomes its
first, the lead the source names first. The organisation audit reads the same table
(``analytics/llm/audit/organisations.py``).
"""

from __future__ import annotations

import re

HF_ORGS = {
    "meta-llama": "Meta",
    "facebook": "Meta",
    "qwen": "Alibaba",
    "google": "Google",
    "mistralai": "Mistral AI",
    "mistral-community": "Mistral AI",
    "microsoft": "Microsoft",
    "deepseek-ai": "DeepSeek",
    "ibm-granite": "IBM",
    "ibm": "IBM",
    "nvidia": "NVIDIA",
    "01-ai": "01.AI",
    "tiiuae": "TII",
    "allenai": "Allen Institute for AI",
    "huggingfacetb": "Hugging Face",
    "huggingfaceh4": "Hugging Face",
    "cohereforai": "Cohere",
    "eleutherai": "EleutherAI",
    "nousresearch": "Nous Research",
    "togethercomputer": "Together AI",
    "stabilityai": "Stability AI",
    "databricks": "Databricks",
    "mosaicml": "Databricks",
    "internlm": "Shanghai AI Lab",
    "bigscience": "BigScience",
    "bigcode": "BigCode",
    "openai-community": "OpenAI",
    "lmsys": "LMSYS",
    "upstage": "Upstage",
    "salesforce": "Salesforce",
    "ai21labs": "AI21 Labs",
    "moonshotai": "Moonshot AI",
    "thudm": "Zhipu AI",
    "zai-org": "Zhipu AI",
    "mlabonne": "Maxime Labonne",
    "teknium": "Teknium",
    "lmms-lab": "LMMs-Lab",
    "liuhaotian": "Haotian Liu",
    "katanemo": "Katanemo",
    "argilla": "Argilla",
    "rhymes-ai": "Rhymes AI",
    "kyutai": "Kyutai",
    "gradientai": "Gradient",
    "refuelai": "Refuel",
    "openlm-research": "OpenLM Research",
    "all-hands": "All Hands AI",
    "speakleash": "SpeakLeash",
    "distilbert": "Hugging Face",
    "argilla-warehouse": "Argilla",
    "amazon": "Amazon",
    "anthropic": "Anthropic",
    "openai": "OpenAI",
    "antgroup": "InclusionAI",
    "inclusionai": "InclusionAI",
    "arcee-ai": "Arcee AI",
    "coherelabs": "Cohere",
    "inceptionlabs": "Inception",
    "minimaxai": "MiniMax",
    "snowflake": "Snowflake",
    "xai-org": "xAI",
}
"""Hugging Face namespace (lower case) -> the maker that publishes under it."""


def known_namespace(prefix: str) -> str | None:
    """The maker publishing under a Hugging Face namespace, None when the table does not know
    it (unlike :func:`org_from_hf`, which then returns the namespace itself)."""
    return HF_ORGS.get(prefix.lower())


def org_from_hf(prefix: str) -> str:
    """Organisation display name for a Hugging Face org prefix (the prefix itself if unknown)."""
    return HF_ORGS.get(prefix.lower(), prefix)


ORG_SYNONYMS: dict[str, str] = {
    "mistral": "Mistral AI",
    "google deepmind": "Google",
    "deepmind": "Google",
    "spacexai": "xAI",
    "x ai": "xAI",
    "z ai": "Zhipu AI",
    "zai": "Zhipu AI",
    "zhipu": "Zhipu AI",
    "zhipuai": "Zhipu AI",
    "meta ai": "Meta",
    "meta llama": "Meta",
    "facebook": "Meta",
    "kimi": "Moonshot AI",
    "moonshot": "Moonshot AI",
    "moonshotai": "Moonshot AI",
    "01 ai": "01.AI",
    "tii uae": "TII",
    "technology innovation institute": "TII",
    "tiiuae": "TII",
    "nvidia": "NVIDIA",
    "huggingface": "Hugging Face",
    "huggingfaceh4": "Hugging Face",
    "nexusflow": "Nexusflow",
    "openbmb": "OpenBMB",
    "openchat": "OpenChat",
    "deepseek ai": "DeepSeek",
    "deepseek": "DeepSeek",
    "perplexity ai": "Perplexity",
    "nousresearch": "Nous Research",
    "qwen": "Alibaba",
    "alibaba cloud": "Alibaba",
    "alibaba qwen": "Alibaba",
    "abacusai": "Abacus.AI",
    "cognitivecomputations": "Cognitive Computations",
    "ibm granite": "IBM",
    "microsoft research": "Microsoft",
    "amazon web services": "Amazon",
    "aws": "Amazon",
    "ai2": "Allen Institute for AI",
    "allenai": "Allen Institute for AI",
    "allen ai": "Allen Institute for AI",
    "liquid": "Liquid AI",
    "liquidai": "Liquid AI",
    "minimax ai": "MiniMax",
    "stepfun ai": "StepFun",
    "xiaomi mimo": "Xiaomi",
    "upstage ai": "Upstage",
    "lg ai": "LG AI Research",
    "lgai exaone": "LG AI Research",
    "cohere for ai": "Cohere",
    "cohereforai": "Cohere",
    "baidu inc": "Baidu",
    "tencent hunyuan": "Tencent",
    "inclusionai": "InclusionAI",
    "ant group": "InclusionAI",
    "baichuan inc": "Baichuan",
    "salesforce research": "Salesforce",
    "google research": "Google",
    "thinking machines": "Thinking Machines Lab",
    "primeintellect": "Prime Intellect",
    "amd": "AMD",
    "inception labs": "Inception",
    "minimax": "MiniMax",
    "arcee": "Arcee AI",
    "alibaba": "Alibaba",
    "ai21": "AI21 Labs",
    "amazon": "Amazon",
    "anthropic": "Anthropic",
    "cohere": "Cohere",
    "google": "Google",
    "ibm": "IBM",
    "meta": "Meta",
    "microsoft": "Microsoft",
    "openai": "OpenAI",
    "xai": "xAI",
}
"""Spellings of one organisation across sources (lower case, punctuation as spaces) -> the one
name the catalog shows. xAI's models appear as 'SpaceXAI' in Artificial Analysis's 2026 data."""


_ORG_GENERIC = frozenset(
    {"ai", "lab", "labs", "inc", "research", "the", "team", "corp", "co", "ltd"}
)


def _org_words(name: str) -> str:
    """Lower case, punctuation as spaces: the form ``ORG_SYNONYMS`` keys are written in."""
    return re.sub(r"[^a-z0-9]+", " ", name.lower()).strip()


def org_key(name: str) -> str:
    """An organisation's name without case, punctuation, spaces or generic words ('AI', 'Lab',
    'Inc', 'Research'): 'Prime Intellect' = 'PrimeIntellect', 'Thinking Machines' = 'Thinking
    Machines Lab'. Two spellings with one key are one organisation (the metadata audit)."""
    words = _org_words(name).split()
    return "".join(w for w in words if w not in _ORG_GENERIC) or "".join(words)


NOT_MAKERS = frozenset({"stealth", "openrouter"})
"""Spellings a source puts where a maker goes for models it does not name (LiveBench's
anonymous 'Stealth' and 'OpenRouter' entries): no organisation."""


def maker_or_none(name: str | None) -> str | None:
    """:func:`canonical_org`, or None for an empty spelling or one of :data:`NOT_MAKERS`."""
    if not name or _org_words(name) in NOT_MAKERS:
        return None
    return canonical_org(name)


def canonical_org(name: str | None) -> str | None:
    """The catalog's one name for an organisation as any source spells it: a list keeps its
    first organisation, a known Hub namespace becomes its maker."""
    if not name:
        return name
    first = name.split(",")[0].strip() or name.strip()
    key = _org_words(first)
    return (ORG_SYNONYMS.get(key) or ORG_SYNONYMS.get(key.replace(" ", ""))
            or HF_ORGS.get(first.lower()) or first)
