"""transformer-mechanics: what each stage of a decoder-only transformer does with a
token, what attention's queries, keys and values are for, and why the causal mask lets
a server keep earlier tokens' keys and values (the KV cache) instead of recomputing them.

Three parts, each one situation from its bank (problems/templates/concepts/_bank.py):

- stage: where in the path from token ids to next-token scores a thing happens
  (embedding lookup, attention, the MLP, the output projection), including where rotary
  position information enters (inside attention, on queries and keys: Su et al.,
  "RoFormer", 2021, used by Llama, Qwen and Mistral models);
- attention: the roles of queries, keys and values, the softmax and the 1/sqrt(d_head)
  scaling (Vaswani et al., "Attention Is All You Need", 2017, section 3.2.1);
- cache: for one decoding step, what is reused from earlier steps, what is computed
  afresh and what is never needed, with and without the causal mask.

Sentences are ours; the facts are the papers' above.
"""

from __future__ import annotations

from problems.engine.registry import register
from problems.templates.concepts._bank import ConceptTemplate, Question, Slip, Topic

EMB, ATT, MLP, OUT = "embedding", "attention", "mlp", "output-projection"
STAGE = Topic(
    part="stage",
    label="Stage of the transformer",
    clue=(
        "Follow one token through a decoder-only transformer: its id becomes a vector, "
        "each layer first mixes in information from other positions and then transforms "
        "each position on its own, and the last hidden vector is turned into a score for "
        "every vocabulary entry."
    ),
    choices=(EMB, ATT, MLP, OUT),
    meanings=(
        (EMB, "the embedding lookup"),
        (ATT, "the attention block of a layer"),
        (MLP, "the feed-forward block of a layer"),
        (OUT, "the final projection to vocabulary scores"),
    ),
    questions=(
        Question(
            "A token id such as 15339 has to become a vector of the model's hidden width "
            "before any layer can work on it. Which stage does that, by reading one row "
            "of a table with a row per vocabulary entry?",
            EMB,
            "the embedding table has one row per vocabulary entry; the id selects its row.",
            (
                Slip(ATT, "attention-as-lookup", "Attention taken for the embedding lookup",
                     "Attention mixes vectors that already exist; it cannot turn an id "
                     "into one."),
                Slip(MLP, "mlp-as-lookup", "The MLP taken for the embedding lookup",
                     "The MLP transforms a position's vector; the vector must exist first."),
                Slip(OUT, "output-as-input", "The output projection taken for the input end",
                     "The output projection ends the path: it maps the last hidden vector "
                     "to vocabulary scores."),
            ),
        ),
        Question(
            "In one layer, a token's vector has to take in what the earlier tokens of the "
            "prompt say. Which stage is the only place where one position reads other "
            "positions?",
            ATT,
            "attention weighs other positions' values; everything else acts on one "
            "position at a time.",
            (
                Slip(EMB, "embedding-mixes-tokens", "The embedding thought to mix tokens",
                     "The embedding looks up each id alone, with no view of its neighbours."),
                Slip(MLP, "mlp-mixes-tokens", "The MLP thought to mix positions",
                     "The MLP is applied to each position separately, with the same weights."),
                Slip(OUT, "output-mixes-tokens", "The output projection thought to mix positions",
                     "The output projection scores one position's final vector on its own."),
            ),
        ),
        Question(
            "Which stage widens each position's vector to several times the hidden width, "
            "applies a nonlinearity and narrows it again, and holds most of a dense "
            "layer's parameters?",
            MLP,
            "the feed-forward block (up, gate and down projections in Llama-style models) "
            "is the widest matrix work in a layer.",
            (
                Slip(EMB, "embedding-as-mlp", "The embedding taken for a per-layer block",
                     "The embedding is one lookup before the first layer, not a block "
                     "inside each layer."),
                Slip(ATT, "attention-holds-most-weights",
                     "Attention thought to hold most of a layer's weights",
                     "Attention's query, key, value and output matrices are fewer "
                     "parameters than the feed-forward block's in a dense layer."),
                Slip(OUT, "output-as-mlp", "The output projection taken for a per-layer block",
                     "The output projection runs once after the last layer, not inside "
                     "every layer."),
            ),
        ),
        Question(
            "The server must pick the next token. Which stage produces one score for "
            "every entry in the vocabulary, the logits that sampling works from?",
            OUT,
            "the final projection maps the last position's hidden vector to one logit per "
            "vocabulary entry.",
            (
                Slip(EMB, "embedding-as-output", "The embedding taken for the vocabulary scores",
                     "The embedding maps ids to vectors, the opposite direction."),
                Slip(ATT, "attention-scores-as-logits",
                     "Attention scores taken for vocabulary logits",
                     "Attention's scores rank positions of the context, not vocabulary "
                     "entries."),
                Slip(MLP, "mlp-as-output", "The MLP taken for the vocabulary scores",
                     "The MLP keeps the hidden width; it does not score the vocabulary."),
            ),
        ),
        Question(
            "A Llama-family model uses rotary position embeddings. Where does a token's "
            "position enter the computation?",
            ATT,
            "rotary embeddings rotate the queries and keys inside every attention layer, "
            "so the scores depend on the distance between positions.",
            (
                Slip(EMB, "position-added-at-input",
                     "Rotary positions thought added to the embedding",
                     "Adding a position vector to the embedding was the original "
                     "transformer's way; rotary embeddings act on queries and keys."),
                Slip(MLP, "position-in-mlp", "Position thought to enter in the MLP",
                     "The MLP treats every position alike; position matters only where "
                     "positions meet, in attention."),
                Slip(OUT, "position-at-output", "Position thought to enter at the output",
                     "By the output projection the path is over; position must shape how "
                     "tokens read each other, inside attention."),
            ),
        ),
    ),
)  # fmt: skip

