"""The known-word list of a model: every word its training text holds at least twice, for the
decoding guard that lets a model write only words it saw in training or words of its input
(extension/engine/decode/guards.ts).

    python -m draftsmith_train.wordlist --data ../../.data/summarize.train.jsonl --out ../summarize/words.txt \
        --manifest ../summarize/model.json

With --manifest, the model's model.json names the list (files.knownWords) and records its sha256,
as the engine checks every file a manifest names; without it a model decodes with no vocabulary guard.

A word is what the engine's guard calls one: a maximal run of letters, lower-cased. A run right
after an apostrophe that follows a letter ("don't", "Anna's") is a suffix, not a word, and is left
out (the guard checks suffixes against a short fixed list), and so is a run glued to a number
("3rd"). Digits are never words here: the guard lets a model write a number only when its input
holds it. Single letters other than "a" and "i" are left out (initials and list labels are not
words a model should write on its own). models/train/wordlists.sh builds every shipped model's list.

Input files are JSONL (every string value of every record is read, keys such as "id" excepted) or
plain text. The list is sorted, one word a line; when more than --max-words words qualify, the
most frequent are kept, so that the file stays small (the engine reads it into memory).
"""
from __future__ import annotations

import argparse
import collections
import hashlib
import json
import re
import sys
from pathlib import Path

# A letter run: \w without digits and underscore (the engine's \p{L}; marks included for accents).
WORD = re.compile(r"[^\W\d_]+")
APOSTROPHES = "'\u2019"
SKIP_KEYS = {"id", "domain", "dialogue", "doc"}
SINGLE_LETTERS = {"a", "i"}


def words_of(text: str):
    """The words of `text` as the guard sees them (suffixes after an apostrophe left out), lower-cased."""
    for m in WORD.finditer(text):
        start = m.start()
        if start >= 2 and text[start - 1] in APOSTROPHES and WORD.match(text[start - 2]):
            continue
        if start >= 1 and text[start - 1].isdigit():  # "3rd", "1990s": a number's ending, not a word
            continue
        yield m.group().lower()


def strings_of(value, key: str | None = None):
    if isinstance(value, str):
        if key not in SKIP_KEYS:
            yield value
    elif isinstance(value, list):
        for v in value:
            yield from strings_of(v, key)
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from strings_of(v, k)


def texts(path: Path):
    with path.open(encoding="utf-8") as f:
        jsonl = path.suffix == ".jsonl"
        for line in f:
            if not jsonl:
                yield line
                continue
            line = line.strip()
            if not line:
                continue
            yield from strings_of(json.loads(line))


def count_words(paths: list[Path], limit_lines: int | None = None) -> collections.Counter:
    counts: collections.Counter = collections.Counter()
    for p in paths:
        for i, t in enumerate(texts(p)):
            if limit_lines is not None and i >= limit_lines:
                break
            counts.update(words_of(t))
    return counts


def known_words(counts: collections.Counter, min_count: int = 2, max_words: int = 60000) -> list[str]:
    keep = [(w, n) for w, n in counts.items() if n >= min_count and (len(w) > 1 or w in SINGLE_LETTERS)]
    if len(keep) > max_words:
        keep.sort(key=lambda wn: (-wn[1], wn[0]))
        keep = keep[:max_words]
    return sorted(w for w, _ in keep)


def add_to_manifest(manifest: Path, words_file: Path) -> None:
    """Names `words_file` (in the manifest's folder) as files.knownWords and records its sha256."""
    if words_file.resolve().parent != manifest.resolve().parent:
        raise SystemExit(f"{words_file} must sit in the model folder of {manifest}")
    raw = manifest.read_text(encoding="utf-8")
    m = json.loads(raw)
    old = m.setdefault("files", {}).get("knownWords")
    if old and old != words_file.name:
        m.get("sha256", {}).pop(old, None)
    m["files"]["knownWords"] = words_file.name
    m.setdefault("sha256", {})[words_file.name] = hashlib.sha256(words_file.read_bytes()).hexdigest()
    manifest.write_text(
        json.dumps(m, indent=2, ensure_ascii=False) + ("\n" if raw.endswith("\n") else ""), encoding="utf-8"
    )


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--data", type=Path, nargs="+", required=True, help="the model's training text: JSONL or plain text files"
    )
    ap.add_argument("--out", type=Path, required=True, help="words.txt to write (one word a line, sorted)")
    ap.add_argument("--min-count", type=int, default=2, help="keep words seen at least this often (default 2)")
    ap.add_argument(
        "--max-words", type=int, default=60000, help="keep at most this many, the most frequent (default 60000)"
    )
    ap.add_argument(
        "--limit-lines", type=int, default=None, help="read at most this many records per file (a smoke run)"
    )
    ap.add_argument(
        "--manifest", type=Path, default=None, help="model.json to name the list in (files.knownWords, sha256)"
    )
    a = ap.parse_args(argv)
    counts = count_words(a.data, a.limit_lines)
    words = known_words(counts, a.min_count, a.max_words)
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text("".join(w + "\n" for w in words), encoding="utf-8")
    size = a.out.stat().st_size
    if a.manifest is not None:
        add_to_manifest(a.manifest, a.out)
    print(
        f"{a.out}: {len(words)} words (of {len(counts)} distinct; seen >= {a.min_count}), {size / 1024:.0f} KiB",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
