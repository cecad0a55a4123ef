"""Batches of similar length under a token budget, shared by the fine-tuning recipes."""


def token_batches(items, length, batch_tokens, rng, jitter):
    """Endless shuffled batches: items sorted by length(item) plus up to `jitter` of noise (so
    batches differ between epochs), cut where batch size x longest item would pass batch_tokens."""
    while True:
        ordered = sorted(items, key=lambda x: length(x) + rng.random() * jitter)
        chunks, cur = [], []
        for it in ordered:
            if cur and (len(cur) + 1) * max(length(it), max(length(c) for c in cur)) > batch_tokens:
                chunks.append(cur)
                cur = []
            cur.append(it)
        chunks.append(cur)
        rng.shuffle(chunks)
        yield from chunks
