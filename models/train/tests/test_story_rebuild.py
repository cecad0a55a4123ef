"""Continue Story's PyTorch models rebuilt from its shipped graphs (weights_from_onnx.story_models): the fused
model from encoder.onnx + decoder.onnx, the premise model from premise.onnx. The parity fixture holds what the
exported graphs compute (the TypeScript tests hold onnxruntime to it), so the rebuilt models must give its
first-step log-probabilities, greedy tokens and fusion gates. The training checkpoints made from them (and the
shared backbone's stand-in) must load where the recipes resume, and the backbone's run go on from its step.

  cd models/train && /usr/bin/python3 -m unittest discover -s tests -p 'test_story_rebuild.py' -v
"""
import json
import os
import sys
import tempfile
import unittest

from shipped_model import NO_TORCH, TRAIN, shipped, torch

SHIPPED, FIXTURE = shipped("story")


def first_and_greedy(decode_step, steps):
    """decode_step(token [1,1], t) -> log-probs [1,V]: the first step's log-probs and greedy ids up to </s>."""
    from draftsmith_train import tokenizer as T

    tok, ids, first = torch.tensor([[T.BOS]]), [], None
    for t in range(steps):
        logp = decode_step(tok, t)
        first = logp if first is None else first
        nid = int(logp.argmax(-1))
        ids.append(nid)
        if nid == T.EOS:
            break
        tok = torch.tensor([[nid]])
    return first[0], ids


