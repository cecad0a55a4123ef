"""--resume in training.train_loop (the one loop of every recipe; gpu_chunk.sh's chunks):
a toy run stopped after 3 steps and resumed to 6 takes the same steps as one run of 6: the step count
and the learning-rate schedule go on, the batches are the ones that come next, and with Adam's state
and the dropout RNG restored the weights end identical. Without the optimizer's state (a checkpoint rebuilt
from shipped graphs) the rate ramps up again from the resumed step.

  /usr/bin/python3 -m unittest discover -s models/train/tests -p 'test_resume.py' -v
"""
import argparse
import os
import random
import sys
import tempfile
import unittest
from unittest import mock

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..")))

try:
    import torch
except ImportError:  # the python3 on PATH may have no torch: /usr/bin/python3 has Debian's
    torch = None

ITEMS = [(i, [(i * 7 + k) % 30 for k in range(3 + i % 5)]) for i in range(60)]  # (id, token ids)
STEPS, STOP = 6, 3


def toy():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Embedding(30, 8), torch.nn.Dropout(0.3), torch.nn.Linear(8, 30))


def train(out, steps, resume):
    """One train_loop call as the recipes make it (it saves at the end); returns (model, stats,
    learning rate of each step, batch ids of each step)."""
    from draftsmith_train.batching import token_batches
    from draftsmith_train.training import train_loop

    model, lrs, seen = toy(), [], []

    class Recording(torch.optim.AdamW):
        def step(self, *a, **k):
            lrs.append(self.param_groups[0]["lr"])
            return super().step(*a, **k)

    def step(batch):
        seen.append([x[0] for x in batch])
        x = torch.tensor([s[:-1] + [0] * (7 - len(s)) for s in (b[1] for b in batch)])
        y = torch.tensor([s[1:] + [-100] * (7 - len(s)) for s in (b[1] for b in batch)])
        loss = torch.nn.functional.cross_entropy(model(x).reshape(-1, 30), y.reshape(-1), ignore_index=-100)
        return loss, sum(len(b[1]) for b in batch)

    args = argparse.Namespace(
        out=out, resume=resume, lr=1e-2, warmup=4, minutes=60, steps=steps, log_every=100, val_every=100
    )
    batches = token_batches(ITEMS, lambda x: len(x[1]), 40, random.Random(5), 3)
    with mock.patch("torch.optim.AdamW", Recording):
        stats = train_loop(
            model,
            batches,
            args,
            "cpu",
            step,
            save=lambda path, meta: torch.save({"config": {}, "state": model.state_dict(), "meta": meta}, path),
        )
    return model, stats, lrs, seen


@unittest.skipIf(torch is None, "no torch in this python3 (use /usr/bin/python3)")
class Resume(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.whole = train(os.path.join(cls.tmp.name, "whole.pt"), STEPS, False)
        path = os.path.join(cls.tmp.name, "chunked.pt")
        cls.first = train(path, STOP, False)
        cls.second = train(path, STEPS, True)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_step_count_goes_on(self):
        self.assertEqual(self.first[1]["steps"], STOP)
        self.assertEqual(len(self.second[2]), STEPS - STOP, "the resumed run took the remaining steps only")
        self.assertEqual(self.second[1]["steps"], STEPS)
        self.assertEqual(self.second[1]["tokens"], self.whole[1]["tokens"])
        self.assertEqual(self.second[1]["train_state"]["steps"], STEPS)

    def test_learning_rate_schedule_goes_on(self):
        self.assertEqual(self.first[2] + self.second[2], self.whole[2])
        self.assertNotEqual(self.second[2], self.whole[2][: STEPS - STOP], "the schedule started again")

    def test_next_batches(self):
        self.assertEqual(self.first[3] + self.second[3], self.whole[3])

    def test_same_weights_as_one_run(self):
        for (k, a), b in zip(self.whole[0].state_dict().items(), self.second[0].state_dict().values()):
            self.assertTrue(torch.equal(a, b), f"{k} differs from the uninterrupted run's")

    def test_without_resume_starts_afresh(self):
        from draftsmith_train.training import resume_checkpoint

        path = os.path.join(self.tmp.name, "chunked.pt")
        self.assertEqual(resume_checkpoint(argparse.Namespace(out=path, resume=True)), path)
        self.assertIsNone(resume_checkpoint(argparse.Namespace(out=path, resume=False)))
        self.assertIsNone(resume_checkpoint(argparse.Namespace(out=path + ".missing", resume=True)))

    def test_a_checkpoint_without_optimizer_state_ramps_the_rate_up_again(self):
        # a checkpoint rebuilt from shipped graphs has none: AdamW's first steps from zero moments are
        # full-size, so the schedule's rate is scaled by k / REWARM_STEPS for the k-th resumed step
        from draftsmith_train.training import REWARM_STEPS, inverse_sqrt

        path = os.path.join(self.tmp.name, "no-optimizer.pt")
        train(path, STOP, False)
        ck = torch.load(path)
        del ck["meta"]["train_state"]["optimizer"]
        torch.save(ck, path)
        lrs = train(path, STEPS, True)[2]
        schedule = inverse_sqrt(1e-2, 4)
        want = [schedule(STOP + k) * (k + 1) / REWARM_STEPS for k in range(STEPS - STOP)]
        self.assertEqual(len(lrs), len(want))
        for got, w in zip(lrs, want):
            self.assertAlmostEqual(got, w, places=12)
        self.assertEqual(self.second[2], self.whole[2][STOP:], "with its optimizer state the rate goes on as it was")


if __name__ == "__main__":
    unittest.main()
