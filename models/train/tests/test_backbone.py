"""The backbone recipe end to end on a tiny made-up shared folder (draftsmith_train/backbone.py):

  - prepare splits by document, deduplicates paragraphs and holds the leakage check: a paragraph
    planted in every book ends up in a held-out part only, never in train;
  - train runs a few steps of a tiny model in two processes (launch.py, DDP), and --resume in one
    process goes on from that step count, not from zero;
  - eval reports perplexity per source and part.

  /usr/bin/python3 -m unittest discover -s models/train/tests -p 'test_backbone.py' -v
"""
import json
import os
import random
import subprocess
import sys
import tempfile
import unittest

TRAIN_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, TRAIN_DIR)

try:
    import torch
except ImportError:  # the python3 on PATH may have no torch: /usr/bin/python3 has Debian's
    torch = None

PLANTED = "the lighthouse keeper counted seven silver boats before the dawn came over the hill."
NAMES = ["Ziggy", "Daisy", "Finn", "Lulu", "Milo", "Poppy", "Rex", "Tilly"]


def words(rng, n):
    syllables = ["ka", "lo", "mi", "ne", "ru", "sa", "to", "vi", "be", "do", "fa", "gu"]
    vocab = ["".join(rng.choice(syllables) for _ in range(rng.randint(1, 3))) for _ in range(300)]
    return [rng.choice(vocab) for _ in range(n)]


def sentence(rng):
    w = words(rng, rng.randint(6, 14))
    return w[0].capitalize() + " " + " ".join(w[1:]) + "."


def make_shared(root):
    rng = random.Random(3)
    books = os.path.join(root, "data/gutenberg_young_readers/books")
    os.makedirs(books)
    for b in range(8):
        paras = [" ".join(sentence(rng) for _ in range(rng.randint(2, 5))) for _ in range(40)]
        paras.insert(rng.randint(0, 40), PLANTED)
        with open(os.path.join(books, f"Author_Book_{b}.txt"), "w") as f:
            f.write("\n\n".join("\n".join(p[i : i + 70] for i in range(0, len(p), 70)) for p in paras))
    os.makedirs(os.path.join(root, "data/simple_stories"))
    with open(os.path.join(root, "data/simple_stories/simple_stories_en_sentences.txt"), "w") as f:
        for s in range(60):
            name = NAMES[s % len(NAMES)] + str(s)
            f.write(f"{name} the zebra was {' '.join(words(rng, 6))}.\n")
            for _ in range(4):
                f.write(f"He {' '.join(words(rng, 8))}.\n")
    os.makedirs(os.path.join(root, "data/tinystories"))
    with open(os.path.join(root, "data/tinystories/tinystories_sample.txt"), "w") as f:
        stories = ["\n\n".join(" ".join(sentence(rng) for _ in range(3)) for _ in range(3)) for _ in range(40)]
        f.write("\n".join(stories) + "\n")


def run(args, nproc=1):
    py = [sys.executable]
    cmd = py + (["-m", "draftsmith_train.launch", "--nproc", str(nproc)] if nproc > 1 else []) + args
    r = subprocess.run(cmd, cwd=TRAIN_DIR, capture_output=True, text=True, timeout=120)
    if r.returncode:
        raise AssertionError(f"{' '.join(args)} exited {r.returncode}:\n{r.stdout}\n{r.stderr}")
    return r.stdout + r.stderr


@unittest.skipIf(torch is None, "no torch in this python3 (use /usr/bin/python3)")
class BackboneTest(unittest.TestCase):
    def test_prepare_train_resume_eval(self):
        import numpy as np
        import sentencepiece as spm

        with tempfile.TemporaryDirectory() as tmp:
            shared, data = os.path.join(tmp, "shared"), os.path.join(tmp, "backbone")
            make_shared(shared)
            mod = ["-m", "draftsmith_train.backbone"]
            run(mod + ["prepare", "--shared", shared, "--out", data, "--vocab", "200"])
            with open(os.path.join(data, "prepare_report.json")) as f:
                report = json.load(f)
            self.assertEqual(report["leakage"], {"train&valid": 0, "train&test": 0, "valid&test": 0})
            self.assertEqual(report["documents"]["books"], 8)
            for s in ("books", "simple", "tiny"):
                self.assertEqual(len(report["held_out_documents"][s]["valid"]), {"books": 1, "simple": 3, "tiny": 2}[s])
                for part in ("train", "valid", "test"):
                    self.assertGreater(report["tokens"][s][part], 0, (s, part))
            # The paragraph planted in every book: once, in the test book (the first part deduplicated).
            self.assertEqual(report["dedup"]["books"]["train"]["held_out_dropped"], 6)
            self.assertEqual(report["dedup"]["books"]["valid"]["held_out_dropped"], 1)
            sp = spm.SentencePieceProcessor(model_file=os.path.join(data, "spm.model"))
            text = {p: sp.decode(np.load(os.path.join(data, f"{p}.books.npy")).tolist()) for p in ("train", "test")}
            self.assertNotIn("seven silver boats before the dawn", text["train"])
            self.assertIn("seven silver boats before the dawn", text["test"])
            self.assertTrue(os.path.exists(os.path.join(data, "tokenizer.json")))

            out = os.path.join(tmp, "runs", "bb.pt")
            tiny = [
                "--data",
                data,
                "--out",
                out,
                "--n-layer",
                "1",
                "--n-embd",
                "16",
                "--n-head",
                "2",
                "--window",
                "16",
                "--batch-tokens",
                "64",
                "--val-every",
                "2",
                "--val-windows",
                "2",
                "--log-every",
                "1",
                "--warmup",
                "2",
                "--resume",
            ]
            log1 = run(mod + ["train", "--steps", "4"] + tiny, nproc=2)
            self.assertIn("DistributedDataParallel: 2 processes", log1)
            meta = torch.load(out, map_location="cpu")["meta"]
            self.assertEqual(meta["steps"], 4)
            self.assertIn("books_ppl", meta["val"])
            log2 = run(mod + ["train", "--steps", "7"] + tiny)
            self.assertIn("at step 4", log2)
            meta = torch.load(out, map_location="cpu")["meta"]
            self.assertEqual(meta["steps"], 7)
            self.assertEqual(meta["train_state"]["steps"], 7)
            self.assertTrue(os.path.exists(os.path.join(tmp, "runs", "bb.best.pt")))

            res = os.path.join(tmp, "eval.json")
            run(mod + ["eval", "--data", data, "--ckpt", out, "--gen-tokens", "5", "--json", res])
            with open(res) as f:
                r = json.load(f)
            for key in (
                "valid.books",
                "valid.simple",
                "valid.tiny",
                "test.books",
                "test.simple",
                "test.tiny",
            ):
                self.assertGreater(r[key]["tokens"], 0, key)
                self.assertTrue(1 < r[key]["ppl"] < 1000, (key, r[key]))


if __name__ == "__main__":
    unittest.main()
