"""gconv.BackboneStoryLM: Continue Story's fusion with the shared backbone as the frozen pretrained
model, as a language model of the story or as a decoder-only seq2seq that reads the prompt first.
Decoding step by step with the state (as generation does) gives the log-probabilities of one pass
over the whole story, a batch's padded prompts give what each prompt gives alone, the prompt changes
what the story is given, the backbone stays frozen under fusion's training, and a saved checkpoint
loads back as the same model.

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
    def backbone(self, reads_prompt):
        from draftsmith_train.causal_lm import GPT2Config
        from draftsmith_train.gconv import BackboneStoryLM

        torch.manual_seed(0)
        gpt2 = asdict(GPT2Config(vocab_size=40, n_positions=16, n_embd=16, n_layer=2, n_head=2, dropout=0.0))
        return BackboneStoryLM(gpt2, reads_prompt)

    def model(self, reads_prompt=False):
        from draftsmith_train.gconv import FusedStoryModel, StoryConfig

        pretrained = self.backbone(reads_prompt)
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
        return FusedStoryModel(c, pretrained).eval()

    def steps_and_whole(self, m, src, tgt):
        with torch.no_grad():
            enc = m.encode(src, torch.ones_like(src))
            full, _, gates_full = m.decode(tgt, 0, enc)
            state, steps, gates = None, [], []
            for t in range(tgt.shape[1]):
                logp, state, g = m.decode(tgt[:, t : t + 1], torch.tensor([t]), enc, state)
                steps.append(logp[:, -1])
                gates.append(None if g is None else g[:, -1])
        return torch.stack(steps, 1), full, gates, gates_full

    def test_the_prompt_reading_backbone_decodes_step_by_step_as_in_one_pass(self):
        for m in (self.backbone(True).eval(), self.model(True)):
            steps, full, gates, gates_full = self.steps_and_whole(
                m, torch.tensor([[5, 6, 7, 3]]), torch.tensor([[2, 9, 11, 13, 17, 19]])
            )
            torch.testing.assert_close(steps, full, atol=1e-5, rtol=1e-4)
            if gates_full is not None:
                torch.testing.assert_close(torch.stack(gates, 1), gates_full, atol=1e-5, rtol=1e-4)

    def test_a_padded_prompt_gives_what_it_gives_alone(self):
        m = self.backbone(True).eval()
        long, short = [5, 6, 7, 8, 3], [9, 10, 3]
        src = torch.tensor([long, short + [0, 0]])
        mask = (src != 0).long()
        tgt = torch.tensor([[2, 9, 11, 13], [2, 12, 14, 15]])
        with torch.no_grad():
            both = m(src, mask, tgt)
            alone = m(torch.tensor([short]), torch.ones(1, 3, dtype=torch.long), tgt[1:])
        torch.testing.assert_close(both[1:], alone, atol=1e-5, rtol=1e-4)

    def test_the_prompt_changes_the_story_likelihood_only_when_read(self):
        tgt = torch.tensor([[2, 9, 11, 13]])
        a, b = torch.tensor([[5, 6, 3]]), torch.tensor([[21, 22, 3]])
        with torch.no_grad():
            for reads, differs in ((True, True), (False, False)):
                m = self.backbone(reads).eval()
                gap = float((m(a, torch.ones_like(a), tgt) - m(b, torch.ones_like(b), tgt)).abs().max())
                self.assertEqual(gap > 1e-4, differs, f"reads_prompt={reads}: gap {gap}")

    def test_the_prompt_reading_backbone_checkpoint_loads_back(self):
        from draftsmith_train.story_model import load_model, save

        src, tgt = torch.tensor([[5, 6, 3]]), torch.tensor([[2, 9, 11]])
        for m in (self.backbone(True).eval(), self.model(True)):
            with tempfile.TemporaryDirectory() as tmp:
                path = os.path.join(tmp, "story.pt")
                save(path, m, {"stage": m.kind})
                back, _ = load_model(path)
            self.assertEqual(back.kind, m.kind)
            with torch.no_grad():
                torch.testing.assert_close(back(src, torch.ones_like(src), tgt), m(src, torch.ones_like(src), tgt))

    def test_step_by_step_decoding_equals_one_pass(self):
        steps, full, gates, gates_full = self.steps_and_whole(
            self.model(), torch.tensor([[5, 6, 7, 3]]), torch.tensor([[2, 9, 11, 13, 17, 19]])
        )
        torch.testing.assert_close(steps, full, atol=1e-5, rtol=1e-4)
        torch.testing.assert_close(torch.stack(gates, 1), gates_full, atol=1e-5, rtol=1e-4)

    def test_the_backbone_is_frozen_and_the_checkpoint_loads_back(self):
        from draftsmith_train.story_model import load_model, save

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
