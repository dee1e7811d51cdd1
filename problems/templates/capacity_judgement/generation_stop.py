"""generation-stop: why a model stopped writing, read from an OpenAI-compatible server's
response (vLLM's /v1/chat/completions), and how many tokens it wrote.

A model writes one token per decode step until one of three things ends the request: it
emits its end-of-sequence token (Llama 3.1 Instruct's <|eot_id|>, Qwen2.5's <|im_end|>,
Mixtral Instruct's </s>), the
text ends in one of the request's `stop` strings, or it has written `max_tokens` tokens.
vLLM's response says which in two fields of the choice (its OpenAI-compatible server
documentation and protocol): `finish_reason` is "stop" for the first two and "length"
for the third, and `stop_reason` names the stop string (or stop token id) that matched,
null when the model's own end-of-sequence token ended it or the limit did. `usage`
counts prompt, completion and total tokens. The stop string itself is not part of the
returned text (vLLM's default, include_stop_str_in_output false).

Parts: the reason (a choice: end-of-sequence, stop-string, max-tokens) and the output
tokens (usage.completion_tokens). The request and response are ours, in vLLM's field
layout; the content is cut to its first line, as a log would keep it.

Misconceptions: on the reason, finish_reason "stop" taken for a stop string although
stop_reason is null (stop-reason-null-ignored), for the max_tokens limit (stop-read-as-
limit), a named stop_reason missed (stop-string-missed), "length" read as the model
having finished (length-read-as-finished) or as a stop string (length-read-as-stop); on
the tokens, total tokens (total-as-output), prompt tokens (prompt-as-output) or the
max_tokens limit (limit-as-output) read as what was written.
"""

from __future__ import annotations

import json
import random
from typing import Literal

from pydantic import Field, model_validator

from problems.engine.registry import register
from problems.engine.template import Kind, Misconception, Params, Part, Template
from problems.engine.tolerance import Exact
from problems.templates._common import parts_separated
from problems.templates.incidents._deploy_symptoms import MODELS

EOS, STOP, LENGTH = "end-of-sequence", "stop-string", "max-tokens"
CHOICES = (EOS, STOP, LENGTH)
STOP_STRINGS = ("</answer>", "\n\nQuestion:", "###", "<|end_of_summary|>")

# (what the user asked, the first line of the answer): ours.
SCENES = (
    ("Summarise this incident ticket in three bullet points.",
     "- The job on gpu-node-17 stopped after an uncorrectable ECC error on GPU 3."),
    ("Explain what tensor parallelism splits, for a new on-call engineer.",
     "Tensor parallelism splits each layer's weight matrices across the GPUs of a node."),
    ("Write a SQL query that counts failed jobs per day for the last week.",
     "SELECT date_trunc('day', ended_at) AS day, count(*) AS failed"),
    ("Draft a reply to a customer whose invoice was charged twice.",
     "Thank you for telling us about the duplicate charge on your March invoice."),
    ("List the steps to drain a Slurm node before a firmware update.",
     "1. Mark the node as draining so no new jobs land on it."),
    ("Translate this release note into German.",
     "Diese Version behebt einen Fehler beim Laden von Modellgewichten."),
    ("Classify this log line as info, warning or error, with a reason.",
     "Error: the NCCL watchdog timed out waiting for the all-reduce to finish."),
    ("Answer the question from the retrieved runbook excerpt.",
     "According to the runbook, restart the DCGM exporter before reseating the GPU."),
)  # fmt: skip
MAX_TOKENS = (128, 256, 384, 512, 1024, 2048)
# Each model's end-of-sequence token for chat turns (its tokenizer_config / generation
# config on Hugging Face).
EOS_TOKEN = {
    "llama-3.1-8b": "<|eot_id|>",
    "llama-3.1-70b": "<|eot_id|>",
    "qwen2.5-72b": "<|im_end|>",
    "mixtral-8x7b": "</s>",
}


