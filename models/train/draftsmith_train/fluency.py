"""Fluency of model outputs and of the human references of the same items.

Reads the JSON lines that `draftsmith eval SYSTEM --dump FILE` writes, one per test item and
variant: {system, variant, id, domain?, source, output, references: [...]}, and prints a Markdown
table with one row per variant's outputs and one for the references (each distinct item once):

  grammatical   share of sentences of 3-40 words that link-grammar (dictionary `en`) parses
                completely, with no null link. Sentences outside 3-40 words are not counted. Each
                parse asks for up to 1,000 linkages (with linkage_limit=1 correct sentences often come
                out unparsed) and stops after --parse-seconds (a sentence that runs out of time
                counts as not parsed; the count of those is printed under the table).
  non-words     share of alphabetic tokens that hunspell en_US rejects (`hunspell -d en_US -l`,
                all distinct words in one batch), leaving out tokens with digits, URLs, and
                capitalised words that do not open a sentence (names); a lower-case word whose
                capitalised form hunspell accepts ("i'm", "paris") is wrong case, not a non-word.
                en_US rejects British spellings: a little noise (0.003-0.012 on human text).
  rep-4         seq-rep-4 (Welleck et al. 2019, "Neural text generation with unlikelihood
                training"): per text, 1 - distinct word 4-grams / word 4-grams (lower-cased words,
                punctuation dropped), averaged over the texts that have a 4-gram.
  rep. words    share of words that repeat the word just before them ("the the"), pooled.
  leakage       share of texts containing a word 8-gram (lower-cased [a-z0-9]+ words, LEAK_N = 8)
                that at least LEAK_MIN_TEXTS = 5 training texts of another domain hold, no training
                text of the item's own domain holds, and the item's input does not hold: another
                domain's boilerplate ("this package provides the development files for the" in a
                news essay). Eight words and five texts keep common phrases out ("i don t know what
                i am going" is in a few stories and dialogues alike); excluding the own domain's
                n-grams keeps out the English that all domains share.

A text with no capital letter at all gets sentence case first (sentence_case). Sentences are split
with roundtrip_data.split_sentences (a simple rule: '.', '!' or '?' before a
capital, abbreviations kept). Domains are content domains, not systems: news (CNN), tech (Debian
package descriptions), story (ROCStories, Story Cloze, fairy tales, WritingPrompts, simple stories),
wiki (WikiText) and dialogue (Cornell, PersonaChat, DailyDialog). An item's own domain is its
`domain` field (the summarize/essay domain, the round-trip source) or, without one, the system's
(story -> story, reply -> dialogue). The training text of each domain is read once from the
recipes' *.train.jsonl under --data (after each recipe's `prepare`) and kept as a sorted array of
64-bit n-gram hashes under --cache (.work/fluency/ngrams, ignored by git); delete it after a
`prepare` that changes the data.

Run with Debian's /usr/bin/python3 (python3-link-grammar, hunspell, hunspell-en-us):
  /usr/bin/python3 -m draftsmith_train.fluency .work/fluency/essay.jsonl --data ../../.data [--limit N]
or models/train/fluency.sh SYSTEM, which writes the dump first.
"""
import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import time

import numpy as np

LEAK_N = 8
LEAK_MIN_TEXTS = 5  # an n-gram is another domain's boilerplate when at least this many of its training texts hold it
REP_N = 4
MIN_WORDS, MAX_WORDS = 3, 40
DOMAINS = ("news", "tech", "story", "wiki", "dialogue")
# An item's `domain` (or round-trip source, or reply source) -> content domain.
DOMAIN_OF = {
    "news": "news",
    "cnn": "news",
    "tech": "tech",
    "debian": "tech",
    "wiki": "wiki",
    "story": "story",
    "roc": "story",
    "cloze": "story",
    "fairy": "story",
    "wp": "story",
    "simple": "story",
    "tinystories": "story",
    "tiny": "story",
    "dialogue": "dialogue",
    "cornell": "dialogue",
    "personachat": "dialogue",
    "dailydialog": "dialogue",
}
SYSTEM_DOMAIN = {"story": "story", "reply": "dialogue"}

