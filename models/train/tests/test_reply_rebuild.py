"""Suggest Replies' ESED rebuilt from its shipped graphs (weights_from_onnx: the GRU nodes' gates back in
PyTorch's order, the bias-less query placed) with the memory it reads (memory.bin). The parity fixture holds
what the exported graphs compute (the TypeScript tests hold onnxruntime to it), so the rebuilt model must give
its first state, query, memory read, first-step log-probabilities and greedy reply; the training checkpoint
made from the folder must load where `reply train --resume` goes on.

  cd models/train && /usr/bin/python3 -m unittest discover -s tests -p 'test_reply_rebuild.py' -v
"""
import json
import os
import tempfile
import unittest

from shipped_model import NO_TORCH, shipped, torch

SHIPPED, FIXTURE = shipped("reply")


@unittest.skipIf(torch is None, NO_TORCH)
class ReplyRebuild(unittest.TestCase):
    def setUp(self):
        with open(FIXTURE) as fh:
            self.f = json.load(fh)

    def check(self, model, block):
        from draftsmith_train import tokenizer as T
        from draftsmith_train.export_reply import DecoderStepExport, EncoderExport
        from draftsmith_train.reply_model import BETA, memory_read

        f, close = self.f, lambda got, key: torch.testing.assert_close(got, torch.tensor(f[key]), atol=1e-5, rtol=0)
        with torch.no_grad():
            out, s0, p = EncoderExport(model)(torch.tensor([f["input_ids"]]))
            r, w = memory_read(p, block.unsqueeze(0), BETA)
            lp = DecoderStepExport(model)(torch.tensor([[T.BOS]]), s0, out, r)[0][0]
            greedy = model.greedy(f["input_ids"], torch.device("cpu"), block)
        close(s0[0, :8], "state_first")
        close(p[0, :8], "query_first")
        close(w[0], "read_weights")
        close(r[0, :8], "read_first")
        top = torch.topk(lp, 5)
        self.assertEqual(top.indices.tolist(), f["first_log_probs_top"])
        torch.testing.assert_close(top.values, torch.tensor(f["first_log_probs_values"]), atol=1e-4, rtol=0)
        self.assertEqual(greedy[: len(f["greedy_ids"])], f["greedy_ids"])

    def test_the_model_rebuilt_from_its_graphs_writes_the_graphs_reply(self):
        from draftsmith_train.weights_from_onnx import load_shipped, reply_memory

        keys, blocks = reply_memory(SHIPPED)
        self.check(load_shipped(SHIPPED), blocks[keys.index(self.f["key"])])

    def test_a_checkpoint_from_the_shipped_folder_resumes_at_its_step_with_its_memory(self):
        from draftsmith_train.reply_model import Memory, load_model
        from draftsmith_train.weights_from_onnx import reply_checkpoints

        with open(os.path.join(SHIPPED, "model.json")) as fh:
            steps = json.load(fh)["training"]["steps"]
        with tempfile.TemporaryDirectory() as tmp:
            reply_checkpoints(SHIPPED, tmp)
            model, meta = load_model(os.path.join(tmp, "reply-esed.pt"))
            memory = Memory(os.path.join(tmp, "reply-memory.npz"))
        self.assertEqual(meta["train_state"]["steps"], steps)
        self.check(model.eval(), memory.block(self.f["key"]))


if __name__ == "__main__":
    unittest.main()
