"""Prompt -> story pairs, the premise corpus and the language-model text for the story system
(Fan, Lewis & Dauphin 2018, "Hierarchical Neural Story Generation").

Sources (../shared/data, see its README for terms):
  wp     WritingPrompts prompt -> story (union_wp_roc, 312 pairs, stories cut at <=200 words)
  roc    ROCStories first sentence -> the other four (union_wp_roc, 4,909 stories, lower-cased,
         names masked as [MALE]/[FEMALE]/[NEUTRAL]: we restore case and draw a name per story)
  cloze  Story Cloze five-sentence stories (validation, with the right ending) and four-sentence
         stories (test, unlabelled): first sentence -> the rest
  fairy  public-domain fairy tales: a tale's opening sentence(s) -> the next ~150 words, then the
         last sentences of each window -> the next ~150 words, several windows per tale (this is
         what "Continue Story" does with the story so far)

Splits are by document, with the fixed seed of data.SEED: a WritingPrompts prompt (some prompts
have 2-4 stories: they stay together), a ROCStories/Cloze story, a fairy tale. No document is in
two parts. WritingPrompts: 60 test and 30 validation stories, the rest (about 220) for training;
see WP_TEST / WP_VAL and the model card.

The premise corpus (what the premise LM learns to write) is the prompts that open a document (a
WritingPrompts prompt, a ROCStories/Cloze first sentence, a tale's opening), one per line; the model
reads <s> premise </s>: the shared tokenizer's EOS (id 3) is the end-of-prompt token, no piece is
added to the tokenizer.

The language-model text (story_lm.*.txt) is the English text already prepared for the other
systems (.data/corpus.txt: news, dialogue, package descriptions, WikiText, fairy tales) without
WikiText paragraphs that contain <unk> and without any paragraph of a validation/test fairy tale,
plus tinyshakespeare and the training stories themselves.

Outputs (in the ignored data folder, names starting with "story"):
  story.{train,val,test}.jsonl         {"domain", "doc", "prompt", "story", "opening"}
  story_premise.{train,val,test}.txt   one premise per line
  story_lm.{train,val}.txt             one paragraph per line
  story_split.json                     the counts and the split rules, for the model card
"""
import array
import csv
import json
import os
import random
import re
from collections import Counter, defaultdict

import numpy as np

from . import tokenizer as T
from .data import SEED, SHARED, normalize, sentences, story_paragraphs

WP_TEST, WP_VAL = 60, 30  # WritingPrompts stories (whole prompt groups) held out
ROC_TEST, ROC_VAL = 400, 200
CLOZE_TEST, CLOZE_VAL = 300, 150
FAIRY_TEST, FAIRY_VAL = 20, 10  # tales
FAIRY_TARGET_WORDS = 150  # "the next ~150 words"
FAIRY_PROMPT_WORDS = 50  # at most this many words of prompt (1-3 sentences)

# Names for the masked ROCStories entities (one drawn per story and placeholder kind).
NAMES = {
    "MALE": (
        "James John Robert Michael David William Richard Joseph Thomas Charles Daniel Matthew Anthony Mark "
        "Paul Steven Andrew Kenneth Joshua Kevin Brian George Tim Ryan Jacob Gary Eric Sam Tom Ben".split()
    ),
    "FEMALE": (
        "Mary Patricia Jennifer Linda Elizabeth Barbara Susan Jessica Sarah Karen Lisa Nancy Betty Sandra "
        "Ashley Emily Donna Michelle Amanda Melissa Anna Laura Kate Amy Julia Emma Olivia Megan Rachel Jane".split()
    ),
    "NEUTRAL": (
        "Alex Jordan Taylor Casey Jamie Morgan Riley Quinn Avery Sky Robin Dana Jesse Kelly Terry Pat "
        "Frankie Charlie Drew Sage".split()
    ),
}