@unittest.skipIf(torch is None, NO_TORCH)
class StoryRebuild(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        from draftsmith_train.weights_from_onnx import story_models

        with open(FIXTURE) as fh:
            cls.f = json.load(fh)
        cls.model, cls.premise = story_models(SHIPPED)

    def story_outputs(self, model):
        src = torch.tensor([self.f["input_ids"]])
        state, gates = {"s": None}, []
        with torch.no_grad():
            enc = model.encode(src, torch.ones_like(src))

            def step(tok, t):
                logp, state["s"], g = model.decode(tok, torch.tensor([t]), enc, state["s"])
                gates.append(g[0, -1].tolist())
                return logp[:, -1]

            first, ids = first_and_greedy(step, len(self.f["greedy_ids"]))
        return first, ids, gates

    def assert_top5(self, logp, top, values):
        got = torch.topk(logp, 5)
        self.assertEqual(got.indices.tolist(), top)
        torch.testing.assert_close(got.values, torch.tensor(values), atol=1e-4, rtol=0)

    def test_the_fused_model_rebuilt_from_its_graphs_writes_the_graphs_story(self):
        first, ids, gates = self.story_outputs(self.model)
        self.assert_top5(first, self.f["first_log_probs_top"], self.f["first_log_probs_values"])
        self.assertEqual(ids, self.f["greedy_ids"])
        torch.testing.assert_close(torch.tensor(gates), torch.tensor(self.f["greedy_gates"]), atol=1e-4, rtol=0)
        self.assertEqual(sum(p.numel() for p in self.model.parameters()), 13_124_032)  # the card's 13.12M

    def test_the_premise_model_rebuilt_from_its_graph_writes_the_graphs_premise(self):
        p = self.f["premise"]
        with torch.no_grad():
            state = {"s": None}

            def step(tok, t):
                logp, state["s"] = self.premise.decode(tok, t, state["s"])
                return logp[:, -1]

            first, ids = first_and_greedy(step, 20)
        self.assert_top5(first, p["first_log_probs_top"], p["first_log_probs_values"])
        self.assertEqual(ids, p["greedy_ids"])

    def test_checkpoints_from_the_shipped_folder_load_where_the_recipes_resume(self):
        from draftsmith_train import backbone, causal_lm
        from draftsmith_train.story_model import load_model
        from draftsmith_train.training import adamw, load_train_state
        from draftsmith_train.weights_from_onnx import BACKBONE_RUN, story_checkpoints

        with open(os.path.join(SHIPPED, "model.json")) as fh:
            steps = json.load(fh)["training"]["steps"]
        with tempfile.TemporaryDirectory() as tmp:
            story_checkpoints(SHIPPED, tmp)
            fusion, meta = load_model(os.path.join(tmp, "fusion.pt"))
            self.assertEqual(meta["train_state"]["steps"], steps)
            self.assertEqual(self.story_outputs(fusion)[1], self.f["greedy_ids"])
            s2s, _ = load_model(os.path.join(tmp, "s2s.pt"))
            self.assertEqual(s2s.kind, "backbone")
            self.assertTrue(s2s.c.reads_prompt)
            premise, _ = causal_lm.load(os.path.join(tmp, "premise.pt"))
            torch.testing.assert_close(premise.state_dict(), self.premise.gpt2.state_dict(), atol=0, rtol=0)
            # backbone.py train --resume reads it: its shape, its run's step, no optimizer state to restore
            ck = torch.load(os.path.join(tmp, "backbone.pt"), map_location="cpu")
            self.assertEqual(
                (ck["config"]["n_layer"], ck["config"]["n_embd"], ck["config"]["n_positions"]), (6, 256, 256)
            )
            model = backbone.make(ck["config"])
            opt = adamw(model.parameters(), 1e-3)
            step, *_ = load_train_state(os.path.join(tmp, "backbone.pt"), model, opt)
            self.assertEqual(step, BACKBONE_RUN["steps"])
            self.assertEqual(len(opt.state), 0)

    def test_the_backbone_trains_on_from_its_stand_in_at_its_step_with_the_rate_ramped_up(self):
        import subprocess

        import numpy as np
        import sentencepiece as spm

        from draftsmith_train.weights_from_onnx import BACKBONE_RUN, story_checkpoints

        with tempfile.TemporaryDirectory() as tmp:
            story_checkpoints(SHIPPED, os.path.join(tmp, "shipped"))
            data = os.path.join(tmp, "data")
            os.makedirs(os.path.join(data, "runs"))
            os.replace(os.path.join(tmp, "shipped", "backbone.pt"), os.path.join(data, "runs", "backbone.pt"))
            # the corpus's arrays as prepare writes them (ids of the 8k vocabulary); spm.model only gives a
            # piece count, which a resumed run replaces with its checkpoint's config
            rng = np.random.default_rng(0)
            for part in ("train", "valid"):
                for src in ("books", "simple", "tiny"):
                    np.save(os.path.join(data, f"{part}.{src}.npy"), rng.integers(5, 8000, 3000).astype(np.uint16))
            with open(os.path.join(tmp, "text.txt"), "w") as fh:
                fh.write("\n".join(f"line {i} of a small text to train a tokenizer on" for i in range(200)))
            spm.SentencePieceTrainer.train(
                input=os.path.join(tmp, "text.txt"),
                model_prefix=os.path.join(data, "spm"),
                vocab_size=30,
                minloglevel=2,
            )
            r = subprocess.run(
                [sys.executable, "-m", "draftsmith_train.backbone", "train", "--data", data, "--resume", "--out"]
                + [os.path.join(data, "runs", "backbone.pt"), "--steps", str(BACKBONE_RUN["steps"] + 2)]
                + ["--batch-tokens", "512", "--val-windows", "1", "--val-every", "1000", "--log-every", "1"],
                cwd=TRAIN,
                capture_output=True,
                text=True,
                timeout=300,
            )
            self.assertEqual(r.returncode, 0, r.stderr)
            log = r.stdout + r.stderr
            self.assertIn(f"at step {BACKBONE_RUN['steps']}", log)
            self.assertIn("keeping its config", log)
            # 1e-3 x sqrt(300 / step) from the schedule, times 1/50 and 2/50 while AdamW's moments fill again
            for k in (1, 2):
                want = 1e-3 * (300 / (BACKBONE_RUN["steps"] + k)) ** 0.5 * k / 50
                self.assertIn(f"step {BACKBONE_RUN['steps'] + k} loss", log)
                self.assertIn(f"lr {want:.2e}", log)

    def test_fusion_trains_on_from_the_rebuilt_checkpoint_at_its_step(self):
        import subprocess

        import sentencepiece as spm

        from draftsmith_train.weights_from_onnx import story_checkpoints

        with tempfile.TemporaryDirectory() as tmp:
            story_checkpoints(SHIPPED, tmp)
            lines = [f"A girl named Sue found a red ball number {i} in the park." for i in range(200)]
            with open(os.path.join(tmp, "text.txt"), "w") as fh:
                fh.write("\n".join(lines))
            spm.SentencePieceTrainer.train(
                input=os.path.join(tmp, "text.txt"), model_prefix=os.path.join(tmp, "spm"), vocab_size=60, minloglevel=2
            )
            for part in ("train", "val"):
                with open(os.path.join(tmp, f"story.{part}.jsonl"), "w") as fh:
                    for i in range(12):
                        row = {"prompt": lines[i], "story": " ".join(lines[i : i + 3]), "domain": "roc"}
                        fh.write(json.dumps(row) + "\n")
            with open(os.path.join(SHIPPED, "model.json")) as fh:
                steps = json.load(fh)["training"]["steps"]
            r = subprocess.run(
                [sys.executable, "-m", "draftsmith_train.story", "fusion", "--data", tmp, "--resume"]
                + ["--out", os.path.join(tmp, "fusion.pt"), "--steps", str(steps + 1), "--max-src", "48"]
                + ["--max-tgt", "208", "--lr", "1e-3", "--warmup", "100", "--batch-tokens", "400"]
                + ["--val-every", "1000", "--val-limit", "4", "--log-every", "1", "--device", "cpu"],
                cwd=TRAIN,
                capture_output=True,
                text=True,
                timeout=300,
            )
            self.assertEqual(r.returncode, 0, r.stderr[-2000:])
            log = r.stdout + r.stderr
            self.assertIn(f"at step {steps}", log)
            self.assertIn(f"lr {1e-3 * (100 / (steps + 1)) ** 0.5 / 50:.2e}", log)  # 1/50 of the schedule's rate


if __name__ == "__main__":
    unittest.main()
