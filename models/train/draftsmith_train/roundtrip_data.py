"""Round-Trip data: paragraphs split into sentences, held out by document.

Sources (../shared/data and Debian, as the other recipes read them):
  wiki   WikiText-2 paragraphs; the document is the article (the "= Title =" heading above it)
  story  fairy-tale paragraphs; the document is the tale
  news   CNN articles cut into runs of consecutive sentences; the document is the article
  tech   Debian long package descriptions; the document is the package, split as data.debian_pairs

Sentence splitter (the TypeScript side will use wink-nlp; this rule is deliberately simple):
  a sentence ends at '.', '!' or '?' (optionally followed by closing quotes or brackets) when the
  next character, after whitespace, is an uppercase letter, a digit or an opening quote/bracket, and
  the word ending in '.' is not an abbreviation from ABBREVIATIONS or a single capital initial.

Limits: 2..MAX_SENTENCES sentences and 1..MAX_TOKENS SentencePiece tokens per sentence. A sentence
over MAX_TOKENS tokens (or with WikiText's "<unk>") breaks its paragraph into runs of consecutive
usable sentences, and each run is cut into windows of at most MAX_SENTENCES sentences. The same limits
apply to every split.

WikiText articles and tales are assigned to train / val / test by a seeded hash of "source:document"
(5% val, 5% test); news and tech keep the summarizer's document splits (data.cnn_pairs,
data.debian_pairs), with at most max_news / max_tech training documents. Every paragraph of one
document lies in one split. Writes roundtrip.{train,val,test}.jsonl.
"""
import hashlib
import json
import os
import re
import shutil
from collections import Counter

from . import data as D
from . import tokenizer as T

MAX_SENTENCES = 8
MAX_TOKENS = 40
VAL_SHARE, TEST_SHARE = 0.05, 0.05
ABBREVIATIONS = set(
    "mr mrs ms dr st jr sr vs etc e.g i.e prof gen col lt sgt no fig approx inc ltd co corp dept"
    " jan feb mar apr jun jul aug sep sept oct nov dec u.s u.k a.m p.m".split()
)
_END = re.compile(r"""([.!?]+["'”’)\]]*)\s+(?=["'“‘(\[]?[A-Z0-9])""")


def split_sentences(text):
    """The rule in the module docstring. Returns stripped, non-empty sentences."""
    text = D.normalize(text)
    out, start = [], 0
    for m in _END.finditer(text):
        before = text[start : m.start() + 1]
        last = before.split(" ")[-1].rstrip(".!?\"'”’)]").lower() if before else ""
        if m.group(1).startswith(".") and len(m.group(1).rstrip("\"'”’)]")) == 1:
            if last in ABBREVIATIONS or re.fullmatch(r"[a-z]", last):
                continue
        out.append(text[start : m.end(1)].strip())
        start = m.end()
    tail = text[start:].strip()
    if tail:
        out.append(tail)
    return [s for s in out if s]


def _split_of(key):
    h = int(hashlib.sha256(f"{D.SEED}:{key}".encode()).hexdigest()[:8], 16) / 0xFFFFFFFF
    return "test" if h < TEST_SHARE else "val" if h < TEST_SHARE + VAL_SHARE else "train"


def wiki_documents():
    import glob

    for f in sorted(glob.glob(os.path.join(D.SHARED, "data/wikitext2_paragraphs/*.tokens"))):
        title = None
        for line in open(f, encoding="utf-8"):
            line = line.strip().lstrip("\ufeff")
            if re.fullmatch(r"= [^=].*[^=] =", line):
                title = line.strip("= ")
                continue
            if not line or line.startswith("="):
                continue
            line = line.replace(" @-@ ", "-").replace(" @,@ ", ",").replace(" @.@ ", ".")
            line = re.sub(r" ([.,;:!?')])", r"\1", line).replace("( ", "(")
            if len(line.split()) >= 30:
                yield "wiki", title or f, D.normalize(line), None


def story_documents():
    for doc, paras in D.fairy_tale_paragraphs():
        for para in paras:
            yield "story", doc, para, None


def news_documents(max_train):
    """The summarizer's article split (data.cnn_pairs): its val and test articles stay held out here."""
    for part, rows in zip(("train", "val", "test"), D.cnn_pairs()):
        for r in rows[:max_train] if part == "train" else rows:
            yield "news", r["id"], r["source"], part


def tech_documents(workdir, max_train):
    """The summarizer's package split (data.debian_pairs)."""
    for part, rows in zip(("train", "val", "test"), D.debian_pairs(workdir)):
        for r in rows[:max_train] if part == "train" else rows:
            yield "tech", r["id"], r["source"], part


def windows(sp, sentences):
    """Runs of consecutive usable sentences (1..MAX_TOKENS tokens, no WikiText "<unk>"), cut into
    windows of <= MAX_SENTENCES sentences; windows of fewer than 2 sentences are dropped."""
    run = []
    for x in sentences + [None]:
        if x is not None and "<unk>" not in x and 1 <= len(sp.encode(x)) <= MAX_TOKENS:
            run.append(x)
            continue
        for s in range(0, len(run), MAX_SENTENCES):
            w = run[s : s + MAX_SENTENCES]
            if len(w) >= 2:
                yield w
        run = []


