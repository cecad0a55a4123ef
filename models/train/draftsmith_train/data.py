"""Data preparation: summarization pairs (news, dialogue, technical text) and the pretraining corpus.

Everything is split with a fixed seed here; metrics are reported on the test parts only.
Outputs go to an ignored folder (default .data/ at the repository root), never into git.
"""
import glob
import json
import os
import random
import re
import subprocess
from collections import Counter

from .boilerplate import is_boilerplate, sentences_of, strip_boilerplate

SHARED = os.environ.get("DRAFTSMITH_SHARED", os.path.join(os.path.dirname(__file__), "../../../../shared"))
SEED = 20261121
WS = re.compile(r"\s+")


def normalize(text: str) -> str:
    """The one text normalisation shared with the TypeScript side (extension/engine/text/normalize.ts)."""
    return WS.sub(" ", text).strip()


# A sentence ends after . ! or ? and any closing quote, which stays with it ("... yummy." Mom said).
SENTENCE_END = re.compile(r"(?:(?<=[.!?])|(?<=[.!?][\"'\u201d\u2019]))\s+(?=[\"'\u201c\u2018(]?[A-Z])")


def sentences(text):
    """The sentences of prose (stories, paragraphs), normalized."""
    return [s for s in SENTENCE_END.split(normalize(text)) if s]


def write_jsonl(path, rows):
    """One JSON object a line: the prepared splits' format."""
    with open(path, "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")


def split(items, n_test, n_val, seed=SEED):
    items = list(items)
    random.Random(seed).shuffle(items)
    return items[n_test + n_val :], items[n_test : n_test + n_val], items[:n_test]


def cnn_pairs():
    rows = [json.loads(l) for l in open(os.path.join(SHARED, "data/cnn_stories/cnn_6500.jsonl"))]
    pairs = [
        {
            "domain": "news",
            "id": r["id"],
            "source": normalize(r["article"]),
            "target": normalize(" ".join(h.rstrip(".") + "." for h in r["highlights"])),
        }
        for r in rows
    ]
    train, val, test = split(pairs, 300, 200)
    return [without_boilerplate(p) for p in train], val, test


def without_boilerplate(pair):
    """A training pair whose source has lost its boilerplate sentences (boilerplate.py: "CNN's ... contributed
    to this report.", "The opinions expressed in this commentary are solely those of ...", "Click here ...":
    2,387 sentences in 2,231 of cnn_stories' 6,500 articles, 0.6 % of the words), so that no recipe that
    reads these articles (summarize, essay, Round-Trip: all through this split) learns to write them.
    Validation and test keep the articles as published: the cards' scores stay comparable."""
    return {**pair, "source": strip_boilerplate(pair["source"])}


UPDATE_MARKER = re.compile(r"(^|(?<=\. ))NEW:\s*")


def without_update_marker(pair):
    """A training pair with CNN's "NEW:" taken off its highlights. It marks an updated story's newest
    highlight (12 % of the training targets) and says nothing about the article; beam search, seeking
    the mode, had the model open nearly every summary with it. Only the fine-tuning targets change:
    validation and test keep the highlights as published (scores stay comparable), and the pretraining
    corpus keeps them too, so the tokenizer trained on it stays the shipped one."""
    return {**pair, "target": UPDATE_MARKER.sub("", pair["target"])} if pair["domain"] == "news" else pair


LLM_SUMMARIES = ("gpt4", "chatgpt", "gpt3")  # the order a held-out article's one reference is taken in
SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'])")


def lead_sentences(text, max_words):
    """The summary's first whole sentences within max_words (at least one): a target the decoder can
    finish inside its length limit, instead of one cut mid-sentence by the token limit."""
    out, n = [], 0
    for s in SENTENCE.split(text):
        w = len(s.split())
        if out and n + w > max_words:
            break
        out.append(s)
        n += w
    return " ".join(out)


