"""chunk.slim(half=True), which a GPU chunk uses to hand a checkpoint back in float16: a tensor the
model ties under several names (Round-Trip's word embedding, read by its encoder and decoder) stays one
tensor, so the file is half the float32 one, not larger; and it loads back into the model.

  /usr/bin/python3 -m unittest discover -s models/train/tests -p 'test_chunk_slim.py' -v
"""
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import torch  # noqa: E402

from draftsmith_train.chunk import slim, widen  # noqa: E402
from draftsmith_train.weight_storage import quantize_  # noqa: E402
from draftsmith_train.roundtrip_model import Config, RoundTrip, load_model  # noqa: E402


class SlimTest(unittest.TestCase):
    def test_float16_keeps_a_tied_embedding_once(self):
        model = RoundTrip(Config("hier-attn", vocab_size=2000, embed=64, hidden=32, layers=1))
        state = model.state_dict()
        self.assertEqual(state["embedding.weight"].data_ptr(), state["word_decoder.embedding.weight"].data_ptr())
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "rt.pt")
            torch.save({"config": model.c.to_dict(), "state": state, "meta": {}}, path)
            full = os.path.getsize(path)
            slim(path, half=True)
            half = os.path.getsize(path)
            self.assertLess(half, 0.6 * full, f"float16 {half} bytes against float32 {full}")
            back, _ = load_model(path)
            for name, value in back.state_dict().items():
                torch.testing.assert_close(value, state[name], atol=1e-3, rtol=1e-3, msg=name)

    def test_int8_rows_come_back_as_the_export_rounds_them(self):
        model = RoundTrip(Config("hier-attn", vocab_size=2000, embed=64, hidden=32, layers=1))
        state = {k: v.clone() for k, v in model.state_dict().items()}
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "rt.pt")
            torch.save({"config": model.c.to_dict(), "state": model.state_dict(), "meta": {}}, path)
            full = os.path.getsize(path)
            slim(path, int8=True)
            small = os.path.getsize(path)
            self.assertLess(small, 0.4 * full, f"int8 {small} bytes against float32 {full}")
            widen(path)
            back, _ = load_model(path)
        quantize_(model)  # what an export does to the original weights
        rounded = model.state_dict()
        for name, value in back.state_dict().items():
            self.assertEqual(value.dtype, torch.float32, name)
            torch.testing.assert_close(value, rounded[name], atol=1e-7, rtol=1e-6, msg=name)
        self.assertFalse(torch.equal(rounded["embedding.weight"], state["embedding.weight"]))  # it was rounded


if __name__ == "__main__":
    unittest.main()