# ---------------------------------------------------------------------------------------------
# Text clean-up
# ---------------------------------------------------------------------------------------------
ATTACH_LEFT = re.compile(r"^(?:[.,!?;:%)\]}]+|\.\.\.|n't|'s|'re|'ve|'ll|'d|'m|'|\u2019(?:s|re|ve|ll|d|m)?|\*)$", re.I)


def detokenize(text: str) -> str:
    """Undo the Moses-style tokenisation of the union_wp_roc files ("I 'm here , `` he said ''")."""
    out, glue, quote_open = [], True, False
    for t in text.split():
        if t in ("``", "\u201c"):
            out.append((" " if out else "") + '"')
            glue, quote_open = True, True
            continue
        if t in ("''", "\u201d"):
            out.append('"')
            glue, quote_open = False, False
            continue
        if t == '"':
            if quote_open:
                out.append('"')
                glue = False
            else:
                out.append((" " if out else "") + '"')
                glue = True
            quote_open = not quote_open
            continue
        if glue or ATTACH_LEFT.match(t):
            out.append(t)
        else:
            out.append(" " + t)
        glue = t in ("(", "[", "$", "#")
    text = "".join(out)
    # Curly apostrophes came apart as "wasn’ t" / "I’ m": join the contraction again.
    text = re.sub(r"(\w[\u2019'])\s+(t|s|m|re|ve|ll|d)\b", r"\1\2", text)
    return normalize(text)


def restore_case(text):
    """ROCStories in union_wp_roc are lower-cased: capitalise sentence starts and the pronoun I."""
    text = re.sub(r"\bi\b", "I", text)
    return re.sub(r"(^|[.!?]\s+)([a-z])", lambda m: m.group(1) + m.group(2).upper(), text)


def unmask_names(text, rng):
    chosen = {}

    def name(m):
        kind = {"FEMAL": "FEMALE"}.get(m.group(1), m.group(1))
        if kind not in chosen:
            chosen[kind] = rng.choice(NAMES[kind])
        return chosen[kind]

    return re.sub(r"\[(MALE|FEMALE|FEMAL|NEUTRAL)\]", name, text)


# ---------------------------------------------------------------------------------------------
# Sources: each returns documents [(doc_id, [pair, ...])]; a pair is {"domain", "doc", "prompt", "story"}
# ---------------------------------------------------------------------------------------------
def lines(path):
    with open(path, encoding="utf-8") as f:
        return [l.rstrip("\n") for l in f]


def writing_prompts():
    base = os.path.join(SHARED, "data/union_wp_roc")
    prompts, stories = lines(f"{base}/WritingPrompts_reference_ipt.txt"), lines(
        f"{base}/WritingPrompts_reference_opt.txt"
    )
    groups = defaultdict(list)  # 312 pairs, 281 distinct prompts: a prompt's stories form one document
    for p, s in zip(prompts, stories):
        if p.strip() and s.strip():
            groups[p.strip()].append(s)
    docs = []
    for i, (p, ss) in enumerate(sorted(groups.items())):
        doc = f"wp-{i}"
        docs.append(
            (
                doc,
                [
                    {"domain": "wp", "doc": doc, "prompt": detokenize(p), "story": detokenize(s), "opening": True}
                    for s in ss
                ],
            )
        )
    return docs


def roc_stories():
    base = os.path.join(SHARED, "data/union_wp_roc")
    rng = random.Random(SEED)
    docs = []
    for i, (p, s) in enumerate(
        zip(lines(f"{base}/ROCStories_reference_ipt.txt"), lines(f"{base}/ROCStories_reference_opt.txt"))
    ):
        if not p.strip() or not s.strip():
            continue
        # One name per placeholder for the whole story, prompt and continuation alike.
        both = unmask_names(p.strip() + " \u2016 " + s.strip(), rng)
        p2, s2 = both.split(" \u2016 ")
        doc = f"roc-{i}"
        docs.append(
            (
                doc,
                [
                    {
                        "domain": "roc",
                        "doc": doc,
                        "prompt": restore_case(detokenize(p2)),
                        "story": restore_case(detokenize(s2)),
                        "opening": True,
                    }
                ],
            )
        )
    return docs


