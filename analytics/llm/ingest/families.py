"""Lineage family, organisation and size hints derived from a model's name.

Used only where no source states the figure: sources always win (see docs/data.md, "Models").
Whether weights are published is never read from a name: a name says nothing about a licence
(a '-max' model can be open, a family with closed flagships can publish small weights); it comes
from a maker's repository or a source's statement (``models_table.weights_evidence``).
"""

from __future__ import annotations

import re

from analytics.llm.ingest.organisations import (  # noqa: F401  (re-exported for importers)
    HF_ORGS,
    ORG_SYNONYMS,
    canonical_org,
    org_from_hf,
    org_key,
)

# (regex on the model slug, family, organisation); first match wins, order matters.
FAMILY_RULES: tuple[tuple[str, str, str], ...] = (
    (r"^(codellama|code-llama)", "llama", "Meta"),
    (r"nemotron", "nemotron", "NVIDIA"),
    (r"^(llama|meta-llama|tinyllama)", "llama", "Meta"),
    (r"^(qwen|qwq|qvq)", "qwen", "Alibaba"),
    (r"^gpt-oss", "gpt-oss", "OpenAI"),  # open-weight line: its own lineage, not GPT-n's
    (
        r"^(chatgpt|gpt-?[345]|text-(davinci|curie|babbage|ada)|code-davinci)",
        "gpt",
        "OpenAI",
    ),
    (r"^(codex|(davinci|babbage|curie|ada)(-\d+)?$)", "gpt", "OpenAI"),
    (r"^(o1|o3|o4)(-|$)", "o-series", "OpenAI"),
    (r"^(computer-use-preview|cua$)", "gpt", "OpenAI"),
    (r"^claude", "claude", "Anthropic"),
    (r"^gemini-robotics", "gemini-robotics", "Google"),  # embodied-reasoning line, own lineage
    (r"^gemini", "gemini", "Google"),
    (r"^gemma", "gemma", "Google"),
    (r"^(palm|flan-palm|bison|chat-bison)", "palm", "Google"),
    (r"^(t5|flan-t5|ul2|switch|glam|lamda|chinchilla|gopher)", "google-research", "Google"),
    (
        r"^(open-)?(mistral|mixtral|ministral|codestral|pixtral|magistral|devstral|mathstral)",
        "mistral",
        "Mistral AI",
    ),
    (r"^deepseek", "deepseek", "DeepSeek"),
    (r"^learnlm", "gemini", "Google"),
    (r"^mm1-", "mm1", "Apple"),
    (r"^phi", "phi", "Microsoft"),
    (r"^(wizardlm|orca)", "wizardlm", "Microsoft"),
    (r"^grok", "grok", "xAI"),
    (r"^(command|aya|c4ai)", "command", "Cohere"),
    (r"^(nova|amazon)", "nova", "Amazon"),
    (r"^(jamba|j2|jurassic)", "jamba", "AI21 Labs"),
    (r"^granite", "granite", "IBM"),
    (r"^(kimi|moonshot)", "kimi", "Moonshot AI"),
    (r"^(glm|chatglm|codegeex)", "glm", "Zhipu AI"),
    (r"^yi(-|$)", "yi", "01.AI"),
    (r"^falcon", "falcon", "TII"),
    (r"^(olmo|tulu|llama-3.1-tulu|molmo)", "olmo", "Allen Institute for AI"),
    (r"^(mpt|dbrx)", "mpt-dbrx", "Databricks"),
    (r"^(baichuan)", "baichuan", "Baichuan"),
    (r"^(internlm|internvl)", "internlm", "Shanghai AI Lab"),
    (r"^(hunyuan)", "hunyuan", "Tencent"),
    (r"^(minimax|abab)", "minimax", "MiniMax"),
    (r"^(reka)", "reka", "Reka AI"),
    (r"^(step)", "step", "StepFun"),
    (r"^(exaone)", "exaone", "LG AI Research"),
    (r"^(smollm)", "smollm", "Hugging Face"),
    (r"^(zephyr|starchat)", "zephyr", "Hugging Face"),
    (r"^(stablelm|stable-code|stablebeluga)", "stablelm", "Stability AI"),
    (r"^(pythia|gpt-neo|gpt-j|gpt-neox)", "pythia", "EleutherAI"),
    (r"^(bloom)", "bloom", "BigScience"),
    (r"^(opt)(-|$)", "opt", "Meta"),
    (r"^(starcoder|santacoder)", "starcoder", "BigCode"),
    (r"^(vicuna|fastchat)", "vicuna", "LMSYS"),
    (r"^(xgen)", "xgen", "Salesforce"),
    (r"^(athene|starling)", "athene", "Nexusflow"),
    (r"^(openchat)", "openchat", "OpenChat"),
    (r"^(nous|hermes|openhermes)", "hermes", "Nous Research"),
    (r"^(dolphin)", "dolphin", "Cognitive Computations"),
    (r"^(arctic|snowflake)", "arctic", "Snowflake"),
    (r"^(inflection)", "inflection", "Inflection AI"),
    (r"^(megatron|mt-nlg)", "megatron", "NVIDIA"),
    (r"^(solar)", "solar", "Upstage"),
    (r"^(rwkv)", "rwkv", "RWKV"),
    (r"^(pplx|sonar)", "pplx", "Perplexity"),
    (r"^(yi-lightning|yi-large)", "yi", "01.AI"),
)