def llm_news_pairs(max_words=50):
    """CNN/DailyMail articles with LLM-written summaries (../shared/data/cnn_dm_llm_summaries): whole
    sentences of fluent prose where CNN's highlights are clipped fragments. Split by article; every
    summary of a training article is one pair, a held-out article keeps one reference."""
    rows = [
        json.loads(l)
        for l in open(os.path.join(SHARED, "data/cnn_dm_llm_summaries/cnndm_articles_llm_summaries.jsonl"))
    ]
    train, val, test = split(rows, 100, 50)

    def pairs(r, kinds):
        return [
            {
                "domain": "news",
                "id": f"{r['id']}:{k}",
                "source": normalize(r["article"]),
                "target": lead_sentences(normalize(r["summaries"][k]), max_words),
            }
            for k in kinds
        ]

    first = lambda r: [next(k for k in LLM_SUMMARIES if k in r["summaries"])]
    return (
        [without_boilerplate(p) for r in train for p in pairs(r, [k for k in LLM_SUMMARIES if k in r["summaries"]])],
        [p for r in val for p in pairs(r, first(r))],
        [p for r in test for p in pairs(r, first(r))],
    )


CNN_DATELINE = re.compile(r"\(CNN\)")


def held_out_outlet_pairs(n_test=500, n_val=1347):
    """Daily Mail articles of ../shared/data/cnn_dm_llm_summaries, for evaluating on an outlet the shipped model
    never trained on (its news is CNN's). A CNN story opens with a dateline in parentheses: "(CNN)" in 5,488 of
    cnn_stories' 6,500, a partner's ("(EW.com) --") in the rest. Here only "(CNN)" occurs, in 146 articles; the
    1,847 without it are Daily Mail's (British spelling, curly quotes, "Scroll down for video"). Reference: the
    article's first LLM summary (gpt4, chatgpt, gpt3), whole. Validation (for choosing settings: every article
    not in test; its first 300 were the first validation part) and test are disjoint; there is no training part."""
    rows = [
        json.loads(l)
        for l in open(os.path.join(SHARED, "data/cnn_dm_llm_summaries/cnndm_articles_llm_summaries.jsonl"))
    ]
    dm = [r for r in rows if not CNN_DATELINE.search(r["article"][:400])]
    _, val, test = split(dm, n_test, n_val, seed=SEED + 1)
    pair = lambda r: {
        "domain": "dailymail",
        "id": r["id"],
        "source": normalize(r["article"]),
        "target": normalize(r["summaries"][next(k for k in LLM_SUMMARIES if k in r["summaries"])]),
    }
    return [pair(r) for r in val], [pair(r) for r in test]


SENTENCE_GLUE = re.compile(r'([a-z0-9%)][.!?]["\u201d]?)(?=[A-Z"\u201c])')


def second_outlet_pairs(folder, n_test=500):
    """BBC News articles with extractive reference summaries (the "BBC News Summary" set: Greene & Cunningham's
    2,225 BBC articles of 2004-05, five topics, each with a summary of its own sentences), a second outlet the
    shipped model never trained on; evaluation only, research use (the articles are the BBC's). `folder` holds
    `News Articles/<topic>/NNN.txt` (title line, blank line, paragraphs) and `Summaries/<topic>/NNN.txt`. The
    source keeps that layout: the title line and the paragraphs, each paragraph's whitespace collapsed. The
    summaries' sentences are glued ("...$10.9bn.For the full-year..."): a space goes back after each end
    punctuation followed by a capital. Validation (for choosing settings) and test are disjoint."""
    rows = []
    for path in sorted(glob.glob(os.path.join(folder, "News Articles", "*", "*.txt"))):
        topic, name = path.split(os.sep)[-2:]
        summary = os.path.join(folder, "Summaries", topic, name)
        if not os.path.exists(summary):
            continue
        text = open(path, encoding="utf-8", errors="replace").read()
        paragraphs = [normalize(p) for p in re.split(r"\n\s*\n", text) if p.strip()]
        target = normalize(SENTENCE_GLUE.sub(r"\1 ", open(summary, encoding="utf-8", errors="replace").read()))
        if len(paragraphs) < 2 or not target:
            continue
        rows.append(
            {"domain": "bbc", "id": f"bbc-{topic}-{name[:-4]}", "source": "\n\n".join(paragraphs), "target": target}
        )
    val, _, test = split(rows, n_test, 0, seed=SEED + 2)  # no training part: every article not in test validates
    return val, test