class StopParams(Params):
    model: Literal[tuple(MODELS)]  # type: ignore[valid-type]
    scene: int = Field(ge=0, lt=len(SCENES))
    reason: Literal[EOS, STOP, LENGTH]  # type: ignore[valid-type]
    stop: int | None = Field(default=None, ge=0, lt=len(STOP_STRINGS))  # the request's stop
    prompt_tokens: int = Field(ge=10, le=100_000)
    max_tokens: int = Field(ge=16, le=8192)
    completion_tokens: int = Field(ge=1, le=8192)
    request: int = Field(ge=0, lt=2**32)  # the response id's digits

    @model_validator(mode="after")
    def _consistent(self) -> StopParams:
        if self.completion_tokens > self.max_tokens:
            raise ValueError("a server never writes more than max_tokens")
        if (self.reason == LENGTH) != (self.completion_tokens == self.max_tokens):
            raise ValueError("the limit ends generation exactly at max_tokens, and only it")
        if self.reason == STOP and self.stop is None:
            raise ValueError("a stop string can only end a request that sent one")
        return self


def response_json(p: StopParams) -> str:
    """The response body as the server returns it (its content cut to the first line)."""
    _, first_line = SCENES[p.scene]
    stop_reason = STOP_STRINGS[p.stop] if p.reason == STOP else None
    body = {
        "id": f"chatcmpl-{p.request:08x}",
        "object": "chat.completion",
        "model": MODELS[p.model],
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": first_line + " [...]"},
                "logprobs": None,
                "finish_reason": "length" if p.reason == LENGTH else "stop",
                "stop_reason": stop_reason,
            }
        ],
        "usage": {
            "prompt_tokens": p.prompt_tokens,
            "total_tokens": p.prompt_tokens + p.completion_tokens,
            "completion_tokens": p.completion_tokens,
        },
    }
    return json.dumps(body, indent=2)


def request_json(p: StopParams) -> str:
    ask, _ = SCENES[p.scene]
    body: dict = {
        "model": MODELS[p.model],
        "messages": [{"role": "user", "content": ask}],
        "max_tokens": p.max_tokens,
    }
    if p.stop is not None:
        body["stop"] = [STOP_STRINGS[p.stop]]
    return json.dumps(body, indent=2)