try:
    from .roundtrip_data import split_sentences
except Exception:  # the recipe module could not load (being edited): the same rule, without its normalizing
    _END = re.compile(r"""([.!?]+["'”’)\]]*)\s+(?=["'“‘(\[]?[A-Z0-9])""")

    def split_sentences(text):
        return [s.strip() for s in _END.sub(lambda m: m.group(1) + "\n", text).split("\n") if s.strip()]


def sentence_case(text):
    """A text with no capital letter at all (PersonaChat's lower-cased turns, and what models trained on
    them write) gets its case back before it is split and judged: the first letter, every letter after
    '.', '!' or '?' and a space, and the pronoun i ("i'm" -> "I'm"). Cased text is left as it is."""
    if any(c.isupper() for c in text):
        return text
    text = re.sub(r"(^|[.!?][\"')\]]*\s+)([a-z])", lambda m: m.group(1) + m.group(2).upper(), text.strip())
    return re.sub(r"\bi\b(?=$|[\s',.!?;:])", "I", text)


def domain_of(item):
    d = item.get("domain")
    if d:
        return DOMAIN_OF.get(d, d)
    return SYSTEM_DOMAIN.get(item.get("system", ""), item.get("system", ""))


# ---------------------------------------------------------------- n-grams (leakage, repetition)

_LEAK_WORD = re.compile(r"[a-z0-9]+")
_MASK = (1 << 64) - 1
_P = np.uint64(1099511628211)  # FNV prime, as the polynomial base
_word_hash_cache = {}


def leak_words(text):
    return _LEAK_WORD.findall(text.lower().replace("’", "'"))


def _word_hash(w):
    h = _word_hash_cache.get(w)
    if h is None:
        h = int.from_bytes(hashlib.blake2b(w.encode(), digest_size=8).digest(), "little")
        _word_hash_cache[w] = h
    return h


def ngram_hashes(words, n=LEAK_N):
    """A stable 64-bit hash of every word n-gram: sum of word hashes times P^k, mod 2^64."""
    if len(words) < n:
        return np.zeros(0, dtype=np.uint64)
    wh = np.fromiter((_word_hash(w) for w in words), dtype=np.uint64, count=len(words))
    m = len(words) - n + 1
    out = np.zeros(m, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for k in range(n):
            out = out * _P + wh[k : k + m]
    return out


def domain_texts(data_dir):
    """Yield (domain, text) for every training text under data_dir that the recipes wrote."""

    def rows(name):
        path = os.path.join(data_dir, name)
        if not os.path.exists(path):
            return
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    yield json.loads(line)

    for r in rows("summarize.train.jsonl"):
        yield DOMAIN_OF.get(r["domain"], r["domain"]), r["source"] + "\n" + r["target"]
    for r in rows("essay.train.jsonl"):
        yield DOMAIN_OF.get(r["domain"], r["domain"]), r["text"]
    for r in rows("roundtrip.train.jsonl"):
        yield DOMAIN_OF.get(r["source"], r["source"]), " ".join(r["sentences"])
    for r in rows(os.path.join("simple", "roundtrip.train.jsonl")):
        yield "story", " ".join(r["sentences"])
    for r in rows("story.train.jsonl"):
        yield "story", r["prompt"] + "\n" + r["story"]
    for r in rows("reply.train.jsonl"):
        yield "dialogue", r["post"] + "\n" + r["reply"]


def _merge(values, counts):
    """Sorted distinct values with their summed counts."""
    order = np.argsort(values, kind="stable")
    values, counts = values[order], counts[order]
    if len(values) == 0:
        return values, counts
    starts = np.flatnonzero(np.r_[True, values[1:] != values[:-1]])
    return values[starts], np.add.reduceat(counts, starts).astype(np.uint32)


def ngram_sets(data_dir, cache_dir, log):
    """Per domain: the sorted, distinct LEAK_N-gram hashes of its training text and, aligned with them,
    how many training texts hold each; cached as .npy files."""
    os.makedirs(cache_dir, exist_ok=True)
    paths = {
        d: (os.path.join(cache_dir, f"{d}.{LEAK_N}gram.npy"), os.path.join(cache_dir, f"{d}.{LEAK_N}gram.texts.npy"))
        for d in DOMAINS
    }
    if not all(os.path.exists(p) for pair in paths.values() for p in pair):
        t0 = time.time()
        parts = {d: [] for d in DOMAINS}
        folded = {d: (np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=np.uint32)) for d in DOMAINS}
        pending = {d: 0 for d in DOMAINS}
        for d, text in domain_texts(data_dir):
            if d not in parts:
                continue
            parts[d].append(np.unique(ngram_hashes(leak_words(text))))  # once per text
            pending[d] += len(parts[d][-1])
            if pending[d] > 8_000_000:  # keep memory bounded: fold into the sorted, counted part
                new = np.concatenate(parts[d])
                folded[d] = _merge(
                    np.concatenate([folded[d][0], new]),
                    np.concatenate([folded[d][1], np.ones(len(new), dtype=np.uint32)]),
                )
                parts[d], pending[d] = [], 0
        for d in DOMAINS:
            new = np.concatenate(parts[d]) if parts[d] else np.zeros(0, dtype=np.uint64)
            values, counts = _merge(
                np.concatenate([folded[d][0], new]), np.concatenate([folded[d][1], np.ones(len(new), dtype=np.uint32)])
            )
            np.save(paths[d][0], values)
            np.save(paths[d][1], counts)
            log(
                f"leakage: {d} training text has {len(values):,} distinct {LEAK_N}-grams, "
                f"{int((counts >= LEAK_MIN_TEXTS).sum()):,} of them in {LEAK_MIN_TEXTS}+ texts"
            )
        log(f"leakage: n-gram sets built in {time.time() - t0:.0f} s under {cache_dir}")
    return {d: (np.load(v, mmap_mode="r"), np.load(c, mmap_mode="r")) for d, (v, c) in paths.items()}