def prepare_roundtrip(data_dir, max_news=2500, max_tech=6000):
    sp = T.load(os.path.join(data_dir, "spm.model"))
    sources = [wiki_documents(), story_documents(), news_documents(max_news), tech_documents(data_dir, max_tech)]
    return write_splits(data_dir, sp, (d for gen in sources for d in gen), ("wiki", "story", "news", "tech"))


def write_splits(data_dir, sp, documents, source_names):
    """roundtrip.{train,val,test}.jsonl from (source, doc, text, part or None) rows: each document's
    windows in its split (a seeded hash of source:doc where part is None), and the counts table."""
    out = {k: open(os.path.join(data_dir, f"roundtrip.{k}.jsonl"), "w") for k in ("train", "val", "test")}
    counts, docs, seen_docs = Counter(), Counter(), set()
    for source, doc, text, part in documents:
        part = part or _split_of(f"{source}:{doc}")
        if (source, doc) not in seen_docs:
            seen_docs.add((source, doc))
            docs[(source, part)] += 1
        for w in windows(sp, split_sentences(text)):
            out[part].write(json.dumps({"source": source, "doc": doc, "sentences": w}) + "\n")
            counts[(source, part)] += 1
    for f in out.values():
        f.close()
    table = {
        s: {p: f"{counts[(s, p)]} paragraphs / {docs[(s, p)]} docs" for p in ("train", "val", "test")}
        for s in source_names
    }
    json.dump(table, open(os.path.join(data_dir, "roundtrip.counts.json"), "w"), indent=1)
    print(json.dumps(table, indent=1))
    return table


def load(path, sp, limit=None):
    """[(sentences: [[ids]], record)]. With a limit, the sources take turns (wiki, story, news, tech,
    wiki, ...; each in file order), so a validation or test sample is not all of the first source."""
    records = [json.loads(line) for line in open(path)]
    if limit:
        by_source = {}
        for r in records:
            by_source.setdefault(r["source"], []).append(r)
        queues = list(by_source.values())
        records, k = [], 0
        while len(records) < limit and any(k < len(q) for q in queues):
            records += [q[k] for q in queues if k < len(q)]
            k += 1
        records = records[:limit]
    return [([sp.encode(s) for s in r["sentences"]], r) for r in records]


# ---------------------------------------------------------------------------------------------
# The "simple" corpus: everyday five-sentence stories and simple children's stories, the
# text a model of this size learns to write fluently. Its own tokenizer (a smaller vocabulary over
# this text alone keeps nearly every word whole), its own folder (e.g. .data/simple).
# ---------------------------------------------------------------------------------------------
SIMPLE_VOCAB = 4000


def roc_documents():
    """ROCStories: the 5k split (one story a line) and Story Cloze (validation stories with their right
    ending; test stories as their four given sentences). The document is the story itself."""
    import csv

    for n, line in enumerate(open(os.path.join(D.SHARED, "data/rocstories_5k/rocstories_5k.txt"), encoding="utf-8")):
        if line.strip():
            yield "roc", f"roc5k:{n}", D.normalize(line), None
    for name in ("storycloze_val_1571.csv", "storycloze_test_1571_unlabeled.csv"):
        with open(os.path.join(D.SHARED, "data/storycloze_rocstories", name), encoding="utf-8") as f:
            for n, r in enumerate(csv.DictReader(f)):
                sents = [r[f"InputSentence{i}"] for i in range(1, 5)]
                if "AnswerRightEnding" in r:
                    sents.append(r[f"RandomFifthSentenceQuiz{r['AnswerRightEnding']}"])
                yield "roc", f"{name}:{n}", D.normalize(" ".join(sents)), None


_TINY_START = re.compile(r"^(Once upon a time|One day|Once,|There once|There was once)")


def tiny_documents():
    """TinyStories sample: blank-line paragraphs; a story starts at a paragraph opening like "Once upon
    a time" (the sample has no end marker), and all of a story's paragraphs share its split."""
    story, n = None, 0
    text = open(os.path.join(D.SHARED, "data/tinystories/tinystories_sample.txt"), encoding="utf-8").read()
    for para in re.split(r"\n\s*\n", text):
        para = D.normalize(para)
        if not para:
            continue
        if story is None or _TINY_START.match(para):
            n += 1
            story = f"tiny:{n}"
        yield "tiny", story, para, None


def simple_stories():
    """(split, source, text) per document of the simple corpus, in the split roundtrip prepare gave it."""
    stories = {}  # (source, doc) -> paragraphs, in order
    for source, doc, text, _ in list(roc_documents()) + list(tiny_documents()):
        stories.setdefault((source, doc), []).append(text)
    for (source, doc), paras in stories.items():
        yield _split_of(f"{source}:{doc}"), source, " ".join(paras)


def tiny_stories(text):
    """The sample sometimes runs two stories into one paragraph ("... everywhere he went! Once upon a
    time, ..."): cut at every sentence that opens a story."""
    out = []
    for s in D.sentences(text):
        if not out or _TINY_START.match(s):
            out.append([])
        out[-1].append(s)
    return [" ".join(x) for x in out]


