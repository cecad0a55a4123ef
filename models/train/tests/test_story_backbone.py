"""gconv.BackboneStoryLM: Continue Story's fusion with the shared backbone as the frozen pretrained
model. Decoding step by step with the state (as generation does) gives the log-probabilities of one
pass over the whole story, the backbone stays frozen under training, and a saved checkpoint loads
back as the same model.

  /usr/bin/python3 -m unittest discover -s models/train/tests -p 'test_story_backbone.py' -v
"""
import os
import sys
import tempfile
import unittest
from dataclasses import asdict

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..")))

try:
    import torch
except ImportError:  # the python3 on PATH may have no torch: /usr/bin/python3 has Debian's
    torch = None


@unittest.skipIf(torch is None, "needs PyTorch (Debian's python3-torch)")
class StoryBackboneTest(unittest.TestCase):
    def model(self):
        from draftsmith_train.causal_lm import GPT2Config
        from draftsmith_train.gconv import BackboneStoryLM, FusedStoryModel, StoryConfig

        torch.manual_seed(0)
        gpt2 = asdict(GPT2Config(vocab_size=40, n_positions=16, n_embd=16, n_layer=2, n_head=2, dropout=0.0))
        c = StoryConfig(
            vocab_size=40,
            embed_dim=8,
            hidden=12,
            encoder_layers=1,
            decoder_layers=2,
            attention_heads=2,
            attention_dim=8,
            max_source_positions=16,
            max_target_positions=16,
            dropout=0.0,
        )
        return FusedStoryModel(c, BackboneStoryLM(gpt2)).eval()

    def test_step_by_step_decoding_equals_one_pass(self):
        m = self.model()
        src = torch.tensor([[5, 6, 7, 3]])
        tgt = torch.tensor([[2, 9, 11, 13, 17, 19]])
        with torch.no_grad():
            enc = m.encode(src, torch.ones_like(src))
            full, _, gates_full = m.decode(tgt, 0, enc)
            state, steps, gates = None, [], []
            for t in range(tgt.shape[1]):
                logp, state, g = m.decode(tgt[:, t : t + 1], torch.tensor([t]), enc, state)
                steps.append(logp[:, -1])
                gates.append(g[:, -1])
        torch.testing.assert_close(torch.stack(steps, 1), full, atol=1e-5, rtol=1e-4)
        torch.testing.assert_close(torch.stack(gates, 1), gates_full, atol=1e-5, rtol=1e-4)

    def test_the_backbone_is_frozen_and_the_checkpoint_loads_back(self):
        from draftsmith_train.story import load_model, save

        m = self.model()
        self.assertTrue(all(not p.requires_grad for p in m.pretrained.parameters()))
        self.assertTrue(any(p.requires_grad for p in m.trained.parameters()))
        m.train()
        self.assertFalse(m.pretrained.training)  # no dropout in the frozen model
        src, tgt = torch.tensor([[5, 6, 3]]), torch.tensor([[2, 9, 11]])
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "fusion.pt")
            save(path, m.eval(), {"stage": "fusion"})
            back, _ = load_model(path)
        with torch.no_grad():
            torch.testing.assert_close(back(src, torch.ones_like(src), tgt), m(src, torch.ones_like(src), tgt))


if __name__ == "__main__":
    unittest.main()