def text_counts(domain_set, keys):
    """How many of the domain's training texts hold each key (0: none)."""
    values, counts = domain_set
    if len(values) == 0 or len(keys) == 0:
        return np.zeros(len(keys), dtype=np.uint32)
    i = np.searchsorted(values, keys)
    i[i >= len(values)] = len(values) - 1
    return np.where(np.asarray(values[i]) == keys, np.asarray(counts[i]), 0)


def leaks(text, source, own, sets):
    """The leaked n-grams of `text`, as words joined by spaces (an empty list when none)."""
    words = leak_words(text)
    h = ngram_hashes(words)
    if len(h) == 0:
        return []
    keep = ~np.isin(h, ngram_hashes(leak_words(source)))
    if own in sets:
        keep &= text_counts(sets[own], h) == 0
    other = np.zeros(len(h), dtype=bool)
    for d, dset in sets.items():
        if d != own:
            other |= text_counts(dset, h) >= LEAK_MIN_TEXTS
    return list(dict.fromkeys(" ".join(words[i : i + LEAK_N]) for i in np.flatnonzero(keep & other)))


def seq_rep(words, n=REP_N):
    grams = [tuple(words[i : i + n]) for i in range(len(words) - n + 1)]
    return None if not grams else 1 - len(set(grams)) / len(grams)


# ---------------------------------------------------------------- grammar and spelling


class _LocalGrammar:
    def __init__(self, seconds):
        os.environ.setdefault("LC_ALL", "C.UTF-8")
        import linkgrammar as lg

        self.lg = lg
        self.seconds = seconds
        # The library prints its locale notes when the dictionary loads (to stdout and stderr): keep the table clean.
        sys.stdout.flush()
        sys.stderr.flush()
        saved = os.dup(1), os.dup(2)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        try:
            self.dictionary = lg.Dictionary("en")
        finally:
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            for fd in (*saved, devnull):
                os.close(fd)
        self.options = lg.ParseOptions(
            linkage_limit=1000, max_parse_time=seconds, min_null_count=0, max_null_count=0, verbosity=0
        )
        self.cache = {}
        self.timeouts = 0

    def parses(self, sentence):
        if sentence not in self.cache:
            t0 = time.time()
            linkages = self.lg.Sentence(sentence, self.dictionary, self.options).parse()
            ok = linkages is not None and len(linkages) > 0
            if not ok and time.time() - t0 >= 0.9 * self.seconds:
                self.timeouts += 1
            self.cache[sentence] = ok
        return self.cache[sentence]


