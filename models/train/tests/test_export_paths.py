"""An export of the summarizer to any folder but the shipped one (a candidate, a smoke run) writes its
parity fixture beside the model, never over test/fixtures/summarize-parity.json, which belongs to the
shipped weights (recipes touch models/ and test/fixtures only when asked).

  python3 -m unittest discover -s models/train/tests -p 'test_export_paths.py' -v
"""
import os
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from draftsmith_train.export_summarize import default_fixture  # noqa: E402

REPO = Path(__file__).resolve().parents[3]


class ExportPathsTest(unittest.TestCase):
    def test_a_candidate_folder_keeps_its_own_fixture(self):
        with tempfile.TemporaryDirectory() as d:
            self.assertEqual(default_fixture(d), os.path.join(d, "parity.json"))

    def test_the_shipped_folder_writes_the_tests_fixture(self):
        got = os.path.realpath(default_fixture(str(REPO / "models" / "summarize")))
        self.assertEqual(got, str((REPO / "test" / "fixtures" / "summarize-parity.json").resolve()))


if __name__ == "__main__":
    unittest.main()
