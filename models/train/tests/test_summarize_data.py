"""The summarizer's training data (draftsmith_train.data): CNN's "NEW:" marker leaves the fine-tuning targets
only; gap-sentence pairs (PEGASUS) take a window's most central sentences out of its text and make them
the target; the topic model's word list does not depend on Python's string hashing.

  python3 -m unittest discover -s models/train/tests -p 'test_summarize_data.py' -v
"""
import os
import subprocess
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from draftsmith_train import data as D  # noqa: E402


class SummarizeDataTest(unittest.TestCase):
    def test_update_marker_leaves_news_targets_only(self):
        news = {
            "domain": "news",
            "source": "NEW: kept in the source.",
            "target": "NEW: Police say two men were held. NEW:Both are 20. The NEW: sign stays.",
        }
        self.assertEqual(
            D.without_update_marker(news)["target"], "Police say two men were held. Both are 20. The NEW: sign stays."
        )
        self.assertEqual(D.without_update_marker(news)["source"], news["source"])
        tech = {"domain": "tech", "source": "x", "target": "NEW: a tool"}
        self.assertEqual(D.without_update_marker(tech), tech)

    def test_gap_sentences_leave_the_source_and_become_the_target_in_order(self):
        words = "council bridge river mayor vote budget".split()
        sents = [f"The {w} story had {n} new details for readers today." for n, w in enumerate(words)]
        sents[2] = "The council voted on the bridge over the river, the mayor said of the budget vote."
        sents[4] = "The mayor said the council and the river bridge budget vote came first."
        pair = {"domain": "news", "id": "a", "source": " ".join(sents)}
        [gsg] = D.gap_sentence_pairs([pair], chunk_words=10_000)
        self.assertEqual(gsg["target"], f"{sents[2]} {sents[4]}")
        self.assertEqual(gsg["source"], " ".join(s for i, s in enumerate(sents) if i not in (2, 4)))
        self.assertEqual(gsg["id"], "a:gsg0")

    def test_gap_sentences_skip_windows_without_two_short_enough_sentences(self):
        long = " ".join(["word"] * 30) + "."
        pair = {"domain": "news", "id": "b", "source": " ".join([long] * 6)}
        self.assertEqual(D.gap_sentence_pairs([pair], chunk_words=10_000), [])

    def test_topic_word_list_is_the_same_in_every_python_run(self):
        code = (
            "import sys; sys.path.insert(0, '.'); from draftsmith_train import data as D; "
            "print(D.bow_vocabulary(['zeta alpha beta', 'gamma delta beta', 'omega kappa theta', 'beta sigma'], 6))"
        )
        runs = {
            subprocess.run(
                [sys.executable, "-c", code],
                capture_output=True,
                text=True,
                check=True,
                cwd=str(Path(__file__).resolve().parents[1]),
                env={**os.environ, "PYTHONHASHSEED": seed},
            ).stdout
            for seed in ("1", "2", "3")
        }
        self.assertEqual(runs, {"['alpha', 'delta', 'gamma', 'kappa', 'omega', 'sigma']\n"})


if __name__ == "__main__":
    unittest.main()
