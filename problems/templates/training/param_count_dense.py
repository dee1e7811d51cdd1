"""param-count-dense: a dense decoder's parameter count from its config: GQA attention,
a gated (SwiGLU) MLP, RMSNorm weights, no biases, embeddings tied or not.

Realism constraints:
- Only real configs of this architecture: the catalog's dense models whose count the
  formula reproduces exactly (Llama 2 7B/70B, Llama 3.1 8B/70B/405B, Mistral 7B; Qwen2.5
  has QKV biases and GPT-3 a plain GELU MLP, so they are left out), and the two tied
  Llama 3.2 configs, from their Hugging Face config.json (meta-llama/Llama-3.2-1B and
  -3B: tie_word_embeddings true).
- The statement names the model and quotes the config fields.

Slips named: K and V counted with the query heads (multi-head attention), the attention
output projection left out, a two-matrix
(ungated) MLP, and the output head miscounted (counted again although tied, or forgotten
although untied). A slip within 2.5% of the answer (the output head of a 405B model) is
not named (the head slip is checked first, so it wins over a later one as close).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from pydantic import Field

from problems.engine.numbers import params_count, tex
from problems.engine.registry import register
from problems.engine.solutions import formula, step
from problems.engine.template import Misconception, Params, Part, Template
from problems.templates._common import dense_models, separated


class ParamCountParams(Params):
    vocab: int = Field(ge=1, le=10_000_000)
    hidden: int = Field(ge=1, le=1_000_000)
    n_layers: int = Field(ge=1, le=10_000)
    n_heads: int = Field(ge=1, le=10_000)
    n_kv_heads: int = Field(ge=1, le=10_000)
    head_dim: int = Field(ge=1, le=100_000)
    intermediate: int = Field(ge=1, le=10_000_000)
    tied: bool


@dataclass(frozen=True)
class Config:
    name: str
    vocab: int
    hidden: int
    n_layers: int
    n_heads: int
    n_kv_heads: int
    head_dim: int
    intermediate: int
    tied: bool


# meta-llama/Llama-3.2-1B and Llama-3.2-3B config.json (tie_word_embeddings: true).
_TIED = (
    Config("Llama 3.2 1B", 128256, 2048, 16, 32, 8, 64, 8192, True),
    Config("Llama 3.2 3B", 128256, 3072, 28, 24, 8, 128, 8192, True),
)


def per_layer(h: int, heads: int, kv: int, d: int, inter: int, gates: int = 3) -> int:
    return h * heads * d + 2 * h * kv * d + heads * d * h + gates * h * inter + 2 * h


def count(p, *, kv: int | None = None, gates: int = 3, heads_out: int | None = None) -> int:
    layer = per_layer(
        p.hidden, p.n_heads, p.n_kv_heads if kv is None else kv, p.head_dim, p.intermediate, gates
    )
    head = (0 if p.tied else 1) if heads_out is None else heads_out
    return p.vocab * p.hidden * (1 + head) + p.n_layers * layer + p.hidden


def configs() -> tuple[Config, ...]:
    out = [
        Config(
            m.name,
            m.vocab_size,
            m.hidden_size,
            m.n_layers,
            m.n_heads,
            m.n_kv_heads,
            m.head_dim,
            m.intermediate_size,
            m.tied_embeddings,
        )
        for m in dense_models()
    ]
    return (
        tuple(
            c
            for c in out
            if count(c) == next(m.total_params for m in dense_models() if m.name == c.name)
        )
        + _TIED
    )


def config_of(p: ParamCountParams) -> Config | None:
    return next((c for c in configs() if count(c) == count(p) and c.vocab == p.vocab), None)


LAYER = formula(
    r"P_{\mathrm{layer}}",
    lambda s: s.h * s.a * s.d * 2 + 2 * s.h * s.k * s.d + 3 * s.h * s.I + 2 * s.h,
    h="h",
    a=r"n_{\mathrm{heads}}",
    d="d",
    k=r"n_{\mathrm{kv}}",
    I="I",
)


@register
class ParamCountDense(Template):
    slug = "param-count-dense"
    title = "Parameter count of a dense transformer from its config"
    family = "training"
    lessons = ("inside-the-transformer", "gpu-memory-math", "what-a-model-is")
    skills = ("parameter-count", "gqa-kv-heads")
    difficulty = 2
    version = 1
    Params = ParamCountParams

    def generate(self, rng: random.Random) -> ParamCountParams:
        c = rng.choice(configs())
        return ParamCountParams(
            vocab=c.vocab,
            hidden=c.hidden,
            n_layers=c.n_layers,
            n_heads=c.n_heads,
            n_kv_heads=c.n_kv_heads,
            head_dim=c.head_dim,
            intermediate=c.intermediate,
            tied=c.tied,
        )

    def solve(self, p: ParamCountParams) -> dict[str, Part]:
        return {"params": Part("params", float(count(p)), "", label="Parameters")}

    def statement(self, p: ParamCountParams) -> str:
        c = config_of(p)
        who = f"{c.name}'s" if c else "A decoder-only model's"
        tie = "true" if p.tied else "false"
        return (
            f"{who} `config.json` reads: `vocab_size: {p.vocab}`, `hidden_size: {p.hidden}`, "
            f"`num_hidden_layers: {p.n_layers}`, `num_attention_heads: {p.n_heads}`, "
            f"`num_key_value_heads: {p.n_kv_heads}`, `head_dim: {p.head_dim}`, "
            f"`intermediate_size: {p.intermediate}`, `tie_word_embeddings: {tie}`.\n\n"
            "Each layer has grouped-query attention (a query projection to "
            "`num_attention_heads` heads, key and value projections to "
            "`num_key_value_heads` heads, each `head_dim` wide, and an output projection "
            "back to `hidden_size`), a gated SwiGLU MLP (gate, up and down projections "
            "between `hidden_size` and `intermediate_size`) and two RMSNorms (one weight "
            "vector of `hidden_size` each); a final RMSNorm follows the last layer. There "
            "are no biases, and the rotary position embedding has no parameters. The "
            "token embedding is a `vocab_size` by `hidden_size` matrix; with tied "
            "embeddings the output head reuses it, otherwise the head is a second matrix "
            "of that size.\n\nHow many parameters does the model have?"
        )

    def solution(self, p: ParamCountParams) -> str:
        layer = per_layer(p.hidden, p.n_heads, p.n_kv_heads, p.head_dim, p.intermediate)
        embed = p.vocab * p.hidden
        head = (
            "The embeddings are tied, so the output head adds nothing."
            if p.tied
            else f"The untied output head adds another ${tex(embed, 15)}$."
        )
        return (
            f"With $h = {p.hidden}$ (`hidden_size`), $n_{{\\mathrm{{heads}}}} = {p.n_heads}$ "
            f"(`num_attention_heads`), $n_{{\\mathrm{{kv}}}} = {p.n_kv_heads}$ "
            f"(`num_key_value_heads`), $d = {p.head_dim}$ (`head_dim`), $I = {p.intermediate}$ "
            f"(`intermediate_size`) and $V = {p.vocab}$ (`vocab_size`).\n\n"
            "Per layer: Q and O are $h \\cdot n_{\\mathrm{heads}} \\cdot d$ each, K and V "
            "$h \\cdot n_{\\mathrm{kv}} \\cdot d$ each, the gated MLP three $h \\times I$ "
            "matrices, and two norms of $h$:\n\n"
            + step(
                LAYER,
                {
                    "h": p.hidden,
                    "a": p.n_heads,
                    "d": p.head_dim,
                    "k": p.n_kv_heads,
                    "I": p.intermediate,
                },
                float(layer),
            )
            + f"\n\n{p.n_layers} layers give ${tex(p.n_layers * layer, 15)}$. The embedding "
            f"is $V \\cdot h = {tex(embed, 15)}$ and the final norm ${p.hidden}$. {head} "
            f"Total: **${tex(count(p), 15)}$** parameters ({params_count(count(p))})."
        )

    def misconceptions(self, p: ParamCountParams) -> list[Misconception]:
        candidates: list[Misconception] = []
        if p.tied:
            candidates.append(
                Misconception(
                    "tied-head-counted",
                    "params",
                    float(count(p, heads_out=1)),
                    "That counts the output head as its own matrix. With tied embeddings "
                    "it reuses the embedding matrix: count it once.",
                )
            )
        else:
            candidates.append(
                Misconception(
                    "output-head-forgotten",
                    "params",
                    float(count(p, heads_out=0)),
                    "That counts the vocabulary matrix once. The embeddings are not tied, "
                    "so the output head is a second vocab_size by hidden_size matrix.",
                )
            )
        if p.n_kv_heads != p.n_heads:
            candidates.append(
                Misconception(
                    "attention-heads-not-kv-heads",
                    "params",
                    float(count(p, kv=p.n_heads)),
                    f"That gives K and V all {p.n_heads} query heads. With grouped-query "
                    f"attention they project to the {p.n_kv_heads} key/value heads only.",
                )
            )
        candidates.append(
            Misconception(
                "attention-output-forgotten",
                "params",
                float(count(p) - p.n_layers * p.n_heads * p.head_dim * p.hidden),
                "That leaves out the attention output projection. After the heads are "
                "concatenated, O maps num_attention_heads × head_dim back to hidden_size "
                "in every layer.",
            )
        )
        candidates.append(
            Misconception(
                "ungated-mlp",
                "params",
                float(count(p, gates=2)),
                "That counts two MLP matrices. A gated (SwiGLU) MLP has three: gate, up "
                "and down projections.",
            )
        )
        out: list[Misconception] = []
        for m in candidates:
            if separated([count(p), *(o.value for o in out), m.value]):
                out.append(m)
        return out