def cloze_stories():
    base = os.path.join(SHARED, "data/storycloze_rocstories")
    docs = []
    for part in ("storycloze_val_1571.csv", "storycloze_test_1571_unlabeled.csv"):
        with open(os.path.join(base, part), encoding="utf-8") as f:
            for i, r in enumerate(csv.DictReader(f)):
                sents = [r[f"InputSentence{k}"] for k in range(1, 5)]
                if "AnswerRightEnding" in r:  # validation: the right fifth sentence is known
                    sents.append(
                        r["RandomFifthSentenceQuiz1" if r["AnswerRightEnding"] == "1" else "RandomFifthSentenceQuiz2"]
                    )
                doc = f"cloze-{part[11:14]}-{i}"
                docs.append(
                    (
                        doc,
                        [
                            {
                                "domain": "cloze",
                                "doc": doc,
                                "prompt": normalize(sents[0]),
                                "story": normalize(" ".join(sents[1:])),
                                "opening": True,
                            }
                        ],
                    )
                )
    return docs


def fairy_tales():
    path = os.path.join(SHARED, "data/fairytaleqa/fairytale_stories_278.jsonl")
    with open(path, encoding="utf-8") as f:
        return [json.loads(l) for l in f]


def fairy_windows(tale):
    return text_windows(tale["text"])


def text_windows(text):
    """Windows over one story: prompt = the opening sentence(s) (later: the last sentences before the
    window), story = the following sentences up to ~FAIRY_TARGET_WORDS words."""
    sents = sentences(text)
    pairs, i = [], 0
    # The opening: sentences until ~25 words (at most FAIRY_PROMPT_WORDS).
    prompt, n = [], 0
    while i < len(sents) and n < 25 and n + len(sents[i].split()) <= FAIRY_PROMPT_WORDS:
        prompt.append(sents[i])
        n += len(sents[i].split())
        i += 1
    if not prompt:
        return []
    while i < len(sents):
        story, n = [], 0
        while i < len(sents) and n < FAIRY_TARGET_WORDS:
            if story and n + len(sents[i].split()) > FAIRY_TARGET_WORDS + 40:
                break
            story.append(sents[i])
            n += len(sents[i].split())
            i += 1
        if n < 40:  # the tail of a tale: too short to be a window
            break
        pairs.append({"prompt": " ".join(prompt), "story": " ".join(story), "opening": not pairs})
        # The next window's prompt: the last one or two sentences of this one (the story so far).
        prompt = story[-2:] if len(" ".join(story[-2:]).split()) <= FAIRY_PROMPT_WORDS else story[-1:]
        if len(" ".join(prompt).split()) > FAIRY_PROMPT_WORDS:
            prompt = [" ".join(" ".join(prompt).split()[-FAIRY_PROMPT_WORDS:])]
    return pairs


def fairy_documents(tales):
    docs = []
    for i, t in enumerate(tales):
        doc = f"fairy-{i}"
        docs.append((doc, [{"domain": "fairy", "doc": doc, **p} for p in fairy_windows(t)]))
    return docs


def split_documents(docs, n_test, n_val, count_pairs=False, seed=SEED):
    """Shuffle documents with a fixed seed; the first go to test, the next to validation. With
    count_pairs, n_test/n_val count pairs (whole documents are taken until the count is reached)."""
    docs = list(docs)
    random.Random(seed).shuffle(docs)
    parts, k = {"test": [], "val": [], "train": []}, 0
    for want, part in ((n_test, "test"), (n_val, "val")):
        got = 0
        while k < len(docs) and got < want:
            parts[part].append(docs[k])
            got += len(docs[k][1]) if count_pairs else 1
            k += 1
    parts["train"] = docs[k:]
    return parts


