"""Training-text boilerplate (news pages' credits and footers: "CNN's Jane Doe contributed to this report.",
"The opinions expressed in this commentary are solely those of ...", "Click here for ...", "E-mail to a
friend"): the sentences that hold one are taken out of the text the recipes train on, so no model learns to
write them. The phrases are boilerplate.json's, the list the decoding guards ban (bannedWords.ts BOILERPLATE;
test/unit/boilerplateList.test.ts checks the two are the same); a phrase matches whole words, case aside.
"""
import json
import os
import re

with open(os.path.join(os.path.dirname(__file__), "boilerplate.json")) as _f:
    PHRASES = tuple(tuple(p.split()) for p in json.load(_f)["phrases"])

WORD = re.compile(r"[a-z0-9]+")  # the guards' words: "E-mail" is "e mail", as in the list
# A sentence ends after . ! ? (and a closing quote or bracket) before a capital, a digit or an opening quote.
# DailyMail's separators (" . " between a byline's parts, "Scroll down for video ." alone) split here too.
BREAK = re.compile(r"(?<=[.!?])([\"'\u201d\u2019)]?)\s+(?=[\"'\u201c\u2018(]?[A-Z0-9])")


def is_boilerplate(sentence):
    """Whether one of the phrases occurs in the sentence, as consecutive whole words."""
    words = WORD.findall(sentence.lower())
    return any(
        words[i : i + len(p)] == list(p) for p in PHRASES for i in range(len(words) - len(p) + 1) if words[i] == p[0]
    )


# A full stop after one of these ends no sentence ("Mr. Smith contributed to this report." is one).
ABBREVIATION = re.compile(r"(?:^|\s)(?:Mr|Mrs|Ms|Dr|St|Jr|Sr|Sen|Rep|Gov|Gen|Lt|Col|Capt|Sgt|Prof|No|U\.S|[A-Z])\.$")


def sentences_of(line):
    parts = BREAK.split(line)  # text, closing mark, text, ...: the mark stays with the sentence before it
    out = []
    for i in range(0, len(parts), 2):
        s = parts[i] + (parts[i + 1] if i + 1 < len(parts) else "")
        if out and ABBREVIATION.search(out[-1]):
            out[-1] += " " + s
        else:
            out.append(s)
    return out


def strip_boilerplate(text):
    """text without its boilerplate sentences; lines (paragraphs) keep their breaks, a line left empty goes."""
    lines = []
    for line in text.split("\n"):
        kept = [s for s in sentences_of(line) if s.strip() and not is_boilerplate(s)]
        if kept or not line.strip():
            lines.append(" ".join(s.strip() for s in kept))
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