def prepare_second_outlet(out_dir, folder):
    """Adds the second outlet's rows (domain bbc) to the prepared summarize.{val,test}.jsonl, replacing any there."""
    val, test = second_outlet_pairs(folder)
    for part, rows in (("val", val), ("test", test)):
        path = os.path.join(out_dir, f"summarize.{part}.jsonl")
        kept = [l for l in open(path) if json.loads(l)["domain"] != "bbc"] if os.path.exists(path) else []
        with open(path, "w") as f:
            f.writelines(kept)
            for r in rows:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
    print("bbc pairs val/test:", len(val), len(test))


def prepare_llm(out_dir):
    """summarize-llm.{train,val,test}.jsonl beside the prepared pairs (which stay as they are)."""
    parts = llm_news_pairs()
    for part, rows in zip(("train", "val", "test"), parts):
        write_jsonl(os.path.join(out_dir, f"summarize-llm.{part}.jsonl"), rows)
    print("LLM-summary pairs train/val/test:", [len(x) for x in parts])


def gap_sentence_pairs(pairs, chunk_words=240, gaps=2, min_words=6, max_words=22):
    """PEGASUS's gap-sentence generation (Zhang et al. 2020, "Ind-Orig"): in each ~chunk_words window of a
    training article, the `gaps` sentences with the highest ROUGE-1 F1 against the rest of the window are
    removed from it and become the target, in document order (sentences of at most max_words, so the target
    fits whole in the 80 tokens the recipe trains with, --max-tgt 80, not cut mid-sentence). Whole news
    sentences as targets: far more fluent news prose for the decoder than the 6,000 clipped highlights. The
    window fits the encoder's 320-token input, so the sentences come from the text around them. Training
    articles only."""

    def unigrams(s):
        return Counter(w.lower() for w in re.findall(r"[A-Za-z0-9']+", s))

    def f1(a, b):
        hit = sum((a & b).values())
        return 0.0 if not hit else 2 * hit / (sum(a.values()) + sum(b.values()))

    out = []
    for p in pairs:
        sents = SENTENCE.split(p["source"])
        windows, cur, n = [], [], 0
        for s in sents:
            cur.append(s)
            n += len(s.split())
            if n >= chunk_words:
                windows.append(cur)
                cur, n = [], 0
        if len(cur) >= 4:
            windows.append(cur)
        for k, win in enumerate(windows):
            grams = [unigrams(s) for s in win]
            total = sum(grams, Counter())
            scored = sorted(
                (f1(g, total - g), i) for i, g in enumerate(grams) if min_words <= len(win[i].split()) <= max_words
            )
            chosen = sorted(i for _, i in scored[-gaps:])
            if len(chosen) < gaps:
                continue
            out.append(
                {
                    "domain": "news",
                    "id": f"{p['id']}:gsg{k}",
                    "source": " ".join(s for i, s in enumerate(win) if i not in chosen),
                    "target": " ".join(win[i] for i in chosen),
                }
            )
    return out


def prepare_gsg(out_dir, news_train=None):
    """summarize-gsg.train.jsonl beside the prepared pairs: gap-sentence pairs of the news training split
    (`news_train`, when the caller has read it already)."""
    rows = gap_sentence_pairs(cnn_pairs()[0] if news_train is None else news_train)
    write_jsonl(os.path.join(out_dir, "summarize-gsg.train.jsonl"), rows)
    print("gap-sentence pairs (news train):", len(rows))