# Names that reveal a mixture-of-experts design.
MOE_PATTERNS = (
    r"\d+x\d+(\.\d+)?b",
    r"-a\d+(\.\d+)?[bm](-|$)",  # 'qwen3-30b-a3b', IBM's 'granite-3.0-1b-a400m'

    r"^mixtral",
    r"^deepseek-(v2|v3|r1)(?!-distill)",
    r"^deepseek-r1$",
    r"^llama-4",
    r"^dbrx",
    r"^gpt-oss",
    r"^kimi-k",
    r"^jamba",
    r"phi-3.5-moe",
    r"^grok-1(-|$)",
    r"^arctic",
    r"^glm-4.5",
    r"^minimax",
    r"^qwen3-next",
)


def family_and_org(slug: str) -> tuple[str, str | None]:
    """(family, organisation) for a model slug; unknown names use their first word as family."""
    for pattern, family, org in FAMILY_RULES:
        if re.search(pattern, slug):
            return family, org
    first = re.split(r"[-.\d]", slug, maxsplit=1)[0] or slug.split("-")[0]
    return first or slug, None


MOE_ARCHITECTURES = re.compile(r"moe|mixtral|switchtransformers|jamba|dbrx|arctic", re.IGNORECASE)
"""Model classes of a Hugging Face config ('MixtralForCausalLM', 'Qwen2MoeForCausalLM',
'SwitchTransformersForConditionalGeneration') whose layers are mixtures of experts."""


def moe_by_architecture(class_name: str | None) -> bool:
    """True when a config's model class is a mixture-of-experts class."""
    return bool(class_name and MOE_ARCHITECTURES.search(class_name))


def moe_by_name(slug: str) -> bool:
    """True when the name reveals a mixture-of-experts model."""
    return any(re.search(p, slug) for p in MOE_PATTERNS)


_SIZE = re.compile(r"(?:^|[-_])(\d+(?:\.\d+)?)([bm])(?=$|[-_])")
_EXPERTS = re.compile(r"(?:^|-)(\d+(?:\.\d+)?)b-\d+e(?=$|-)")
_ACTIVE = re.compile(r"(?:^|-)a(\d+(?:\.\d+)?)([bm])(?=$|-)")


def params_from_name(slug: str) -> tuple[float | None, float | None]:
    """(total_params_b, active_params_b) written in the name, e.g. 'qwen3-235b-a22b' -> (235, 22).

    Expert-product names ('8x7b') give no total: the product overstates shared layers.
    """
    experts = _EXPERTS.search(slug)
    if experts:  # 'llama-4-maverick-17b-128e': the size is the active count
        return None, float(experts.group(1))
    active = _ACTIVE.search(slug)
    total = None
    match = _SIZE.search(slug)
    if match:
        total = float(match.group(1)) / (1000.0 if match.group(2) == "m" else 1.0)
    scale = 1000.0 if active and active.group(2) == "m" else 1.0
    return total, float(active.group(1)) / scale if active else None


NAME_SIZE_FACTOR = 3.0
"""A parameter count this many times off the one size a name writes is a broken figure, not
rounding (llmfit's 528,384 for Olmo 3 7B; the Open LLM Leaderboard's 8B for InternLM2 1.8B)."""


def off_the_name(slug: str, count_b: float | None) -> bool:
    """Whether ``count_b`` contradicts the size the name writes (only a name with one size and
    no active or expert count: 'olmoe-1b-7b' and '8x7b' say no total on their own)."""
    sizes = set(re.findall(r"(?<![a-z0-9.])(\d+(?:\.\d+)?)[bm](?![a-z])", slug))
    if count_b is None or len(sizes) != 1 or _ACTIVE.search(slug) or _EXPERTS.search(slug):
        return False
    named = params_from_name(slug)[0]
    return bool(named) and not named / NAME_SIZE_FACTOR <= count_b <= named * NAME_SIZE_FACTOR


# The organisation tables live in organisations.py (one table read by every importer).