# ---------------------------------------------------------------------------------------------
# Language-model text
# ---------------------------------------------------------------------------------------------
def shakespeare_paragraphs(min_words=40):
    """tinyshakespeare's speeches joined into paragraphs of >= min_words words (speaker lines kept)."""
    text = open(os.path.join(SHARED, "data/tinyshakespeare/input.txt"), encoding="utf-8").read()
    out, cur = [], []
    for block in re.split(r"\n\s*\n", text):
        cur.append(normalize(block))
        if sum(len(b.split()) for b in cur) >= min_words:
            out.append(" ".join(cur))
            cur = []
    return out


def lm_text(data_dir, held_out_tales, train_pairs, val_pairs):
    held = set()
    for t in held_out_tales:
        held.update(story_paragraphs_of(t))
    train, dropped = [], Counter()
    with open(os.path.join(data_dir, "corpus.txt"), encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if "<unk>" in line:
                dropped["<unk>"] += 1
            elif line in held:
                dropped["held-out tale"] += 1
            elif line:
                train.append(line)
    train += shakespeare_paragraphs()
    train += [p["prompt"] + " " + p["story"] for p in train_pairs]
    val = [p["prompt"] + " " + p["story"] for p in val_pairs]
    random.Random(SEED).shuffle(train)
    return train, val, dropped


def story_paragraphs_of(tale):
    """The same paragraphs data.story_paragraphs() wrote into corpus.txt, for one tale."""
    out = []
    for para in re.split(r"\n\s*\n", tale["text"]):
        if len(para.split()) >= 20:
            out.append(normalize(para))
    return out


# ---------------------------------------------------------------------------------------------
def write_story_files(out_dir, rows, make_lm_text):
    """story.{part}.jsonl, story_premise.{part}.txt and story_lm.{train,val}.txt from the pairs of each
    split; make_lm_text(train_pairs, val_pairs) -> (train paragraphs, val paragraphs, dropped counts)."""
    for part in rows:
        rows[part] = [r for r in rows[part] if r["prompt"] and r["story"]]
        random.Random(SEED).shuffle(rows[part])
        with open(os.path.join(out_dir, f"story.{part}.jsonl"), "w", encoding="utf-8") as f:
            for r in rows[part]:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
        # Premise corpus: the prompts that open a document (not the later fairy-tale windows), each once.
        seen, premises = set(), []
        for r in rows[part]:
            if r["opening"] and r["prompt"] not in seen:
                seen.add(r["prompt"])
                premises.append(r["prompt"])
        with open(os.path.join(out_dir, f"story_premise.{part}.txt"), "w", encoding="utf-8") as f:
            f.write("\n".join(premises) + "\n")
    lm_train, lm_val, dropped = make_lm_text(rows["train"], rows["val"])
    for part, items in (("train", lm_train), ("val", lm_val)):
        with open(os.path.join(out_dir, f"story_lm.{part}.txt"), "w", encoding="utf-8") as f:
            f.write("\n".join(items) + "\n")
    return lm_train, lm_val, dropped


def prepare_story(out_dir):
    tales = fairy_tales()
    sources = {
        "wp": (writing_prompts(), WP_TEST, WP_VAL, True),
        "roc": (roc_stories(), ROC_TEST, ROC_VAL, False),
        "cloze": (cloze_stories(), CLOZE_TEST, CLOZE_VAL, False),
        "fairy": (fairy_documents(tales), FAIRY_TEST, FAIRY_VAL, False),
    }
    rows = {"train": [], "val": [], "test": []}
    counts = {}
    held_tales = []
    for name, (docs, n_test, n_val, by_pairs) in sources.items():
        parts = split_documents(docs, n_test, n_val, count_pairs=by_pairs)
        counts[name] = {part: {"documents": len(ds), "pairs": sum(len(p) for _, p in ds)} for part, ds in parts.items()}
        for part, ds in parts.items():
            for _, pairs in ds:
                rows[part] += pairs
        if name == "fairy":
            idx = {f"fairy-{i}": t for i, t in enumerate(tales)}
            held_tales = [idx[d] for part in ("val", "test") for d, _ in parts[part]]
    lm_train, lm_val, dropped = write_story_files(
        out_dir, rows, lambda train, val: lm_text(out_dir, held_tales, train, val)
    )
    summary = {
        "seed": SEED,
        "counts": counts,
        "pairs": {part: len(r) for part, r in rows.items()},
        "pairs_by_domain": {part: dict(Counter(x["domain"] for x in r)) for part, r in rows.items()},
        "lm_paragraphs": {"train": len(lm_train), "val": len(lm_val)},
        "lm_dropped": dict(dropped),
        "rules": {
            "wp": (
                "312 pairs / 281 distinct prompts; prompt groups shuffled with the seed, the first groups up to "
                f"{WP_TEST} stories are test, the next up to {WP_VAL} validation, the rest training"
            ),
            "roc": f"{ROC_TEST} test / {ROC_VAL} validation stories, the rest training",
            "cloze": (
                f"{CLOZE_TEST} test / {CLOZE_VAL} validation stories (validation set with the right ending and "
                "the unlabelled four-sentence test set pooled), the rest training"
            ),
            "fairy": f"{FAIRY_TEST} test / {FAIRY_VAL} validation tales, all their windows with them",
            "end_of_prompt": "the tokenizer's </s> (id 3)",
        },
    }
    json.dump(summary, open(os.path.join(out_dir, "story_split.json"), "w"), indent=1)
    print(json.dumps({k: summary[k] for k in ("pairs", "pairs_by_domain", "lm_paragraphs", "lm_dropped")}))
    return summary


# ---------------------------------------------------------------------------------------------
# The "simple" corpus: everyday five-sentence stories and simple children's stories, the
# text a model of this size learns to write fluently; the documents, their splits and the 4,000-piece
# tokenizer of `roundtrip prepare --corpus simple` (run that first, into the same folder), so no
# test story of either system was seen by the tokenizer or by the other system's training.
# ---------------------------------------------------------------------------------------------
def prepare_simple_story(out_dir):
    from .roundtrip_data import need_simple_tokenizer, seen_in_training, simple_stories, tiny_stories

    need_simple_tokenizer(out_dir)
    stories = list(simple_stories())  # (split, source, text) per story, in roundtrip's split
    seen = seen_in_training(stories)
    rows, dropped = {"train": [], "val": [], "test": []}, Counter()
    for n, (part, source, text) in enumerate(stories):
        if source == "roc":  # first sentence -> the other four, as in union_wp_roc
            sents = sentences(text)
            pairs = [{"prompt": sents[0], "story": " ".join(sents[1:]), "opening": True}] if len(sents) >= 3 else []
        else:  # a TinyStories story: its opening -> the next ~150 words, and so on
            pairs = [w for story in tiny_stories(text) for w in text_windows(story)]
        for pr in pairs:
            # A held-out window that is mostly training text (the sample repeats some stories) is no test.
            if part != "train" and seen(pr["prompt"] + " " + pr["story"]):
                dropped[f"{source}:{part}"] += 1
                continue
            rows[part].append({"domain": source, "doc": f"{source}-{n}", **pr})

    def lm_text_simple(train_pairs, val_pairs):
        # The language model reads the training stories whole (no other text: the point of this corpus).
        train = [text for part, _, text in stories if part == "train"]
        random.Random(SEED).shuffle(train)
        return train, [p["prompt"] + " " + p["story"] for p in val_pairs], Counter()

    lm_train, lm_val, _ = write_story_files(out_dir, rows, lm_text_simple)
    summary = {
        "seed": SEED,
        "corpus": "simple",
        "pairs": {part: len(r) for part, r in rows.items()},
        "pairs_by_domain": {part: dict(Counter(x["domain"] for x in r)) for part, r in rows.items()},
        "lm_paragraphs": {"train": len(lm_train), "val": len(lm_val)},
        "held_out_dropped_as_training_text": dict(dropped),
        "rules": {
            "dedup": (
                "a validation/test window is left out when half or more of its sentences of 6+ words are in "
                "training stories (the TinyStories sample repeats some stories under other documents)"
            ),
            "split": (
                "by story, a seeded hash of source:doc (5 % test, 5 % validation), as roundtrip prepare --corpus simple"
            ),
            "roc": "ROCStories 5k + Story Cloze: first sentence -> the other sentences",
            "tiny": (
                f"TinyStories: the opening (~25 words) -> the next ~{FAIRY_TARGET_WORDS} words, then the last sentences"
                f" of each window -> the next ~{FAIRY_TARGET_WORDS} words"
            ),
            "end_of_prompt": "the tokenizer's </s> (id 3)",
        },
    }
    json.dump(summary, open(os.path.join(out_dir, "story_split.json"), "w"), indent=1)
    print(
        json.dumps(
            {k: summary[k] for k in ("pairs", "pairs_by_domain", "lm_paragraphs", "held_out_dropped_as_training_text")}
        )
    )
    return summary


if __name__ == "__main__":
    import sys

    prepare_story(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "../../../.data"))


