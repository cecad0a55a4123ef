"""Training-text boilerplate leaves the text the recipes train on (draftsmith_train/boilerplate.py): a
prepared news article keeps its real sentences and loses "... contributed to this report.", "The opinions
expressed in this commentary are solely those of ..." and "Click here for ...". The phrases are the ones the
decoding guards ban (boilerplate.json; test/unit/boilerplateList.test.ts compares it with bannedWords.ts).

  cd models/train && /usr/bin/python3 -m unittest discover -s tests -p 'test_boilerplate.py' -v
"""
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..")))
from draftsmith_train import data as D  # noqa: E402
from draftsmith_train.boilerplate import PHRASES, is_boilerplate, strip_boilerplate  # noqa: E402

REAL = [
    "The city council voted on Tuesday to build a new bridge over the river.",
    "Mr. Smith, the mayor, said the work would start in May.",
    '"It is a report we waited for," said Ann Lee, who expressed her opinions at the meeting.',
    "Residents can click through the plans online and e-mail the council.",
]
JUNK = [
    "Associated Press contributed to this report.",
    "The opinions expressed in this commentary are solely those of David Cameron.",
    "Click here for the full list of winners.",
    "E-mail to a friend.",
]
ARTICLE = f"{REAL[0]} {JUNK[2]} {REAL[1]} {REAL[2]}\n\n{REAL[3]} {JUNK[0]}\n\n{JUNK[1]} {JUNK[3]}"


class BoilerplateTest(unittest.TestCase):
    def test_an_article_keeps_its_real_sentences_and_loses_the_boilerplate(self):
        got = strip_boilerplate(ARTICLE)
        self.assertEqual(got, f"{REAL[0]} {REAL[1]} {REAL[2]}\n\n{REAL[3]}")
        for s in JUNK:
            self.assertTrue(is_boilerplate(s), s)
        for s in REAL:
            self.assertFalse(is_boilerplate(s), s)
        self.assertEqual(strip_boilerplate(" ".join(REAL)), " ".join(REAL), "an article without any is unchanged")

    def test_every_phrase_of_the_shared_list_is_removed(self):
        for p in PHRASES:
            sentence = f"So {' '.join(p).capitalize()} today."
            self.assertEqual(strip_boilerplate(f"{REAL[0]} {sentence} {REAL[1]}"), f"{REAL[0]} {REAL[1]}", p)

    def test_the_news_training_split_loses_it_and_validation_and_test_keep_the_articles_as_published(self):
        with tempfile.TemporaryDirectory() as tmp:
            os.makedirs(os.path.join(tmp, "data", "cnn_stories"))
            with open(os.path.join(tmp, "data", "cnn_stories", "cnn_6500.jsonl"), "w") as f:
                for i in range(600):
                    row = {"id": str(i), "article": f"Story {i} opens. {JUNK[0]} {REAL[0]}", "highlights": ["A"]}
                    f.write(json.dumps(row) + "\n")
            shared, D.SHARED = D.SHARED, tmp
            try:
                train, val, test = D.cnn_pairs()
            finally:
                D.SHARED = shared
        self.assertEqual(len(train), 100)
        for r in train:
            self.assertEqual(r["source"], f"Story {r['id']} opens. {REAL[0]}")
        for r in val + test:
            self.assertIn(JUNK[0], r["source"])


if __name__ == "__main__":
    unittest.main()
