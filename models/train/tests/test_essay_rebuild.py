"""Essay's PyTorch model (PC-SAN with the shared backbone as its encoder) rebuilt from its shipped graphs
(weights_from_onnx.load_shipped). The parity fixture holds what the exported graphs compute (the TypeScript
tests hold onnxruntime to it), so the rebuilt model must give its layer weights (Eq. 2), first-step
log-probabilities and greedy tokens; `essay train --init-shipped` starts there.

  cd models/train && /usr/bin/python3 -m unittest discover -s tests -p 'test_essay_rebuild.py' -v
"""
import json
import os
import sys
import unittest

from shipped_model import NO_TORCH, TRAIN, shipped, torch

SHIPPED, FIXTURE = shipped("essay")


@unittest.skipIf(torch is None, NO_TORCH)
class EssayRebuild(unittest.TestCase):
    def test_the_model_rebuilt_from_its_graphs_writes_the_graphs_essay(self):
        from draftsmith_train import tokenizer as T
        from draftsmith_train.export_common import greedy_reference, layer_caches
        from draftsmith_train.export_essay import DecoderExport, EncoderExport
        from draftsmith_train.weights_from_onnx import load_shipped

        with open(FIXTURE) as fh:
            f = json.load(fh)
        model = load_shipped(SHIPPED)
        c = model.c
        L, H, d = c.decoder_layers, c.n_heads, c.d_model
        ids, wids = torch.tensor([f["input_ids"]]), torch.tensor([f["word_ids"]])
        enc, dec = EncoderExport(model).eval(), DecoderExport(model).eval()
        with torch.no_grad():
            cross, mmask, sctx, lw = enc(ids, wids, torch.ones_like(ids))
            cache = {"past": [torch.zeros(1, H, 0, d // H) for _ in range(2 * L)], "sum": torch.zeros(L, 1, d)}
            firsts = []

            def step(tok):
                o = dec(tok, mmask, sctx, cache["sum"], ids, *layer_caches(cross), *cache["past"])
                cache["sum"], cache["past"] = o[1], list(o[2:])
                firsts.append(o[0][0])
                return o[0]

            greedy = greedy_reference(step, torch.tensor([[T.BOS]]))
        torch.testing.assert_close(lw, torch.tensor(f["layer_weights"]), atol=1e-5, rtol=0)
        top = torch.topk(firsts[0], 5)
        self.assertEqual(top.indices.tolist(), f["first_log_probs_top"])
        torch.testing.assert_close(top.values, torch.tensor(f["first_log_probs_values"]), atol=1e-4, rtol=0)
        self.assertEqual(greedy, f["greedy_ids"])

    def test_training_goes_on_from_the_shipped_folder_in_its_own_shape(self):
        # the shipped encoder is the backbone's (6 x 256), not the size flags' own-encoder default
        import subprocess
        import tempfile

        import sentencepiece as spm

        with tempfile.TemporaryDirectory() as tmp:
            lines = [f"The bee and the frog met by flower number {i}. The geese flew over." for i in range(200)]
            with open(os.path.join(tmp, "text.txt"), "w") as fh:
                fh.write("\n".join(lines))
            spm.SentencePieceTrainer.train(
                input=os.path.join(tmp, "text.txt"), model_prefix=os.path.join(tmp, "spm"), vocab_size=60, minloglevel=2
            )
            for part in ("train", "val"):
                with open(os.path.join(tmp, f"essay.{part}.jsonl"), "w") as fh:
                    for text in lines[:20]:
                        fh.write(json.dumps({"domain": "x", "topics": ["bee", "frog", "flower"], "text": text}) + "\n")
            r = subprocess.run(
                [sys.executable, "-m", "draftsmith_train.essay", "train", "--data", tmp, "--init-shipped", SHIPPED]
                + ["--steps", "1", "--batch-tokens", "400", "--val-every", "1000", "--out", os.path.join(tmp, "e.pt")],
                cwd=TRAIN,
                capture_output=True,
                text=True,
                timeout=300,
            )
            self.assertEqual(r.returncode, 0, r.stderr[-2000:])
            self.assertIn("initialised every weight from the shipped folder", r.stdout + r.stderr)
            ck = torch.load(os.path.join(tmp, "e.pt"), map_location="cpu")
        self.assertEqual(ck["config"]["encoder"], "backbone")
        self.assertEqual(ck["meta"]["steps"], 1)


if __name__ == "__main__":
    unittest.main()