# ---------------------------------------------------------------------------------------------
# Reading the prepared files as ids (story.py trains on them, export_story.py checks against them)
# ---------------------------------------------------------------------------------------------
def read_jsonl(path, limit=0):
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            out.append(json.loads(line))
            if limit and len(out) >= limit:
                break
    return out


def encode_source(sp, prompt, max_src):
    """The prompt's ids + </s>; a prompt too long keeps its END (the story so far ends there)."""
    ids = sp.encode(normalize(prompt))
    return ids[-(max_src - 1) :] + [T.EOS] if max_src > 1 else [T.EOS]


def encode_target(sp, story, max_tgt):
    """<s> story </s>, cut to max_tgt predicted tokens (a cut story has no </s>)."""
    return ([T.BOS] + sp.encode(normalize(story)) + [T.EOS])[: max_tgt + 1]


def load_pairs(sp, data, part, max_src, max_tgt, limit=0):
    rows = read_jsonl(os.path.join(data, f"story.{part}.jsonl"), limit)
    return [(encode_source(sp, r["prompt"], max_src), encode_target(sp, r["story"], max_tgt), r) for r in rows]


def lm_ids(sp, data, part, limit_lines=0):
    """The LM text as one id stream per paragraph, cached next to the text (uint16: vocab < 65536)."""
    text = os.path.join(data, f"story_lm.{part}.txt")
    cache = os.path.join(data, f"story_lm.{part}.ids{'' if not limit_lines else f'-{limit_lines}'}.npz")
    if os.path.exists(cache) and os.path.getmtime(cache) > os.path.getmtime(text):
        z = np.load(cache)
        return z["ids"], z["starts"]
    ids, starts = array.array("H"), [0]  # ~23M ids: 2 bytes each, not a Python int each
    with open(text, encoding="utf-8") as f:
        for i, line in enumerate(f):
            if limit_lines and i >= limit_lines:
                break
            line = line.strip()
            if line:
                ids.extend(sp.encode(line) + [T.EOS])
                starts.append(len(ids))
    ids, starts = np.frombuffer(ids, dtype=np.uint16).copy(), np.array(starts, dtype=np.int64)
    np.savez(cache, ids=ids, starts=starts)
    return ids, starts


def lm_windows(ids, starts, window):
    """<s> + up to `window` tokens of one paragraph (paragraphs end with </s>), as uint16 arrays
    (lists of Python ints would take ~1 GB for the whole text)."""
    out, bos = [], np.array([T.BOS], dtype=np.uint16)
    for a, b in zip(starts[:-1].tolist(), starts[1:].tolist()):
        for s in range(a, b, window):
            if min(b, s + window) - s >= 8:
                out.append(np.concatenate([bos, ids[s : min(b, s + window)]]))
    return out


def premise_sequences(sp, data, part, max_len):
    with open(os.path.join(data, f"story_premise.{part}.txt"), encoding="utf-8") as f:
        return [([T.BOS] + sp.encode(l.strip()) + [T.EOS])[: max_len + 1] for l in f if l.strip()]
