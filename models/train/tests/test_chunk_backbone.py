"""gpu_chunk.sh for the backbone, on this CPU with a tiny made-up corpus (draftsmith_train/chunk.py):

  - pack takes the CPU run's checkpoint (DATA/runs, never written) without its best weights, every
    array (the train books cut to a seeded subset with BOOKS_FRACTION, the same one each time) and says
    what the bundle holds;
  - run trains from that checkpoint for MINUTES (NPROC=1; on the GPU machine, the GPU), scores the
    held-out arrays and hands back the checkpoint, the best weights and the log in parts of 16 MiB;
  - unpack puts them in GPU_WORK/backbone/runs, and train_backbone.sh with RUNS there resumes from the
    chunk's step; the next pack goes on from the chunk's checkpoint, which has seen more tokens.

  /usr/bin/python3 -m unittest discover -s models/train/tests -p 'test_chunk_backbone.py' -v
"""
import hashlib
import json
import os
import re
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

TINY = ["--n-layer", "1", "--n-embd", "16", "--n-head", "2", "--window", "16"]


def make_data(data):
    """A prepared backbone folder: a small tokenizer and random documents (<s> ... </s>) per source and part."""
    import numpy as np

    from draftsmith_train import tokenizer as T

    os.makedirs(os.path.join(data, "runs"))
    text = os.path.join(data, "text.txt")
    with open(text, "w") as f:
        f.writelines(f"the {w} went to the {v} and saw a {w}{v}.\n" for w in "abcdefghij" for v in "klmnopqrst")
    sp = T.train(text, os.path.join(data, "spm"), 40)
    rng = np.random.default_rng(0)
    for part, docs in (("train", 30), ("valid", 3), ("test", 3)):
        for src in ("books", "simple", "tiny"):
            parts = [[T.BOS, *rng.integers(5, sp.get_piece_size(), rng.integers(40, 120)), T.EOS] for _ in range(docs)]
            np.save(os.path.join(data, f"{part}.{src}.npy"), np.concatenate(parts).astype(np.uint16))
    with open(os.path.join(data, "prepare_report.json"), "w") as f:
        json.dump({"made": "test_chunk_backbone"}, f)  # train_backbone.sh prepares only where this is missing


def digest(folder, *names):
    h = hashlib.sha256()
    for f in names or sorted(os.listdir(folder)):
        h.update(f.encode())
        with open(os.path.join(folder, f), "rb") as g:
            h.update(g.read())
    return h.hexdigest()


def sh(args, env, timeout=300):
    r = subprocess.run(args, cwd=TRAIN_DIR, env=env, capture_output=True, text=True, timeout=timeout)
    if r.returncode:
        raise AssertionError(f"{' '.join(args)} exited {r.returncode}:\n{r.stdout}\n{r.stderr}")
    return r.stdout + r.stderr


@unittest.skipIf(torch is None, "no torch in this python3 (use /usr/bin/python3)")
class BackboneChunk(unittest.TestCase):
    def test_pack_run_unpack_resume(self):
        import numpy as np

        with tempfile.TemporaryDirectory() as tmp:
            data, work, files = (os.path.join(tmp, d) for d in ("backbone", "gpu", "files"))
            make_data(data)
            env = dict(
                os.environ,
                PY=sys.executable,
                GPU_WORK=work,
                DATA=data,
                SIZE=" ".join(TINY),
                BATCH_TOKENS="128",
                VAL_EVERY="20",
                LOG_EVERY="20",
                EVAL_LIMIT="300",
                BOOKS_FRACTION="0.5",
                NPROC="1",
                MINUTES="0.2",
                MIN_STAGE_S="1",
            )
            # The CPU run: a few steps into DATA/runs, as train_backbone.sh leaves it.
            sh(
                [sys.executable, "-m", "draftsmith_train.backbone", "train", "--data", data, "--steps", "3"]
                + ["--batch-tokens", "64", "--val-every", "2", "--warmup", "2", "--resume"]
                + TINY,
                env,
            )
            live = os.path.join(data, "runs")
            self.assertEqual(sorted(os.listdir(live)), ["backbone.best.pt", "backbone.pt"])
            before = digest(live)

            log = sh(["bash", "gpu_chunk.sh", "pack", "backbone"], env)
            bundle = os.path.join(work, "backbone.tar.xz")
            self.assertIn(f"runs/backbone.pt from {live}", log)
            self.assertRegex(log, r"runs/backbone.pt: [0-9.]+ MiB, step 3, ")
            subset = re.search(r"train books: (\d+) of 30 documents, ([\d,]+) of", log)
            self.assertTrue(subset, log)
            self.assertIn(int(subset.group(1)), range(10, 20))
            names = subprocess.run(["tar", "-tJif", bundle], capture_output=True, text=True, check=True).stdout.split()
            self.assertNotIn("runs/backbone.best.pt", names)  # the best weights stay home
            self.assertIn("runs/backbone.pt", names)
            for part in ("train", "valid", "test"):
                for src in ("books", "simple", "tiny"):
                    self.assertIn(f"data/{part}.{src}.npy", names)
            first = digest(work, "backbone.tar.xz")
            sh(["bash", "gpu_chunk.sh", "pack", "backbone"], env)
            self.assertEqual(
                digest(work, "backbone.tar.xz"), first, "the same data and checkpoint give the same bundle"
            )

            out = os.path.join(tmp, "out")
            log = sh(["bash", "gpu_chunk.sh", "run", "backbone", out], env)
            self.assertIn("resumed from", log)
            parts = sorted(os.listdir(out))
            self.assertIn("train.log", parts)
            self.assertLessEqual(len(parts), 8)
            for p in parts:
                self.assertLessEqual(os.path.getsize(os.path.join(out, p)), 16 * 2**20)
            self.assertEqual(digest(live), before, "the CPU run's checkpoints are only read")

            os.rename(out, files)
            log = sh(["bash", "gpu_chunk.sh", "unpack", "backbone", files], env)
            runs = os.path.join(work, "backbone", "runs")
            steps = torch.load(os.path.join(runs, "backbone.pt"), map_location="cpu")["meta"]["steps"]
            self.assertGreater(steps, 3)
            self.assertTrue(os.path.exists(os.path.join(runs, "backbone.best.pt")))
            self.assertIn(f"RUNS={runs}", log)
            self.assertIn("backbone.eval.json: valid.books ppl", log)
            with open(os.path.join(work, "backbone", "export", "backbone.eval.json")) as f:
                self.assertGreater(json.load(f)["test.tiny"]["tokens"], 0)

            # The CPU recipe goes on from the chunk's checkpoint, with its own batch (MINUTES: the whole run's).
            cpu = dict(env, RUNS=runs, STEPS=str(steps + 2), MINUTES="600", BATCH_TOKENS="64", EVAL="0", NPROC="1")
            log = sh(["bash", "train_backbone.sh"], cpu)
            self.assertIn(f"at step {steps}", log)
            self.assertEqual(
                torch.load(os.path.join(runs, "backbone.pt"), map_location="cpu")["meta"]["steps"], steps + 2
            )

            # The next chunk goes on from the chunk's line, ahead of the CPU run's.
            log = sh(["bash", "gpu_chunk.sh", "pack", "backbone"], env)
            self.assertIn(f"runs/backbone.pt from {runs}", log)
            self.assertEqual(digest(live), before)


if __name__ == "__main__":
    unittest.main()
