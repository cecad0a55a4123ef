"""pcsan.py with encoder="backbone": PC-SAN's pretrained encoder is the shared GPT-2 backbone. The
essay model's encoder states are the backbone's own hidden states (the weights land where they
belong, padding changes nothing), and the shipped essay folder rebuilds in PyTorch from its graphs
whichever encoder it has.

  /usr/bin/python3 -m unittest discover -s models/train/tests -p 'test_essay_backbone.py' -v
"""
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..")))

try:
    import torch
except ImportError:  # the python3 on PATH may have no torch: /usr/bin/python3 has Debian's
    torch = None

SHIPPED = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "essay"))


@unittest.skipIf(torch is None, "needs PyTorch (Debian's python3-torch)")
class EssayBackboneTest(unittest.TestCase):
    def test_encoder_states_are_the_backbones_hidden_states(self):
        from dataclasses import asdict

        from draftsmith_train.causal_lm import GPT2, GPT2Config
        from draftsmith_train.pcsan import EssayConfig, EssayGenerator, init_from_backbone

        torch.manual_seed(0)
        bb_config = GPT2Config(vocab_size=60, n_positions=32, n_embd=16, n_layer=2, n_head=2, dropout=0.0)
        gpt2 = GPT2(bb_config).eval()
        cfg = EssayConfig(
            vocab_size=60,
            d_model=16,
            n_heads=2,
            d_ff=64,
            encoder_layers=2,
            decoder_layers=2,
            max_source_positions=32,
            max_target_positions=16,
            dropout=0.0,
            word_vocab_size=5,
            word_dim=4,
            encoder="backbone",
            backbone=asdict(bb_config),
        )
        model = EssayGenerator(cfg).eval()
        self.assertEqual(init_from_backbone(model, gpt2), len(gpt2.state_dict()) + 1)  # wpe feeds two tables
        ids = torch.tensor([[5, 9, 11, 13, 17], [5, 9, 11, 0, 0]])
        mask = (ids != 0).long()
        with torch.no_grad():
            states = model.encoder_states(ids, mask)
            logits, _ = gpt2(ids[:1])
        self.assertEqual(tuple(states.shape), (3, 2, 5, 16))  # embeddings and both layers
        # the last state is the backbone's final LayerNorm output: through the tied embedding, its logits
        torch.testing.assert_close(states[-1, :1] @ gpt2.transformer["wte"].weight.t(), logits)
        # a padded row's real positions are the unpadded sequence's (causal, and padding masked)
        with torch.no_grad():
            short = model.encoder_states(ids[1:, :3], mask[1:, :3])
        torch.testing.assert_close(states[:, 1:, :3], short)
        torch.testing.assert_close(model.tgt_pos.weight, gpt2.transformer["wpe"].weight[:16])

    def test_the_shipped_essay_rebuilds_from_its_graphs(self):
        from draftsmith_train.weights_from_onnx import load_shipped

        arch = json.load(open(os.path.join(SHIPPED, "model.json")))["architecture"]
        model = load_shipped(SHIPPED)
        self.assertEqual(model.c.encoder, arch.get("encoder", "own"))
        self.assertEqual(len(model.encoder), arch["encoderLayers"])
        self.assertEqual(tuple(model.layer_mix.weights().shape), (arch["decoderLayers"], arch["encoderLayers"] + 1))


if __name__ == "__main__":
    unittest.main()
