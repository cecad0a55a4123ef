"""The known-word list (draftsmith_train.wordlist) counts words as the engine's vocabulary guard does
(extension/engine/decode/guards.ts): letter runs, lower-cased, a suffix after a letter and an
apostrophe not a word, digits never, lone letters other than "a" and "i" left out; words seen at
least twice; the most frequent kept under a cap; --manifest names the list in model.json with its sha256.

  python3 -m unittest discover -s models/train/tests -p 'test_wordlist.py' -v
"""
import hashlib
import json
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from draftsmith_train import wordlist  # noqa: E402


class WordListTest(unittest.TestCase):
    def test_words_as_the_guard_counts_them(self):
        self.assertEqual(
            list(wordlist.words_of("Don't go, Anna's 3rd café-owner! x2 'quoted'")),
            ["don", "go", "anna", "café", "owner", "x", "quoted"],
        )

    def test_seen_twice_lone_letters_out_cap_keeps_the_most_frequent(self):
        counts = wordlist.count_words([])
        counts.update({"the": 9, "cat": 3, "zyx": 1, "b": 5, "a": 4, "i": 2, "mat": 2})
        self.assertEqual(wordlist.known_words(counts), ["a", "cat", "i", "mat", "the"])
        self.assertEqual(wordlist.known_words(counts, max_words=2), ["a", "the"])

    def test_jsonl_and_manifest(self):
        with tempfile.TemporaryDirectory() as d:
            d = Path(d)
            data = d / "train.jsonl"
            data.write_text(
                "\n".join(
                    json.dumps({"id": "doc-x1", "source": "The cat sat.", "target": ["the cat"]}) for _ in range(2)
                )
                + "\n"
            )
            (d / "model.json").write_text(
                json.dumps({"files": {"tokenizer": "tokenizer.json"}, "sha256": {}}, indent=2) + "\n"
            )
            wordlist.main(["--data", str(data), "--out", str(d / "words.txt"), "--manifest", str(d / "model.json")])
            self.assertEqual((d / "words.txt").read_text(), "cat\nsat\nthe\n")  # "doc", "x" of the id not read
            m = json.loads((d / "model.json").read_text())
            self.assertEqual(m["files"]["knownWords"], "words.txt")
            self.assertEqual(m["sha256"]["words.txt"], hashlib.sha256((d / "words.txt").read_bytes()).hexdigest())


if __name__ == "__main__":
    unittest.main()