def _grammar_worker(conn, seconds):
    g = _LocalGrammar(seconds)
    while True:
        sentence = conn.recv()
        if sentence is None:
            return
        conn.send((g.parses(sentence), g.timeouts))


class Grammar:
    """link-grammar in a child process: the library aborts the whole process on some inputs (an assertion
    in flatten_wordgraph, "Extra word", seen on model output), so a sentence that kills the child counts as
    not parsed (and in `crashes`) and a new child takes over."""

    def __init__(self, seconds):
        self.seconds = seconds
        self.cache = {}
        self.timeouts = 0
        self.crashes = 0
        self._child = None

    def _start(self):
        import multiprocessing as mp

        ctx = mp.get_context("fork")
        self._conn, child_conn = ctx.Pipe()
        self._child = ctx.Process(target=_grammar_worker, args=(child_conn, self.seconds), daemon=True)
        self._child.start()
        self._base_timeouts = self.timeouts

    def parses(self, sentence):
        if sentence not in self.cache:
            if self._child is None or not self._child.is_alive():
                self._start()
            try:
                self._conn.send(sentence)
                ok, timeouts = self._conn.recv()
                self.timeouts = self._base_timeouts + timeouts
            except (EOFError, OSError, BrokenPipeError):
                self._child.join(1)
                self._child = None
                self.crashes += 1
                ok = False
            self.cache[sentence] = ok
        return self.cache[sentence]


_TOKEN_EDGE = re.compile(r"^[^\w]+|[^\w]+$")
_ALPHA = re.compile(r"^[A-Za-z]+(?:'[A-Za-z]+)?$")


def spell_tokens(sentence):
    """The tokens hunspell judges: alphabetic, no digits, not a capitalised word inside the sentence."""
    out = []
    for i, raw in enumerate(sentence.replace("’", "'").split()):
        t = _TOKEN_EDGE.sub("", raw)
        if not t or any(c.isdigit() for c in t) or "/" in t or "@" in t or "." in t:
            continue
        for j, part in enumerate(p for p in t.split("-") if p):
            if re.search(r"'s$", part):
                part = part[:-2]
            if not _ALPHA.match(part):
                continue
            if part[0].isupper() and (i > 0 or j > 0):
                continue
            out.append(part)
    return out


def hunspell_rejects(words):
    """The words hunspell rejects both as written and capitalised (lower-cased text, as PersonaChat's and
    the reply model's, writes "i'm" and lower-case names: wrong case, not non-words)."""
    words = sorted(set(words))
    if not words:
        return set()
    cap = {w: w[:1].upper() + w[1:] for w in words}
    asked = sorted(set(words) | set(cap.values()))
    r = subprocess.run(
        ["hunspell", "-d", "en_US", "-l"], input="\n".join(asked) + "\n", capture_output=True, text=True, check=True
    )
    rejected = set(r.stdout.split())
    return {w for w in words if w in rejected and cap[w] in rejected}


def sentence_words(sentence):
    return [w for w in sentence.split() if re.search(r"[A-Za-z0-9]", w)]


# ---------------------------------------------------------------- scoring


