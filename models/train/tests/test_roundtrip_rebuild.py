"""Round-Trip's PyTorch weights rebuilt from its exported graphs (weights_from_onnx.py): the LSTMs' gates
back in PyTorch's order, the attention's bias-less projections placed, the folded start vector found.
The parity fixtures were computed by the exporter from the weights it shipped, so a rebuilt model must
write their greedy tokens and first-step states; a training checkpoint made from it must resume there.

  /usr/bin/python3 -m unittest discover -s models/train/tests -p 'test_roundtrip_rebuild.py' -v
"""
import json
import os
import sys
import tempfile
import unittest

import torch

TRAIN = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
REPO = os.path.abspath(os.path.join(TRAIN, "..", ".."))
sys.path.insert(0, TRAIN)

from draftsmith_train import tokenizer as T  # noqa: E402
from draftsmith_train.export_roundtrip import HierEncoder, SentenceStep, StandardEncoder, WordStep  # noqa: E402
from draftsmith_train.roundtrip_model import load_model  # noqa: E402
from draftsmith_train.weights_from_onnx import load_shipped, roundtrip_checkpoint  # noqa: E402

FOLDERS = {
    "shipped": (
        os.path.join(REPO, "models", "roundtrip"),
        os.path.join(REPO, "test", "fixtures", "roundtrip-parity.json"),
    ),
    "standard": (os.path.join(REPO, "test", "fixtures", "roundtrip-models", "standard"), None),
    "hier": (os.path.join(REPO, "test", "fixtures", "roundtrip-models", "hier"), None),
}


def parity(folder, fixture):
    return json.load(open(fixture or os.path.join(folder, "parity.json")))


def first_values(model, f):
    """The first values the fixture records: the encoder's (h of the top layer; memory for hier), then
    the first word step's five best log-probabilities (after the first sentence step for hier)."""
    with torch.no_grad():
        if model.c.model == "standard":
            h, c = StandardEncoder(model)(torch.tensor([f["encoder_input_ids"]]))
            got = {"h_first": h[-1, 0, :8]}
        else:
            memory, h, c, start = HierEncoder(model)(
                torch.tensor(f["encoder_input_ids"]), torch.tensor(f["encoder_lengths"])
            )
            step = SentenceStep(model)(start, h, c, *([memory] if model.c.model == "hier-attn" else []))
            h, c = step[0], step[1]
            got = {"memory_first": memory[0, 0, :8], "h_first": h[-1, 0, :8]}
        log_probs = WordStep(model)(torch.tensor([[T.BOS]]), h, c)[0][0]
        got["first_log_probs_values"] = torch.topk(log_probs, 5).values
    return got


class RoundTripRebuild(unittest.TestCase):
    def test_each_layout_rebuilt_from_its_graphs_writes_the_exporters_tokens(self):
        for name, (folder, fixture) in FOLDERS.items():
            with self.subTest(name):
                f = parity(folder, fixture)
                model = load_shipped(folder)
                self.assertEqual(model.c.model, f["model"])
                with torch.no_grad():
                    greedy, _ = model.greedy(f["sentence_ids"], torch.device("cpu"))
                self.assertEqual(greedy, f["greedy_ids"])
                for key, got in first_values(model, f).items():
                    torch.testing.assert_close(got, torch.tensor(f[key]), atol=2e-5, rtol=0)
        # the trained model's greedy round trip is a paragraph, not one token (the test models' are short)
        shipped = parity(*FOLDERS["shipped"])["greedy_ids"]
        self.assertGreater(len({t for s in shipped for t in s}), 10)

    def test_a_checkpoint_from_the_shipped_folder_resumes_at_its_step_with_its_weights(self):
        folder, fixture = FOLDERS["shipped"]
        steps = json.load(open(os.path.join(folder, "model.json")))["training"]["steps"]
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "roundtrip.pt")
            roundtrip_checkpoint(folder, out)
            model, meta = load_model(out)
        self.assertEqual(meta["train_state"]["steps"], steps)
        with torch.no_grad():
            greedy, _ = model.eval().greedy(parity(folder, fixture)["sentence_ids"], torch.device("cpu"))
        self.assertEqual(greedy, parity(folder, fixture)["greedy_ids"])


if __name__ == "__main__":
    unittest.main()