def need_simple_tokenizer(data_dir):
    """essay and story prepare --corpus simple build on roundtrip's split and tokenizer in the same folder."""
    if not os.path.exists(os.path.join(data_dir, "spm.model")):
        raise SystemExit(
            f"{data_dir}/spm.model is missing: run `roundtrip prepare --corpus simple --data {data_dir}` first"
        )


def simple_corpus_tag(data_dir, split_file):
    """ "simple-" or "everyday-" when split_file (essay_split.json, story_split.json) says its pairs are
    that corpus's, "" for the mixed ones: the exports put it in the model's name."""
    split = os.path.join(data_dir, split_file)
    corpus = json.load(open(split)).get("corpus") if os.path.exists(split) else None
    return f"{corpus}-" if corpus in ("simple", "everyday") else ""


def seen_in_training(stories):
    """A test of "this held-out paragraph is mostly training text": the TinyStories sample holds some
    stories twice, under two documents (whole in one paragraph, and again in paragraphs of their own)."""

    def long(text):  # short ones ("Once upon a time, ...") recur in many stories anyway
        return [x for x in D.sentences(text) if len(x.split()) >= 6]

    train = {x for part, _, text in stories if part == "train" for x in long(text)}

    def seen(text):
        xs = long(text)
        return bool(xs) and sum(x in train for x in xs) >= len(xs) / 2

    return seen


def prepare_simple(data_dir):
    """Writes spm.model, tokenizer/ and roundtrip.{train,val,test}.jsonl for the simple corpus."""
    os.makedirs(data_dir, exist_ok=True)
    docs = list(roc_documents()) + list(tiny_documents())
    corpus = os.path.join(data_dir, "corpus.txt")
    with open(corpus, "w", encoding="utf-8") as f:  # the tokenizer sees training documents only
        for source, doc, text, _ in docs:
            if _split_of(f"{source}:{doc}") == "train":
                f.write(text + "\n")
    sp = T.train(corpus, os.path.join(data_dir, "spm"), SIMPLE_VOCAB)
    T.write_tokenizer_json(sp, os.path.join(data_dir, "tokenizer"))
    return write_splits(data_dir, sp, docs, ("roc", "tiny"))


# The "general" test set: everyday paragraphs that are not stories, for measuring how a model trained
# on stories carries over. OneStopEnglish's elementary-level news articles (../shared/data/onestopenglish,
# CC BY-SA 4.0), split at blank lines; paragraphs of 3 to 8 sentences, in the file's order. A test split
# only: no model of this project trains on it.
def general_paragraphs(min_sentences=3, max_sentences=8):
    rows = []
    path = os.path.join(D.SHARED, "data/onestopenglish/onestopenglish_189.jsonl")
    for line in open(path, encoding="utf-8"):
        article = json.loads(line)
        for k, para in enumerate(p for p in article["elementary"].split("\n\n") if p.strip()):
            sentences = split_sentences(para)
            if min_sentences <= len(sentences) <= max_sentences:
                rows.append({"source": "onestop", "doc": f"onestop:{article['id']}#{k}", "sentences": sentences})
    return rows


# The "everyday" corpus: the simple stories and general paragraphs (WikiText-2 articles and CNN news,
# at most EVERYDAY_NEWS training articles), in the shared backbone's tokenizer (backbone.py prepare), so
# that its word embeddings can start the model (roundtrip train --init-embeddings). The general test
# set above stays out of it: OneStopEnglish is read by no training corpus.
EVERYDAY_NEWS = 2500


def prepare_everyday(data_dir, backbone_dir):
    """Writes spm.model and tokenizer/ (the backbone's) and roundtrip.{train,val,test}.jsonl."""
    os.makedirs(os.path.join(data_dir, "tokenizer"), exist_ok=True)
    for name, dest in (
        ("spm.model", "spm.model"),
        ("tokenizer.json", "tokenizer/tokenizer.json"),
        ("tokenizer_config.json", "tokenizer/tokenizer_config.json"),
    ):
        src = os.path.join(backbone_dir, name)
        if not os.path.exists(src):
            raise SystemExit(f"{src} is missing: run `backbone.py prepare --out {backbone_dir}` first")
        shutil.copy(src, os.path.join(data_dir, dest))
    sp = T.load(os.path.join(data_dir, "spm.model"))
    sources = [roc_documents(), tiny_documents(), wiki_documents(), news_documents(EVERYDAY_NEWS)]
    return write_splits(data_dir, sp, (d for gen in sources for d in gen), ("roc", "tiny", "wiki", "news"))


def prepare_general(data_dir):
    """Writes roundtrip.test.jsonl of the general paragraphs (eval roundtrip --data DATA_DIR reads it)."""
    os.makedirs(data_dir, exist_ok=True)
    rows = general_paragraphs()
    with open(os.path.join(data_dir, "roundtrip.test.jsonl"), "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    print(json.dumps({"general": f"{len(rows)} paragraphs / {len({r['doc'].split('#')[0] for r in rows})} articles"}))