def score(texts, grammar, sets, log, label):
    """texts: (text, source, own domain). The row's numbers and what goes into them."""
    sents = parsed = 0
    checked, rep_values, repeated, words_total, leaked, leak_examples = [], [], 0, 0, 0, []
    t0 = time.time()
    for k, (text, source, own) in enumerate(texts):
        for s in split_sentences(sentence_case(text)):
            n = len(sentence_words(s))
            if MIN_WORDS <= n <= MAX_WORDS:
                sents += 1
                parsed += grammar.parses(s)
            checked.extend(spell_tokens(s))
        words = leak_words(text)
        r = seq_rep(words)
        if r is not None:
            rep_values.append(r)
        repeated += sum(1 for a, b in zip(words, words[1:]) if a == b)
        words_total += len(words)
        if sets is not None:
            found = leaks(text, source, own, sets)
            if found:
                leaked += 1
                if len(leak_examples) < 5:
                    leak_examples.append(found[0])
        if (k + 1) % 100 == 0:
            log(f"{label}: {k + 1}/{len(texts)} texts, {time.time() - t0:.0f} s")
    bad = hunspell_rejects(checked)
    return {
        "grammatical": parsed / sents if sents else float("nan"),
        "nonwords": sum(1 for w in checked if w in bad) / len(checked) if checked else float("nan"),
        "rep4": sum(rep_values) / len(rep_values) if rep_values else float("nan"),
        "repeated": repeated / words_total if words_total else float("nan"),
        "leakage": leaked / len(texts) if texts else float("nan"),
        "sentences": sents,
        "texts": len(texts),
        "tokens": len(checked),
        "examples": sorted({w for w in checked if w in bad})[:12],
        "leaked": leak_examples,
    }


def load(path, limit):
    items = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                items.append(json.loads(line))
    variants = {}
    for it in items:
        variants.setdefault(it.get("variant", "model"), []).append(it)
    if limit:
        variants = {v: its[:limit] for v, its in variants.items()}
    return variants


