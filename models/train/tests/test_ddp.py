"""Two processes train a toy model for a few steps through training.train_loop under DistributedDataParallel
(gloo, one CPU thread each, started the way launch.py starts them) and stay in sync:

  - identical parameters on both ranks after the steps (though each rank initialised its own, differently);
  - each rank trained on its own slice of the batch stream (rank r: batches r, r + 2, ...), disjoint,
    the same number of steps;
  - the checkpoint holds the unwrapped model (no "module." prefix) and resumes in one process;
  - when rank 0 decides to stop (--minutes), rank 1 stops at the same step (no hang).

  /usr/bin/python3 -m unittest discover -s models/train/tests -p 'test_ddp.py' -v
"""
import argparse
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import unittest

TRAIN_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, TRAIN_DIR)

STEPS = 4
ITEMS = [(i, [(i * 7 + k) % 50 for k in range(3 + i % 5)]) for i in range(120)]  # (id, token ids)


def stream(seed=11):
    from draftsmith_train.batching import token_batches

    return token_batches(ITEMS, lambda x: len(x[1]), 40, random.Random(seed), 3)


def worker(out_dir):
    import torch
    from draftsmith_train import dist, training as R
    from draftsmith_train.training import pick_device

    class Toy(torch.nn.Module):
        class C:
            def to_dict(self):
                return {"toy": 1}

        def __init__(self):
            super().__init__()
            self.c = Toy.C()
            self.emb = torch.nn.Embedding(50, 16)
            self.drop = torch.nn.Dropout(0.1)
            self.out = torch.nn.Linear(16, 50)

        def loss(self, seqs):
            x = torch.tensor([s[:-1] + [0] * (7 - len(s)) for s in seqs])
            y = torch.tensor([s[1:] + [-100] * (7 - len(s)) for s in seqs])
            logits = self.out(self.drop(self.emb(x)))
            return torch.nn.functional.cross_entropy(logits.reshape(-1, 50), y.reshape(-1), ignore_index=-100)

    device = pick_device("cpu")
    rank, world = dist.rank(), dist.world()
    torch.manual_seed(100 + rank)  # each rank its own initial weights: DDP must start them from rank 0's
    model = Toy().to(device)
    args = argparse.Namespace(
        out=os.path.join(out_dir, "toy.pt"),
        resume=False,
        minutes=60,
        steps=STEPS,
        lr=1e-2,
        log_every=1,
        val_every=2,
        batch_tokens=40,
    )
    rnn = dict(
        optimizer=lambda params, lr: torch.optim.Adam(params, lr=lr),
        schedule=R.constant(args.lr),
        clip=5.0,
        keep_best=True,
        find_unused=None,
        others_leave=False,
    )  # as roundtrip and reply train
    seen = []

    def step(batch):
        seen.append([x[0] for x in batch])
        loss = model.loss([x[1] for x in batch])
        return loss, loss.detach(), sum(len(x[1]) for x in batch)

    def validate():
        with torch.no_grad():
            return {"nll": float(model.loss([x[1] for x in ITEMS[:10]]))}

    R.train_loop(model, stream(), args, device, step, validate, meta={"toy": True}, **rnn)
    params = {k: v.tolist() for k, v in model.state_dict().items()}
    first = dist.gather_objects({"rank": rank, "world": world, "seen": seen, "params": params})
    # The stop decision is rank 0's: rank 0 runs out of minutes at once, rank 1 would go on for an hour.
    args2 = argparse.Namespace(**{**vars(args), "steps": 10**9, "minutes": 0 if rank == 0 else 60, "resume": True})
    done2 = {"steps": torch.load(args.out, map_location="cpu")["meta"]["steps"]}
    seen.clear()
    R.train_loop(model, stream(12), args2, device, step, validate, meta={"toy": True}, **rnn)
    second = dist.gather_objects({"rank": rank, "steps": len(seen)})
    if rank == 0:
        json.dump({"first": first, "second": second, "done2": done2}, open(os.path.join(out_dir, "result.json"), "w"))
    dist.finish()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class TwoProcessDDP(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        port = str(free_port())
        procs = []
        for r in range(2):
            env = dict(
                os.environ,
                MASTER_ADDR="127.0.0.1",
                MASTER_PORT=port,
                WORLD_SIZE="2",
                RANK=str(r),
                LOCAL_RANK=str(r),
                OMP_NUM_THREADS="1",
                PYTHONPATH=TRAIN_DIR,
            )
            procs.append(
                subprocess.Popen(
                    [sys.executable, __file__, "--worker", cls.tmp.name],
                    env=env,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.STDOUT,
                    text=True,
                )
            )
        cls.logs = []
        try:
            for p in procs:
                out, _ = p.communicate(timeout=240)
                cls.logs.append(out)
        finally:
            for p in procs:
                if p.poll() is None:
                    p.kill()
        cls.codes = [p.returncode for p in procs]
        path = os.path.join(cls.tmp.name, "result.json")
        cls.result = None
        if os.path.exists(path):
            with open(path) as f:
                cls.result = json.load(f)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def setUp(self):
        self.assertEqual(self.codes, [0, 0], "\n".join(self.logs))
        self.assertIsNotNone(self.result, "\n".join(self.logs))

    def test_parameters_identical_across_ranks(self):
        a, b = self.result["first"]
        self.assertEqual(a["world"], 2)
        self.assertEqual(a["params"].keys(), b["params"].keys())
        for k in a["params"]:
            self.assertEqual(a["params"][k], b["params"][k], f"{k} differs between the ranks")

    def test_each_rank_its_own_slice_of_the_stream(self):
        a, b = self.result["first"]
        self.assertEqual(len(a["seen"]), STEPS)
        self.assertEqual(len(b["seen"]), STEPS)
        expected = [[x[0] for x in batch] for _, batch in zip(range(2 * STEPS), stream())]
        self.assertEqual(a["seen"], expected[0::2])
        self.assertEqual(b["seen"], expected[1::2])
        self.assertFalse(set(sum(a["seen"], [])) & set(sum(b["seen"], [])), "the ranks trained on the same items")

    def test_checkpoint_unwrapped_and_resumable(self):
        import torch

        ck = torch.load(os.path.join(self.tmp.name, "toy.pt"), map_location="cpu")
        self.assertFalse([k for k in ck["state"] if k.startswith("module.")], list(ck["state"]))
        self.assertEqual(set(ck["state"]), set(self.result["first"][0]["params"]))
        self.assertIn("optimizer", ck["meta"]["train_state"])
        self.assertEqual(ck["meta"]["train_state"]["steps"], STEPS + 1)
        self.assertEqual(ck["meta"]["steps"], STEPS + 1)  # the resumed run's one step on top
        self.assertEqual(self.result["done2"]["steps"], STEPS)
        # the final weights (after the second run) equal what the ranks held
        self.assertTrue(os.path.exists(os.path.join(self.tmp.name, "toy.best.pt")))

    def test_ranks_stop_together(self):
        s0, s1 = self.result["second"]
        self.assertEqual(s0["steps"], 1)
        self.assertEqual(s1["steps"], 1)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--worker"]:
        worker(sys.argv[2])
    else:
        unittest.main()