Q, K, V, SOFT, SCALE = "queries", "keys", "values", "softmax", "scaling"
ATTENTION = Topic(
    part="attention",
    label="Piece of attention",
    clue=(
        "Attention scores the current position's query against every visible position's "
        "key, divides the scores by the square root of the head width, turns them into "
        "weights with a softmax, and returns the weighted sum of the values; many heads "
        "do this side by side."
    ),
    choices=(Q, K, V, SOFT, SCALE),
    meanings=(
        (Q, "the current position's queries"),
        (K, "the keys of the visible positions"),
        (V, "the values of the visible positions"),
        (SOFT, "the softmax over the scores"),
        (SCALE, "dividing the scores by the square root of the head width"),
    ),
    questions=(
        Question(
            "The current position's query is dotted with one vector from each visible "
            "position to score how relevant that position is. Which vectors?",
            K,
            "scores are query-key dot products, one per visible position.",
            (
                Slip(Q, "queries-against-queries", "Queries scored against queries",
                     "Each position has one query, used for its own row of scores; it is "
                     "compared with the others' keys."),
                Slip(V, "scores-from-values", "Values thought to make the scores",
                     "Values are what gets averaged once the weights are known; they do "
                     "not enter the scores."),
                Slip(SOFT, "softmax-as-vectors", "The softmax taken for vectors scored",
                     "The softmax acts on the scores after they are computed."),
                Slip(SCALE, "scaling-as-vectors", "The scaling taken for vectors scored",
                     "The scaling divides finished scores; it is not a set of vectors."),
            ),
        ),
        Question(
            "Once the weights of a head are known, it returns a weighted sum. A sum of "
            "which vectors?",
            V,
            "the head's output is the weights times the values of the visible positions.",
            (
                Slip(Q, "output-from-queries", "The output thought built from queries",
                     "The query only chose the weights; the output is built from values."),
                Slip(K, "output-from-keys", "The output thought built from keys",
                     "Keys decide how much each position counts; values carry what is "
                     "passed on."),
                Slip(SOFT, "softmax-as-output", "The softmax taken for what is summed",
                     "The softmax made the weights; the sum runs over vectors."),
                Slip(SCALE, "scaling-as-output", "The scaling taken for what is summed",
                     "Scaling acts before the softmax, on the scores."),
            ),
        ),
        Question(
            "Which step keeps query-key dot products from growing with the head width, so "
            "that a wide head's weights do not pile onto a single position?",
            SCALE,
            "dividing by the square root of the head width keeps the scores' spread "
            "near one whatever the width.",
            (
                Slip(Q, "queries-normalise", "Queries thought to tame the score growth",
                     "Queries are inputs to the scores; the fix is applied to the scores."),
                Slip(K, "keys-normalise", "Keys thought to tame the score growth",
                     "Keys are inputs to the scores; the fix is applied to the scores."),
                Slip(V, "values-normalise", "Values thought to tame the score growth",
                     "Values do not enter the scores at all."),
                Slip(SOFT, "softmax-bounds-scores", "The softmax thought to stop score growth",
                     "The softmax is what turns large scores into near one-hot weights; "
                     "the scaling before it prevents that."),
            ),
        ),
        Question(
            "Which step turns a row of raw scores into weights that are non-negative and "
            "add up to one?",
            SOFT,
            "the softmax exponentiates and normalises each row of scores.",
            (
                Slip(Q, "queries-normalise-weights", "Queries thought to normalise the weights",
                     "Queries produce the scores; the normalising is a separate step."),
                Slip(K, "keys-normalise-weights", "Keys thought to normalise the weights",
                     "Keys produce the scores; the normalising is a separate step."),
                Slip(V, "values-normalise-weights", "Values thought to normalise the weights",
                     "Values are summed with the weights; they do not make them."),
                Slip(SCALE, "scaling-normalises", "The scaling thought to make weights sum to one",
                     "Dividing by a constant keeps the sign and does not make a row sum "
                     "to one."),
            ),
        ),
        Question(
            "While a model writes token after token, which of these is computed for the "
            "new position only and is never needed by any later step?",
            Q,
            "a query is used once, for its own position's row of scores; later positions "
            "read the earlier keys and values, never the earlier queries.",
            (
                Slip(K, "keys-used-once", "Keys thought needed only once",
                     "Every later position scores its query against this key, so keys "
                     "are kept."),
                Slip(V, "values-used-once", "Values thought needed only once",
                     "Every later position may weigh this value, so values are kept."),
                Slip(SOFT, "softmax-as-tensor", "The softmax taken for a stored tensor",
                     "The softmax is a step, not a stored tensor; the question asks which "
                     "tensor is needed only once."),
                Slip(SCALE, "scaling-as-tensor", "The scaling taken for a stored tensor",
                     "The scaling is a constant factor, not something per position."),
            ),
        ),
    ),
)  # fmt: skip