def table(rows, system, n_items):
    f = lambda x, d: "–" if x != x else f"{x:.{d}f}"  # noqa: E731
    out = [
        "| text | grammatical | non-words | rep-4 | repeated words | leakage | sentences (3–40 words) / texts |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name, r in rows:
        out.append(
            f"| {name} | {f(r['grammatical'], 2)} | {f(r['nonwords'], 3)} | {f(r['rep4'], 3)} | "
            f"{f(r['repeated'], 3)} | {f(r['leakage'], 3)} | {r['sentences']} / {r['texts']} |"
        )
    out += [
        "",
        (
            f"{system}: {n_items} held-out test items. grammatical: link-grammar `en` complete parse, no null "
            "link; non-words: hunspell en_US rejects / alphabetic tokens (names and digits left out); rep-4: "
            "seq-rep-4 mean over texts; repeated words: a word equal to the one before / words; leakage: texts "
            f"with a word {LEAK_N}-gram of {LEAK_MIN_TEXTS}+ training texts of another domain (in none of the own "
            "domain's, not in the input) / texts."
        ),
    ]
    return "\n".join(out)


BEGIN, END = "<!-- fluency:begin -->", "<!-- fluency:end -->"


def update_card(card, report, command, notes, eval_table):
    """Replace the card's fluency block (or append a section with one) with this run's tables."""
    block = [
        BEGIN,
        f"Measured {time.strftime('%Y-%m-%d', time.gmtime())}" + (f" with `{command}`" if command else "") + ":",
        "",
        report[0],
    ]
    if len(report) > 1:
        block += ["", "By domain:", "", report[1]]
    block += [""] + notes
    if eval_table:
        block += ["", "The eval's own table, same run and items:", "", eval_table.strip()]
    block += [END]
    text = open(card, encoding="utf-8").read()
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        text = head + "\n".join(block) + rest.split(END, 1)[1]
    else:
        text = text.rstrip("\n") + "\n\n## Fluency\n\n" + "\n".join(block) + "\n"
    with open(card, "w", encoding="utf-8") as f:
        f.write(text)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dump", help="JSON lines from `draftsmith eval SYSTEM --dump FILE`")
    ap.add_argument(
        "--data", default=None, help="the recipes' data folder (*.train.jsonl), for leakage; none: no leakage"
    )
    ap.add_argument(
        "--cache",
        default=None,
        help="where the n-gram sets are kept (default: .work/fluency/ngrams/<the data folder's key>)",
    )
    ap.add_argument("--limit", type=int, default=0, help="at most this many items per variant (0: all)")
    ap.add_argument("--parse-seconds", type=int, default=3, help="link-grammar's time cap per sentence")
    ap.add_argument("--json", default=None, help="also write the numbers to this JSON file")
    ap.add_argument(
        "--card",
        default=None,
        help=(
            "a MODEL_CARD.md whose block between <!-- fluency:begin --> and "
            "<!-- fluency:end --> gets the tables, the date and --command (appended as a section when absent)"
        ),
    )
    ap.add_argument("--command", default=None, help="the command that made the dump, for --card")
    ap.add_argument("--eval-table", default=None, help="the eval's own table (its standard output), for --card")
    a = ap.parse_args(argv)
    log = lambda m: print(m, file=sys.stderr, flush=True)  # noqa: E731
    variants = load(a.dump, a.limit)
    if not variants:
        sys.exit(f"{a.dump}: no items")
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
    sets = None
    if a.data:
        # one cache per data folder: the sets of another folder's training text would be read silently
        key = hashlib.sha1(os.path.abspath(a.data).encode()).hexdigest()[:10]
        sets = ngram_sets(a.data, a.cache or os.path.join(root, ".work", "fluency", "ngrams", key), log)
    grammar = Grammar(a.parse_seconds)
    rows, system = [], None
    refs = {}
    for name, items in variants.items():
        system = items[0].get("system", "?")
        texts = [(it["output"], it.get("source", ""), domain_of(it)) for it in items]
        rows.append((f"model outputs ({name})", score(texts, grammar, sets, log, name)))
        for it in items:
            refs.setdefault(str(it.get("id")), it)
    ref_texts = [
        (r, it.get("source", ""), domain_of(it)) for it in refs.values() for r in it.get("references", []) if r
    ]
    rows.append(("human references", score(ref_texts, grammar, sets, log, "references")))
    report = [table(rows, system, len(refs))]
    print(report[0])
    main_rows = list(rows)
    # Per domain too when the split has several (news vs technical synopses, the round-trip sources).
    domains = sorted({it.get("domain") for it in refs.values() if it.get("domain")})
    if len(domains) > 1:
        by = []
        for d in domains:
            for name, items in variants.items():
                texts = [(it["output"], it.get("source", ""), domain_of(it)) for it in items if it.get("domain") == d]
                by.append((f"{d}: model outputs ({name})", score(texts, grammar, sets, lambda m: None, d)))
            texts = [
                (r, it.get("source", ""), domain_of(it))
                for it in refs.values()
                if it.get("domain") == d
                for r in it.get("references", [])
                if r
            ]
            by.append((f"{d}: human references", score(texts, grammar, sets, lambda m: None, d)))
        report.append(table(by, system, len(refs)).split("\n\n")[0])
        print("\nBy domain:\n")
        print(report[-1])
        rows += by
    notes = [
        "Non-words seen (the first 12 per row, alphabetically): "
        + "; ".join(f"{n}: {', '.join(r['examples']) or 'none'}" for n, r in main_rows)
        + "."
    ]
    if any(r["leaked"] for _, r in main_rows):
        notes.append(
            "Leaked n-grams (one per text, the first 5 texts per row): "
            + "; ".join(f"{n}: " + " / ".join(f'"{g}"' for g in r["leaked"]) for n, r in main_rows if r["leaked"])
            + "."
        )
    print("\n" + "\n".join(notes))
    if grammar.crashes:
        print(
            f"{grammar.crashes} sentences crashed link-grammar (an assertion in the library) and count as not parsed."
        )
    if grammar.timeouts:
        print(f"{grammar.timeouts} sentences ran out of parse time ({a.parse_seconds} s) and count as not parsed.")
    if a.card:
        eval_table = open(a.eval_table, encoding="utf-8").read() if a.eval_table else None
        update_card(a.card, report, a.command, notes, eval_table)
    if a.json:
        with open(a.json, "w", encoding="utf-8") as f:
            json.dump({n: r for n, r in rows}, f, indent=1)


if __name__ == "__main__":
    main()
