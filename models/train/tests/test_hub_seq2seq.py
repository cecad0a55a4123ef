"""export_peer.py --hub-layout: the summarizer the loopback Hub serves must be what
transformers.js's seq2seq generate() runs on plain tokenizer output. A tiny random TAAS: its hub
graphs' PyTorch modules give the model's own numbers (the topic slot prepended inside, the source ids
in the extra channel, a padded batch row as alone), and its export has the inputs, outputs, symbolic
dimensions and config transformers.js needs. No onnxruntime (check_hub_seq2seq.cjs runs the graphs).

  /usr/bin/python3 -m unittest discover -s models/train/tests -p 'test_hub_seq2seq.py' -v
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

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
TOKENIZER = os.path.join(ROOT, "models", "summarize")  # tokenizer.json, tokenizer_config.json
FIXTURE = os.path.join(ROOT, "test", "fixtures", "hub", "draftsmith", "summarize-taas")
L = 2  # decoder layers of the tiny model


def dims(value_info):
    return [d.dim_param or d.dim_value for d in value_info.type.tensor_type.shape.dim]


@unittest.skipIf(torch is None, "needs PyTorch (Debian's python3-torch)")
class HubSeq2SeqTest(unittest.TestCase):
    def model(self, topic_attention=True):
        from draftsmith_train.modules import ModelConfig, PointerGenerator, TopicAwareSummarizer

        PointerGenerator.copy_op = "scatter"
        torch.manual_seed(0)
        c = ModelConfig(
            vocab_size=60,
            d_model=16,
            n_heads=2,
            d_ff=32,
            encoder_layers=1,
            decoder_layers=L,
            max_source_positions=64,
            max_target_positions=32,
            dropout=0.0,
            num_topics=3,
            bow_vocab_size=20,
            topic_attention=topic_attention,
        )
        return TopicAwareSummarizer(c).eval()

    def reference(self, m, ids, tgt):
        """The model's own path (the shipped engine's): encode, topic memory, decode_step."""
        mask = torch.ones_like(ids)
        memory, mm, _, _ = m.topic_memory(m.encode(ids, mask), mask)
        return m.decode_step(tgt, 0, m.cross_key_values(memory), mm, ids)[0]

    def test_hub_modules_take_plain_ids(self):
        from draftsmith_train.export_peer import TaasDecoder, TaasEncoder

        for topic_attention in (True, False):
            m = self.model(topic_attention)
            d = m.c.d_model
            ids = torch.tensor([[7, 8, 9, 10, 11, 12, 13]])
            tgt = torch.tensor([[2, 20, 21]])
            with torch.no_grad():
                ehs = TaasEncoder(m, hub=True)(ids, torch.ones_like(ids))
                self.assertEqual(list(ehs.shape), [1, 1 + 7, d + 1])
                self.assertEqual(ehs[0, :, d].tolist(), [0.0] + [float(i) for i in ids[0]])  # the pointer's source ids
                got = TaasDecoder(m, False, hub=True)(tgt, torch.ones_like(ids), ehs)[0]
                torch.testing.assert_close(got, self.reference(m, ids, tgt), atol=1e-5, rtol=1e-5)
                # the bench's peer layout reads position 0 as the placeholder: plain ids are not what it wants
                peer = TaasDecoder(m, False)(tgt, torch.ones_like(ids), TaasEncoder(m)(ids, torch.ones_like(ids)))[0]
                self.assertGreater(float((peer - got).abs().max()), 1e-3)

    def test_cached_steps_and_padded_batch(self):
        from draftsmith_train.export_peer import TaasDecoder, TaasEncoder

        m = self.model()
        long, short = [7, 8, 9, 10, 11, 12, 13], [20, 21, 22]
        ids = torch.tensor([long, short + [0] * 4])
        mask = torch.tensor([[1] * 7, [1] * 3 + [0] * 4])
        enc, no, wp = TaasEncoder(m, hub=True), TaasDecoder(m, False, hub=True), TaasDecoder(m, True, hub=True)
        with torch.no_grad():
            ehs = enc(ids, mask)
            tgt = torch.tensor([[2, 30, 31], [2, 40, 41]])
            outs = no(tgt[:, :1], mask, ehs)
            steps = [outs[0]]
            past = [t for i in range(L) for t in outs[1 + 4 * i : 5 + 4 * i]]
            for t in (1, 2):  # transformers.js: decoder presents fed back, the first step's encoder presents kept
                o = wp(tgt[:, t : t + 1], mask, ehs, *past)
                steps.append(o[0])
                past = [x for i in range(L) for x in (o[1 + 2 * i], o[2 + 2 * i], past[4 * i + 2], past[4 * i + 3])]
            got = torch.cat(steps, 1)
            for r, src in enumerate((long, short)):
                want = self.reference(m, torch.tensor([src]), tgt[r : r + 1])
                torch.testing.assert_close(got[r : r + 1], want, atol=1e-5, rtol=1e-5)

    def test_export_has_the_layout_transformers_js_runs(self):
        import onnx
        from draftsmith_train.export_peer import export_summarize_hub
        from draftsmith_train.training import save_checkpoint

        m = self.model()
        c = m.c
        H, dh = c.n_heads, c.d_model // c.n_heads
        with tempfile.TemporaryDirectory() as tmp:
            ckpt, out, fixture = (
                os.path.join(tmp, "tiny.pt"),
                os.path.join(tmp, "work"),
                os.path.join(tmp, "hub", "x", "tiny"),
            )
            save_checkpoint(ckpt, m, {"val": {"nll": 4.0, "ppl": 54.6}, "steps": 1})
            tok = os.path.join(tmp, "tokenizer")  # only the tokenizer files: the default ops
            os.makedirs(tok)
            for f in ("tokenizer.json", "tokenizer_config.json"):
                with open(os.path.join(TOKENIZER, f), "rb") as a, open(os.path.join(tok, f), "wb") as b:
                    b.write(a.read())
            export_summarize_hub(ckpt, tok, out, fixture=fixture, int8_min_elements=256, text=None)
            enc = onnx.load(os.path.join(fixture, "onnx", "encoder_model_quantized.onnx")).graph
            self.assertEqual([i.name for i in enc.input], ["input_ids", "attention_mask"])
            self.assertEqual([o.name for o in enc.output], ["last_hidden_state"])
            self.assertEqual(dims(enc.input[0]), ["batch_size", "encoder_sequence_length"])
            self.assertEqual(dims(enc.output[0]), ["batch_size", "encoder_sequence_length + 1", c.d_model + 1])
            self.assertIn("MatMulInteger", {n.op_type for n in enc.node})
            past = [
                f"past_key_values.{i}.{kind}.{kv}"
                for i in range(L)
                for kind in ("decoder", "encoder")
                for kv in ("key", "value")
            ]
            for name in ("decoder_model_merged.onnx", "decoder_model_merged_quantized.onnx"):
                g = onnx.load(os.path.join(out, "onnx", name)).graph
                inputs = {i.name: i for i in g.input}
                self.assertEqual(
                    [i.name for i in g.input],
                    ["input_ids", "encoder_attention_mask", "encoder_hidden_states"] + past + ["use_cache_branch"],
                )
                self.assertEqual(
                    [o.name for o in g.output], ["logits"] + [p.replace("past_key_values", "present") for p in past]
                )
                self.assertEqual(dims(inputs["encoder_attention_mask"]), ["batch_size", "encoder_sequence_length"])
                self.assertEqual(
                    dims(inputs["encoder_hidden_states"]), ["batch_size", "encoder_sequence_length + 1", c.d_model + 1]
                )
                self.assertEqual(inputs["use_cache_branch"].type.tensor_type.elem_type, onnx.TensorProto.BOOL)
                for p in past:
                    # transformers.js 4.x makes the first step's empty cache from these: every symbolic
                    # dimension but batch_size becomes 0, so heads and head size must be numbers
                    d = dims(inputs[p])
                    self.assertEqual((d[0], d[1], d[3]), ("batch_size", H, dh), p)
                    self.assertIsInstance(d[2], str, p)
                self.assertEqual([n.op_type for n in g.node], ["If"])
                branch_ops = {n.op_type for a in g.node[0].attribute for n in a.g.node}
                self.assertEqual("MatMulInteger" in branch_ops, "quantized" in name, name)
            self.assertEqual(
                sorted(os.listdir(os.path.join(fixture, "onnx"))),
                ["decoder_model_merged_quantized.onnx", "encoder_model_quantized.onnx"],
            )
            config = json.load(open(os.path.join(fixture, "config.json")))
            self.assertEqual(
                (
                    config["model_type"],
                    config["is_encoder_decoder"],
                    config["d_model"],
                    config["decoder_layers"],
                    config["decoder_attention_heads"],
                    config["encoder_attention_heads"],
                ),
                ("bart", True, 16, L, H, H),
            )
            self.assertEqual(
                (config["decoder_start_token_id"], config["eos_token_id"], config["pad_token_id"]), (2, 3, 0)
            )
            self.assertEqual(config["max_source_positions"], 64)
            generation = json.load(open(os.path.join(fixture, "generation_config.json")))
            self.assertEqual(
                (generation["decoder_start_token_id"], generation["eos_token_id"], generation["max_length"]), (2, 3, 32)
            )
            for f in ("tokenizer.json", "tokenizer_config.json", "README.md"):
                self.assertTrue(os.path.exists(os.path.join(fixture, f)), f)
            self.assertFalse(os.path.exists(os.path.join(fixture, "peer.json")))
            check = json.load(open(os.path.join(out, "parts", "hub_check.json")))
            self.assertEqual(len(check["first_log_probs"]), c.vocab_size)

    @unittest.skipUnless(os.path.isdir(FIXTURE), "no test/fixtures/hub/draftsmith/summarize-taas")
    def test_the_fixture(self):
        import onnx

        files = sorted(os.path.relpath(os.path.join(d, f), FIXTURE) for d, _, fs in os.walk(FIXTURE) for f in fs)
        self.assertEqual(
            files,
            [
                "README.md",
                "config.json",
                "generation_config.json",
                "onnx/decoder_model_merged_quantized.onnx",
                "onnx/encoder_model_quantized.onnx",
                "tokenizer.json",
                "tokenizer_config.json",
            ],
        )
        self.assertLess(sum(os.path.getsize(os.path.join(FIXTURE, f)) for f in files), 4 * 2**20)
        g = onnx.load(os.path.join(FIXTURE, "onnx", "decoder_model_merged_quantized.onnx")).graph
        config = json.load(open(os.path.join(FIXTURE, "config.json")))
        n = config["decoder_layers"]
        self.assertEqual(
            [i.name for i in g.input][:3] + [i.name for i in g.input][-1:],
            ["input_ids", "encoder_attention_mask", "encoder_hidden_states", "use_cache_branch"],
        )
        self.assertEqual(len(g.output), 1 + 4 * n)


if __name__ == "__main__":
    unittest.main()