@register
class GenerationStop(Template):
    slug = "generation-stop"
    title = "Why a model stopped writing, from the server's response"
    family = "capacity_judgement"
    lessons = ("how-an-llm-writes-text", "tokens-and-writing-one-word-at-a-time")
    skills = ("generation-loop", "tokenization")
    difficulty = 1
    Params = StopParams
    version = 1

    def generate(self, rng: random.Random) -> StopParams:
        for _ in range(10_000):
            p = self._draw(rng)
            if parts_separated(self.solve(p), self.misconceptions(p)):
                return p
        raise RuntimeError("generation-stop: no separated variant")  # pragma: no cover

    def _draw(self, rng: random.Random) -> StopParams:
        reason = rng.choice(CHOICES)
        max_tokens = rng.choice(MAX_TOKENS)
        if reason == LENGTH:
            written = max_tokens
        else:
            written = rng.randint(max(12, max_tokens // 8), max_tokens - max(8, max_tokens // 10))
        stop = rng.randrange(len(STOP_STRINGS)) if reason == STOP or rng.random() < 0.5 else None
        return StopParams(
            model=rng.choice(tuple(MODELS)),
            scene=rng.randrange(len(SCENES)),
            reason=reason,
            stop=stop,
            prompt_tokens=rng.randint(40, 3000),
            max_tokens=max_tokens,
            completion_tokens=written,
            request=rng.randrange(2**32),
        )

    def solve(self, p: StopParams) -> dict[str, Part]:
        return {
            "reason": Part(
                "reason", p.reason, kind=Kind.CHOICE, tolerance=Exact(), choices=CHOICES,
                label="What ended generation",
            ),
            "output_tokens": Part(
                "output_tokens", p.completion_tokens, "", kind=Kind.INTEGER, tolerance=Exact(),
                label="Output tokens the model wrote",
            ),
        }  # fmt: skip

    def statement(self, p: StopParams) -> str:
        return (
            "A client sent this request to a vLLM server's OpenAI-compatible endpoint "
            "`/v1/chat/completions`:\n\n"
            f"```json\n{request_json(p)}\n```\n\n"
            "and got this response (the log keeps the first line of the content):\n\n"
            f"```json\n{response_json(p)}\n```\n\n"
            "A model writes its answer one token at a time, each decode step adding one.\n\n"
            "1. What ended generation: the model's end-of-sequence token, a stop string, or "
            "the max_tokens limit? Answer `end-of-sequence`, `stop-string` or `max-tokens`.\n"
            "2. How many output tokens did the model write?"
        )

    def solution(self, p: StopParams) -> str:
        finish = "length" if p.reason == LENGTH else "stop"
        if p.reason == LENGTH:
            why = (
                f'`finish_reason` is "length": the model had written `max_tokens` = '
                f"{p.max_tokens} tokens and the server cut it off. The answer is probably "
                "unfinished; a client that needs all of it raises max_tokens or asks for a "
                "shorter answer."
            )
        elif p.reason == STOP:
            why = (
                f'`finish_reason` is "stop" and `stop_reason` names '
                f"`{json.dumps(STOP_STRINGS[p.stop])}`, one of the request's stop strings: "
                "the text reached it, and the server ended the request there (the stop "
                "string itself is not in the returned content)."
            )
        else:
            why = (
                '`finish_reason` is "stop" and `stop_reason` is null: no stop string '
                "matched, so the model itself emitted its end-of-sequence token "
                f"(`{EOS_TOKEN[p.model]}` for this model): it decided the answer was complete, "
                f"before the {p.max_tokens}-token limit."
            )
        return (
            f"{why} So the answer is **{p.reason}** (finish_reason {finish}).\n\n"
            f"`usage.completion_tokens` = **{p.completion_tokens}** output tokens, one per "
            f"decode step; `prompt_tokens` ({p.prompt_tokens}) were read in the prefill, and "
            f"`total_tokens` ({p.prompt_tokens + p.completion_tokens}) is their sum."
        )

    def misconceptions(self, p: StopParams) -> list[Misconception]:
        reason_slips = {
            EOS: [
                ("stop-reason-null-ignored", STOP,
                 'finish_reason "stop" covers both the end-of-sequence token and a stop '
                 "string; stop_reason is null, so no stop string matched."),
                ("stop-read-as-limit", LENGTH,
                 'The limit gives finish_reason "length"; "stop" means the model or a stop '
                 "string ended it before the limit."),
            ],
            STOP: [
                ("stop-string-missed", EOS,
                 "stop_reason names the stop string that matched: the request's stop list "
                 "ended it, not the model's own end-of-sequence token."),
                ("stop-read-as-limit", LENGTH,
                 'The limit gives finish_reason "length"; "stop" with a stop_reason is a '
                 "stop string."),
            ],
            LENGTH: [
                ("length-read-as-finished", EOS,
                 'finish_reason "length" means the max_tokens limit cut the model off: the '
                 "answer did not end on its own and is probably unfinished."),
                ("length-read-as-stop", STOP,
                 'A stop string gives finish_reason "stop" with stop_reason naming it; '
                 '"length" is the max_tokens limit.'),
            ],
        }[p.reason]  # fmt: skip
        out = [Misconception(code, "reason", value, fb) for code, value, fb in reason_slips]
        out += [
            Misconception(
                "total-as-output", "output_tokens", p.prompt_tokens + p.completion_tokens,
                "total_tokens adds the prompt's tokens; the output is completion_tokens.",
            ),
            Misconception(
                "prompt-as-output", "output_tokens", p.prompt_tokens,
                "prompt_tokens are the tokens read in; completion_tokens were written.",
            ),
        ]  # fmt: skip
        if p.reason != LENGTH:
            out.append(
                Misconception(
                    "limit-as-output",
                    "output_tokens",
                    p.max_tokens,
                    "max_tokens is a ceiling, not a count: generation ended before it.",
                )  # fmt: skip
            )
        return out
