"""Summarize's PyTorch model rebuilt from its shipped graphs (weights_from_onnx.load_shipped: the int8 rows
are bit for bit the float32 weights the graphs were traced with). The parity fixture holds what the exported
graphs compute (the TypeScript tests hold onnxruntime to it), so the rebuilt model must give its topic
attention, first-step log-probabilities and greedy tokens; `summarize finetune --init-shipped` starts there.

  cd models/train && /usr/bin/python3 -m unittest discover -s tests -p 'test_summarize_rebuild.py' -v
"""
import json
import unittest

from shipped_model import NO_TORCH, shipped, torch

SHIPPED, FIXTURE = shipped("summarize")


@unittest.skipIf(torch is None, NO_TORCH)
class SummarizeRebuild(unittest.TestCase):
    def test_the_model_rebuilt_from_its_graphs_writes_the_graphs_summary(self):
        from draftsmith_train import tokenizer as T
        from draftsmith_train.export_common import greedy_reference, layer_caches
        from draftsmith_train.export_summarize import DecoderExport, EncoderExport
        from draftsmith_train.weights_from_onnx import load_shipped

        with open(FIXTURE) as fh:
            f = json.load(fh)
        model = load_shipped(SHIPPED)
        c = model.c
        ids = torch.tensor([f["input_ids"]])
        enc, dec = EncoderExport(model).eval(), DecoderExport(model).eval()
        with torch.no_grad():
            cross, mmask, alpha, _ = enc(ids, torch.ones_like(ids))
            cache = {
                "past": [torch.zeros(1, c.n_heads, 0, c.d_model // c.n_heads) for _ in range(2 * c.decoder_layers)]
            }
            firsts = []

            def step(tok):
                o = dec(tok, mmask, ids, *layer_caches(cross), *cache["past"])
                cache["past"] = list(o[2:])
                firsts.append(o[0][0])
                return o[0]

            greedy = greedy_reference(step, torch.tensor([[T.BOS]]))
        torch.testing.assert_close(alpha[0], torch.tensor(f["topic_attention"]), atol=1e-5, rtol=0)
        top = torch.topk(firsts[0], 5)
        self.assertEqual(top.indices.tolist(), f["first_log_probs_top"])
        torch.testing.assert_close(top.values, torch.tensor(f["first_log_probs_values"]), atol=1e-4, rtol=0)
        self.assertEqual(greedy, f["greedy_ids"])


if __name__ == "__main__":
    unittest.main()
