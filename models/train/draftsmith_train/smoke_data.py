"""A tiny data folder made from the repository's own prose (its Markdown files), for a recipe's smoke run
where the prepared data is absent: CI's fresh clone has neither ../shared/data nor .data. It checks that
the recipe runs end to end (train, eval, export, the ONNX parity check), not what the model learns.

  python3 -m draftsmith_train.smoke_data --out ../../.work/smoke/data
  SMOKE=1 DATA=../../.work/smoke/data bash train_roundtrip.sh

The text: the prose paragraphs of the Markdown files and the comment paragraphs of the .ts, .py and .sh
sources. Writes spm.model / spm.vocab (a small unigram vocabulary), tokenizer/ (the tokenizer.json the
extension loads) and roundtrip.{train,val,test}.jsonl (runs of 2-8 sentences, as roundtrip_data writes).
"""
import argparse
import glob
import json
import os
import re

from . import data as D
from . import tokenizer as T
from .roundtrip_data import split_sentences, windows

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "../../.."))


def paragraphs(path):
    """Prose paragraphs of a Markdown file: no headings, tables, lists of code, fenced blocks."""
    text, fenced, cur = [], False, []
    for line in open(path, encoding="utf-8"):
        s = line.strip()
        if s.startswith("```"):
            fenced = not fenced
            continue
        if fenced or not s or s[0] in "#|>`<" or s.startswith(("- ", "* ", "    ")):
            if cur:
                text.append(" ".join(cur))
                cur = []
            continue
        cur.append(re.sub(r"[`*_\[\]]|\(http[^)]*\)", "", s))
    if cur:
        text.append(" ".join(cur))
    return [D.normalize(p) for p in text if len(p.split()) >= 8]


def comment_paragraphs(path):
    """Runs of comment lines (// or #) in a source file, joined: the code's own English prose."""
    text, cur = [], []
    for line in open(path, encoding="utf-8", errors="replace"):
        m = re.match(r"\s*(//|#)\s?(.*)", line)
        if m and not m.group(2).startswith(("!", " ")) and m.group(2).strip():
            cur.append(m.group(2).strip())
            continue
        if cur:
            text.append(" ".join(cur))
            cur = []
    if cur:
        text.append(" ".join(cur))
    return [D.normalize(p) for p in text if len(p.split()) >= 12]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", required=True)
    p.add_argument("--vocab", type=int, default=2000)
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    files = sorted(glob.glob(os.path.join(REPO, "**", "*.md"), recursive=True))
    files = [f for f in files if not re.search(r"/(node_modules|\.work|\.e2e|\.data|dist)/", f)]
    docs = [(os.path.relpath(f, REPO), paragraphs(f)) for f in files]
    for ext in ("ts", "py", "sh"):
        for f in sorted(glob.glob(os.path.join(REPO, "**", "*." + ext), recursive=True)):
            if not re.search(r"/(node_modules|\.work|\.e2e|\.data|dist)/", f):
                docs.append((os.path.relpath(f, REPO), comment_paragraphs(f)))
    corpus = os.path.join(args.out, "corpus.txt")
    with open(corpus, "w", encoding="utf-8") as f:
        for _, ps in docs:
            for para in ps:
                f.write(para + "\n")
    sp = T.train(corpus, os.path.join(args.out, "spm"), args.vocab)
    T.write_tokenizer_json(sp, os.path.join(args.out, "tokenizer"))
    out = {part: open(os.path.join(args.out, f"roundtrip.{part}.jsonl"), "w") for part in ("train", "val", "test")}
    counts = {part: 0 for part in out}
    k = 0
    for name, ps in docs:
        for para in ps:
            for w in windows(sp, split_sentences(para)):
                part = "val" if k % 10 == 1 else "test" if k % 10 == 2 else "train"
                out[part].write(json.dumps({"source": "docs", "doc": name, "sentences": w}) + "\n")
                counts[part] += 1
                k += 1
    for f in out.values():
        f.close()
    print(json.dumps({"files": len(docs), "vocab": sp.get_piece_size(), "paragraphs": counts}))


if __name__ == "__main__":
    main()