def dialogsum_pairs():
    out = []
    for part in ("train", "dev", "test"):
        rows = [json.loads(l) for l in open(os.path.join(SHARED, f"data/dialogsum/dialogsum.{part}.jsonl"))]
        out.append(
            [
                {
                    "domain": "dialogue",
                    "id": r["fname"],
                    "source": normalize(r["dialogue"]),
                    "target": normalize(r["summary"] if "summary" in r else r["summary1"]),
                }
                for r in rows
            ]
        )
    return out[0], out[1], out[2]


def fetch_debian_translations(workdir):
    """Long package descriptions (Translation-en) without touching the system's apt lists (apt lists of
    its own under .data/LISTS)."""
    out = os.path.join(workdir, "Translation-en.txt")
    if os.path.exists(out) and os.path.getsize(out) > 1_000_000:
        return out
    lists = os.path.join(workdir, "LISTS")
    os.makedirs(os.path.join(lists, "partial"), exist_ok=True)
    subprocess.run(["chmod", "-R", "777", lists], check=True)
    subprocess.run(
        ["apt-get", "update", "-o", "Acquire::Languages=en", "-o", f"Dir::State::Lists={lists}"],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    files = glob.glob(os.path.join(lists, "*bookworm_main_i18n_Translation-en*"))
    with open(out, "wb") as f:
        subprocess.run(["/usr/lib/apt/apt-helper", "cat-file", files[0]], check=True, stdout=f)
    return out


def debian_pairs(workdir):
    """Long description -> one-line synopsis, deduplicated."""
    text = open(fetch_debian_translations(workdir), encoding="utf-8", errors="replace").read()
    seen, pairs = set(), []
    for stanza in text.split("\n\n"):
        m = re.search(r"^Description-en: (.*)$((?:\n .*)*)", stanza, re.M)
        pkg = re.search(r"^Package: (.*)$", stanza, re.M)
        if not m:
            continue
        synopsis = normalize(m.group(1))
        body = [l[1:] for l in m.group(2).split("\n")[1:]]
        body = " ".join("" if l.strip() == "." else l for l in body)
        body = normalize(body)
        n = len(body.split())
        if n < 20 or n > 400 or len(synopsis.split()) < 2:
            continue
        key = (synopsis.lower(), body[:200])
        if key in seen:
            continue
        seen.add(key)
        pairs.append({"domain": "tech", "id": pkg.group(1) if pkg else "", "source": body, "target": synopsis})
    return split(pairs, 500, 300)


def wikitext_paragraphs():
    out = []
    for f in glob.glob(os.path.join(SHARED, "data/wikitext2_paragraphs/*.tokens")):
        for line in open(f, encoding="utf-8"):
            line = line.strip()
            if not line or line.startswith("="):
                continue
            line = line.replace(" @-@ ", "-").replace(" @,@ ", ",").replace(" @.@ ", ".")
            line = re.sub(r" ([.,;:!?')])", r"\1", line).replace("( ", "(")
            if len(line.split()) >= 30:
                out.append(normalize(line))
    return out


def fairy_tale_paragraphs():
    """(tale id, its paragraphs of 20 words or more, normalized) for every tale of FairytaleQA."""
    for n, line in enumerate(
        open(os.path.join(SHARED, "data/fairytaleqa/fairytale_stories_278.jsonl"), encoding="utf-8")
    ):
        r = json.loads(line)
        text = r.get("story") or r.get("text") or r.get("content") or ""
        if isinstance(text, list):
            text = "\n\n".join(map(str, text))
        yield str(r.get("id", n)), [normalize(p) for p in re.split(r"\n\s*\n", text) if len(p.split()) >= 20]


def story_paragraphs():
    return [p for _, paras in fairy_tale_paragraphs() for p in paras]


STOP = set(
    """a about above after again against all am an and any are as at be because been before being below
between both but by can could did do does doing down during each few for from further had has have having he her
here hers herself him himself his how i if in into is it its itself just me more most my myself no nor not now of
off on once only or other our ours ourselves out over own same she should so some such than that the their theirs
them themselves then there these they this those through to too under until up very was we were what when where
which while who whom why will with would you your yours yourself yourselves also said one two new may like get
use used using make many much well even back still way first last year years time says told""".split()
)
WORD = re.compile(r"[a-z][a-z'-]{2,}")


def bow_vocabulary(docs, size):
    df = Counter()
    for d in docs:
        df.update(set(w for w in WORD.findall(d.lower()) if w not in STOP))
    n = len(docs)
    # Ties in document frequency by the word, so that the list does not depend on the order of a set
    # (string hashing differs between Python runs: two prepares gave 66 of 2,000 places swapped).
    words = [w for w, c in sorted(df.items(), key=lambda x: (-x[1], x[0])) if c <= 0.5 * n][:size]
    return words


def count_boilerplate():
    """What the boilerplate filter takes from the news the recipes read: every cnn_stories article (the
    training split is what loses it) and the LLM-summary pairs' training articles."""

    def count(name, articles):
        hits = [[s for s in sentences_of(normalize(a)) if is_boilerplate(s)] for a in articles]
        words = sum(len(normalize(a).split()) for a in articles)
        gone = sum(len(s.split()) for h in hits for s in h)
        print(
            f"{name}: {sum(map(len, hits)):,} sentences in {sum(1 for h in hits if h):,} of {len(articles):,} articles,"
            f" {gone:,} of {words:,} words ({100 * gone / words:.1f} %)"
        )

    with open(os.path.join(SHARED, "data/cnn_stories/cnn_6500.jsonl")) as fh:
        count("cnn_stories (all)", [json.loads(line)["article"] for line in fh])
    with open(os.path.join(SHARED, "data/cnn_dm_llm_summaries/cnndm_articles_llm_summaries.jsonl")) as fh:
        train = split([json.loads(line) for line in fh], 100, 50)[0]
    count("cnn_dm_llm_summaries (train)", [r["article"] for r in train])


def prepare(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    cnn, dlg, deb = cnn_pairs(), dialogsum_pairs(), debian_pairs(out_dir)
    held_out = ([],) + held_out_outlet_pairs()  # evaluation only: no training part
    for i, part in enumerate(("train", "val", "test")):
        rows = cnn[i] + dlg[i] + deb[i] + held_out[i]
        write_jsonl(
            os.path.join(out_dir, f"summarize.{part}.jsonl"),
            [without_update_marker(r) for r in rows] if part == "train" else rows,
        )
    # Pretraining corpus: only training parts of the summarization sets, so no test text is seen.
    corpus = [r["source"] for r in cnn[0] + dlg[0] + deb[0]] + [r["target"] for r in cnn[0] + dlg[0] + deb[0]]
    corpus += wikitext_paragraphs() + story_paragraphs()
    random.Random(SEED).shuffle(corpus)
    with open(os.path.join(out_dir, "corpus.txt"), "w") as f:
        for line in corpus:
            f.write(line + "\n")
    vocab = bow_vocabulary([r["source"] for r in cnn[0] + dlg[0] + deb[0]], 2000)
    json.dump(vocab, open(os.path.join(out_dir, "bow_vocab.json"), "w"))
    sizes = {
        k: [len(x) for x in v] for k, v in (("news", cnn), ("dialogue", dlg), ("tech", deb), ("dailymail", held_out))
    }
    print("pairs train/val/test:", sizes, "corpus paragraphs:", len(corpus))
    prepare_gsg(out_dir, cnn[0])


if __name__ == "__main__":
    import sys

    # python3 -m draftsmith_train.data [OUT]; python3 -m draftsmith_train.data prepare-bbc OUT FOLDER (needs no torch);
    # python3 -m draftsmith_train.data count-boilerplate
    if sys.argv[1:2] == ["prepare-bbc"]:
        prepare_second_outlet(sys.argv[2], sys.argv[3])
    elif sys.argv[1:2] == ["count-boilerplate"]:
        count_boilerplate()
    else:
        prepare(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "../../../.data"))