REUSED, FRESH, UNUSED = "reused", "computed-fresh", "not-needed"
CACHE = Topic(
    part="cache",
    label="What the next decoding step does with it (the KV cache)",
    clue=(
        "The causal mask lets each position read only itself and earlier positions, so "
        "nothing an earlier token computed depends on the tokens after it: appending a "
        "token leaves the earlier keys and values exactly as they were."
    ),
    choices=(REUSED, FRESH, UNUSED),
    meanings=(
        (REUSED, "kept from earlier steps and used again"),
        (FRESH, "computed again at this step"),
        (UNUSED, "not needed at this step at all"),
    ),
    questions=(
        Question(
            "A decoder with a causal mask is generating its 200th output token. What "
            "happens to the keys and values the earlier tokens produced in every layer?",
            REUSED,
            "the causal mask makes them independent of later tokens, so the KV cache "
            "keeps them and each step adds only the new token's.",
            (
                Slip(FRESH, "kv-recomputed", "Earlier keys and values thought recomputed",
                     "Under the causal mask an earlier token's keys and values cannot "
                     "change when tokens are appended; recomputing them is wasted work."),
                Slip(UNUSED, "kv-not-needed", "Earlier keys and values thought unneeded",
                     "The new token's query is scored against every earlier key and "
                     "weighs every earlier value, so they are needed at every step."),
            ),
        ),
        Question(
            "The same decoder, same step. What happens to the queries the earlier tokens "
            "produced?",
            UNUSED,
            "a query serves only its own position's row of scores, which was finished "
            "when that token was processed.",
            (
                Slip(REUSED, "queries-cached", "Earlier queries thought cached",
                     "Later positions read earlier keys and values, never earlier queries; "
                     "that is why the cache is a KV cache."),
                Slip(FRESH, "queries-recomputed", "Earlier queries thought recomputed",
                     "Nothing at this step reads an earlier query, so there is nothing to "
                     "recompute."),
            ),
        ),
        Question(
            "The same decoder, same step. What happens to the attention weights of the "
            "new token over all the earlier tokens?",
            FRESH,
            "they are made from the new token's query, which did not exist before this "
            "step.",
            (
                Slip(REUSED, "weights-cached", "The new attention weights thought cached",
                     "The weights depend on the new query; no earlier step could have "
                     "computed them."),
                Slip(UNUSED, "weights-not-needed", "The new attention weights thought unneeded",
                     "The new token's output is the weighted sum of values; it needs "
                     "these weights."),
            ),
        ),
        Question(
            "An encoder with no causal mask (every position reads every other) gets one "
            "more token appended to its input. What happens to the earlier tokens' keys "
            "and values from the second layer on?",
            FRESH,
            "without the mask every earlier position's first-layer output now reads the "
            "new token, so everything it feeds into in later layers changes.",
            (
                Slip(REUSED, "mask-ignored", "Keys and values kept without a causal mask",
                     "Only the causal mask makes earlier keys and values safe to keep; "
                     "here every position sees the new token, so they change."),
                Slip(UNUSED, "encoder-kv-unused", "An encoder's keys and values thought unneeded",
                     "Each position's output still weighs every position's values."),
            ),
        ),
        Question(
            "During prefill of a 1,000-token prompt the model also computed next-token "
            "scores at the first 999 positions. What happens to those scores when "
            "decoding starts?",
            UNUSED,
            "only the last position's scores choose the next token; servers skip or "
            "discard the rest.",
            (
                Slip(REUSED, "logits-cached", "Earlier positions' logits thought cached",
                     "Nothing later reads an earlier position's vocabulary scores; the "
                     "cache keeps keys and values."),
                Slip(FRESH, "logits-recomputed", "Earlier positions' logits thought recomputed",
                     "No step needs them again, so they are not recomputed."),
            ),
        ),
    ),
)  # fmt: skip


@register
class TransformerMechanics(ConceptTemplate):
    slug = "transformer-mechanics"
    title = "Inside the transformer: stages, attention and the KV cache"
    family = "concepts"
    lessons = ("inside-the-transformer", "the-models-scratchpad-and-reusing-saved-work")
    skills = ("transformer-architecture", "kv-cache-reuse")
    INTRO = (
        "Answer three questions about a decoder-only transformer such as Llama 3.1, the "
        "kind of model vLLM serves, from how it turns token ids into next-token scores "
        "to what its KV cache keeps."
    )
    TOPICS = (STAGE, ATTENTION, CACHE)
