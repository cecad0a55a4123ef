"""causal_lm.py: the GPT-2 the loopback Hub serves must be what transformers.js's
decoder-only generate() runs. A tiny model's cached steps give the logits of one full pass (the
cache and the attention mask are right), and its export has GPT-2's inputs, outputs and config.

  /usr/bin/python3 -m unittest discover -s models/train/tests -p 'test_causal_lm.py' -v
"""
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..")))

try:
    import torch
except ImportError:  # the python3 on PATH may have no torch: /usr/bin/python3 has Debian's
    torch = None

TOKENIZER = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "story"))


@unittest.skipIf(torch is None, "needs PyTorch (Debian's python3-torch)")
class CausalLmTest(unittest.TestCase):
    def model(self):
        from draftsmith_train.causal_lm import GPT2, GPT2Config

        torch.manual_seed(0)
        m = GPT2(GPT2Config(vocab_size=50, n_positions=32, n_embd=16, n_layer=2, n_head=2, dropout=0.0))
        return m.eval()

    def test_cached_steps_equal_one_full_pass(self):
        m = self.model()
        ids = torch.tensor([[2, 7, 9, 11, 13, 17]])
        with torch.no_grad():
            full, _ = m(ids)
            logits, past = m(ids[:, :3])
            steps = [logits[:, -1]]
            for t in range(3, 6):
                out, past = m(ids[:, t : t + 1], attention_mask=torch.ones(1, t + 1, dtype=torch.long), past=past)
                steps.append(out[:, -1])
        torch.testing.assert_close(torch.stack(steps[:-1], 1), full[:, 2:5], atol=1e-5, rtol=1e-5)

    def test_a_model_off_the_cpu_makes_its_positions_and_mask_where_its_ids_are(self):
        # the meta device stands in for CUDA: a GPU run failed on positions made on the CPU
        m = self.model().to("meta")
        logits, _ = m(torch.zeros(2, 5, dtype=torch.long, device="meta"))
        self.assertEqual((logits.device.type, tuple(logits.shape)), ("meta", (2, 5, 50)))

    def test_left_padding_does_not_change_a_row(self):
        m = self.model()
        with torch.no_grad():
            alone, _ = m(torch.tensor([[2, 7, 9]]))
            padded, _ = m(
                torch.tensor([[0, 0, 2, 7, 9]]),
                attention_mask=torch.tensor([[0, 0, 1, 1, 1]]),
                position_ids=torch.tensor([[0, 0, 0, 1, 2]]),
            )
        torch.testing.assert_close(padded[:, 2:], alone, atol=1e-5, rtol=1e-5)

    def test_export_has_the_layout_transformers_js_runs(self):
        import onnx
        from draftsmith_train.causal_lm import export

        with tempfile.TemporaryDirectory() as out:
            export(self.model(), TOKENIZER, out, int8=True)
            g = onnx.load(os.path.join(out, "onnx", "model.onnx")).graph
            self.assertEqual(
                [i.name for i in g.input],
                [
                    "input_ids",
                    "attention_mask",
                    "position_ids",
                    "past_key_values.0.key",
                    "past_key_values.0.value",
                    "past_key_values.1.key",
                    "past_key_values.1.value",
                ],
            )
            self.assertEqual(
                [o.name for o in g.output],
                ["logits", "present.0.key", "present.0.value", "present.1.key", "present.1.value"],
            )
            config = json.load(open(os.path.join(out, "config.json")))
            self.assertEqual(
                (config["model_type"], config["n_layer"], config["n_head"], config["n_embd"]), ("gpt2", 2, 2, 16)
            )
            for f in ("tokenizer.json", "tokenizer_config.json", "generation_config.json", "README.md"):
                self.assertTrue(os.path.exists(os.path.join(out, f)), f)


if __name__ == "__main__":
    unittest.main()
