"""hub_fixtures.py: the Hub fixture repositories are what the generator writes, every time the same bytes;
their graphs have the names, dims, dtypes and ops transformers.js and the real repositories have; and the
math they are built from (the PyTorch references, the same weights) gives the same logits through the
cache as in one full pass. check_hub_fixtures.cjs runs the ONNX graphs themselves (no onnxruntime here).

  /usr/bin/python3 -m unittest discover -s models/train/tests -p 'test_hub_fixtures.py' -v
"""

import filecmp
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
HUB = os.path.join(ROOT, "test", "fixtures", "hub")


def dims(value_info):
    return [d.dim_param or d.dim_value for d in value_info.type.tensor_type.shape.dim]


def listing(folder):
    return sorted(
        os.path.relpath(os.path.join(d, f), folder).replace(os.sep, "/") for d, _, fs in os.walk(folder) for f in fs
    )


@unittest.skipIf(torch is None, "needs PyTorch (Debian's python3-torch)")
class HubFixturesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        from draftsmith_train import hub_fixtures

        cls.hf = hub_fixtures
        cls.tmp = tempfile.TemporaryDirectory()
        cls.out = [os.path.join(cls.tmp.name, n) for n in ("a", "b")]
        for out in cls.out:
            hub_fixtures.write_fixtures(out)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_deterministic_and_committed(self):
        a, b = self.out
        files = listing(a)
        self.assertEqual(files, listing(b))
        _, mismatch, errors = filecmp.cmpfiles(a, b, files, shallow=False)
        self.assertEqual((mismatch, errors), ([], []), "two runs of the generator differ")
        if not os.path.isdir(os.path.join(HUB, self.hf.OWNER)):
            self.skipTest("no committed fixtures")
        committed = [
            f for f in listing(HUB) if f.startswith(self.hf.OWNER + "/") or f in ("MIRRORS.json", "CHECKS.json")
        ]
        self.assertEqual(committed, files, "the committed fixtures are not the generator's listing: rerun it")
        exact = [f for f in files if f != "CHECKS.json"]
        _, mismatch, errors = filecmp.cmpfiles(a, HUB, exact, shallow=False)
        self.assertEqual((mismatch, errors), ([], []), "the committed fixtures are not what the generator writes")
        # PyTorch's numbers may move in the last printed digit with another BLAS
        mine, theirs = (json.load(open(os.path.join(d, "CHECKS.json"))) for d in (a, HUB))
        for repo, check in mine.items():
            self.assertEqual(check["sample_ids"], theirs[repo]["sample_ids"], repo)
            for dtype, v in check["variants"].items():
                w = theirs[repo]["variants"][dtype]
                key = "last_hidden" if "last_hidden" in v else "last_logits"
                self.assertLess(max(abs(x - y) for x, y in zip(v[key], w[key])), 1e-4, repo)
            if "bertscore" in check:
                for idf in ("idf_off", "idf_on"):
                    for a, b in zip(check["bertscore"][idf]["per_pair"], theirs[repo]["bertscore"][idf]["per_pair"]):
                        self.assertLess(max(abs(a[k] - b[k]) for k in "PRF"), 1e-6, repo)

    def test_listing_sizes_and_mirrors(self):
        out = self.out[0]
        mirrors = json.load(open(os.path.join(out, "MIRRORS.json")))["repos"]
        expected = {
            "gpt2": [
                "decoder_model.onnx",
                "decoder_model_merged.onnx",
                "decoder_model_merged_quantized.onnx",
                "decoder_model_quantized.onnx",
                "decoder_with_past_model.onnx",
                "decoder_with_past_model_quantized.onnx",
            ],
            "gpt2-model": ["model.onnx", "model_quantized.onnx"],
            "distilgpt2": ["decoder_model_merged.onnx", "decoder_model_merged_quantized.onnx"],
            "SmolLM2-135M-Instruct": [
                "model.onnx",
                "model_fp16.onnx",
                "model_int8.onnx",
                "model_q4.onnx",
                "model_q4f16.onnx",
                "model_uint8.onnx",
            ],
            "Qwen2.5-0.5B-Instruct": [
                "model.onnx",
                "model_fp16.onnx",
                "model_int8.onnx",
                "model_q4.onnx",
                "model_q4f16.onnx",
                "model_quantized.onnx",
                "model_uint8.onnx",
            ],
            "Qwen2.5-0.5B-Instruct-num-logits": ["model.onnx", "model_q4f16.onnx"],
            "distilbart-cnn-12-6": [
                "decoder_model_merged.onnx",
                "decoder_model_merged_quantized.onnx",
                "encoder_model.onnx",
                "encoder_model_quantized.onnx",
            ],
            "all-MiniLM-L6-v2": ["model.onnx", "model_quantized.onnx"],
        }
        # the other families: fp32 and q4 each (a SentencePiece-style repository has no vocab.json/merges.txt)
        sentencepiece = {
            e["name"]
            for e in self.hf.family_catalogue()
            if json.load(open(os.path.join(out, "fixtures", e["name"], "tokenizer.json")))["model"].get("byte_fallback")
        }
        expected |= {e["name"]: ["model.onnx", "model_q4.onnx"] for e in self.hf.family_catalogue()}
        self.assertEqual(sorted(mirrors), sorted(f"fixtures/{n}" for n in expected))
        total = 0
        for name, onnx_files in expected.items():
            folder = os.path.join(out, "fixtures", name)
            files = listing(folder)
            top = {"README.md", "config.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"}
            # an encoder (WordPiece) has vocab.txt and no generation settings
            top |= (
                {"vocab.txt"}
                if name == "all-MiniLM-L6-v2"
                else {"generation_config.json"} | (set() if name in sentencepiece else {"vocab.json", "merges.txt"})
            )
            self.assertEqual(files, sorted(top | {"onnx/" + f for f in onnx_files}), name)
            m = mirrors[f"fixtures/{name}"]
            self.assertEqual([f["path"] for f in m["files"]], files)
            for f in m["files"]:
                self.assertEqual(f["size"], os.path.getsize(os.path.join(folder, f["path"])))
            # every load option names a file that is there (transformers.js: onnx/<model_file_name><suffix>.onnx)
            for load in m["load"]:
                suffix = self.hf.DTYPES[load["dtype"]][0]
                stem = load.get("model_file_name", "encoder_model" if m["family"] == "bart" else "model")
                self.assertIn(f"onnx/{stem}{suffix}.onnx", files, (name, load))
            size = sum(f["size"] for f in m["files"])
            if name in {e["name"] for e in self.hf.family_catalogue()}:
                self.assertLess(size, 300_000, f"{name}: a family's fixture should stay under 300 KB")
            total += size
        self.assertLess(total, 8 * 2**20, "the fixtures should stay a few MB")

    def test_graph_layouts(self):
        import onnx

        out = os.path.join(self.out[0], "fixtures")
        F32, F16 = onnx.TensorProto.FLOAT, onnx.TensorProto.FLOAT16

        def load(repo, f):
            return onnx.load(os.path.join(out, repo, "onnx", f))

        def io(g):
            return {v.name: v for v in list(g.input) + list(g.output)}

        def elem(v):
            return v.type.tensor_type.elem_type

        def ops(g):
            found = set()
            for n in g.node:
                found.add((n.domain or "", n.op_type))
                for a in n.attribute:
                    if a.type == onnx.AttributeProto.GRAPH:
                        found |= ops(a.g)
            return found

        # optimum's merged decoders: one If on use_cache_branch, bool [1]
        for repo, f, pos in (
            ("gpt2", "decoder_model_merged.onnx", True),
            ("gpt2-model", "model.onnx", True),
            ("distilgpt2", "decoder_model_merged.onnx", False),
        ):
            g = load(repo, f).graph
            names = [i.name for i in g.input]
            self.assertEqual(names[:2], ["input_ids", "attention_mask"], repo)
            self.assertEqual("position_ids" in names, pos, repo)
            self.assertEqual(names[-1], "use_cache_branch")
            self.assertEqual((elem(g.input[-1]), dims(g.input[-1])), (onnx.TensorProto.BOOL, [1]))
            self.assertEqual([n.op_type for n in g.node], ["If"])
            self.assertEqual(dims(io(g)["past_key_values.1.key"]), ["batch_size", 4, "past_sequence_length", 8])
            self.assertEqual([o.name for o in g.output][:3], ["logits", "present.0.key", "present.0.value"])
        self.assertNotIn("past_key_values.0.key", io(load("gpt2", "decoder_model.onnx").graph))
        self.assertIn("MatMulInteger", {o for _, o in ops(load("gpt2", "decoder_model_merged_quantized.onnx").graph)})

        # Llama / Qwen2: float16 caches and logits where the real fp16/q4f16 files have them
        for repo, vocab, kv in (("SmolLM2-135M-Instruct", 320, 2), ("Qwen2.5-0.5B-Instruct", 384, 2)):
            for f, cache, q in (
                ("model.onnx", F32, None),
                ("model_fp16.onnx", F16, None),
                ("model_q4.onnx", F32, ("com.microsoft", "MatMulNBits")),
                ("model_q4f16.onnx", F16, ("com.microsoft", "MatMulNBits")),
                ("model_int8.onnx", F32, ("", "MatMulInteger")),
                ("model_uint8.onnx", F32, ("", "MatMulInteger")),
            ):
                g = load(repo, f).graph
                v = io(g)
                self.assertEqual(
                    [i.name for i in g.input][:3], ["input_ids", "attention_mask", "position_ids"], (repo, f)
                )
                self.assertNotIn("use_cache_branch", v)
                self.assertEqual(dims(v["past_key_values.0.key"]), ["batch_size", kv, "past_sequence_length", 8])
                self.assertEqual(
                    dims(v["present.1.value"]), ["batch_size", kv, "past_sequence_length + sequence_length", 8]
                )
                self.assertEqual(dims(v["logits"]), ["batch_size", "sequence_length", vocab])
                self.assertEqual((elem(v["past_key_values.0.key"]), elem(v["logits"])), (cache, cache), (repo, f))
                if q:
                    self.assertIn(q, ops(g), (repo, f))
                # no float weight matrix left beside the quantized ones (embedding tables excepted)
                mats = [t for t in g.initializer if len(t.dims) == 2 and t.data_type in (F32, F16)]
                self.assertEqual([t.name for t in mats if q and "embed_tokens" not in t.name], [], (repo, f))
        g = load("Qwen2.5-0.5B-Instruct-num-logits", "model_q4f16.onnx").graph
        keep = io(g)["num_logits_to_keep"]
        self.assertEqual((elem(keep), dims(keep)), (onnx.TensorProto.INT64, []))
        uint8 = load("SmolLM2-135M-Instruct", "model_uint8.onnx").graph
        self.assertIn(onnx.TensorProto.UINT8, {t.data_type for t in uint8.initializer if len(t.dims) == 2})

        # BART: the encoder, and the merged decoder with the encoder presents
        g = load("distilbart-cnn-12-6", "encoder_model.onnx").graph
        self.assertEqual([i.name for i in g.input], ["input_ids", "attention_mask"])
        self.assertEqual(
            [(o.name, dims(o)) for o in g.output],
            [("last_hidden_state", ["batch_size", "encoder_sequence_length", 32])],
        )
        g = load("distilbart-cnn-12-6", "decoder_model_merged.onnx").graph
        past = [
            f"past_key_values.{i}.{k}.{kv}" for i in range(2) for k in ("decoder", "encoder") for kv in ("key", "value")
        ]
        self.assertEqual(
            [i.name for i in g.input],
            ["input_ids", "encoder_attention_mask", "encoder_hidden_states"] + past + ["use_cache_branch"],
        )
        self.assertEqual(
            [o.name for o in g.output], ["logits"] + [p.replace("past_key_values", "present") for p in past]
        )
        self.assertEqual(
            dims(io(g)["past_key_values.0.encoder.key"]), ["batch_size", 4, "encoder_sequence_length_out", 8]
        )

    def test_tokenizers_and_configs(self):
        hf = self.hf
        out = os.path.join(self.out[0], "fixtures")

        def read(repo, f):
            return json.load(open(os.path.join(out, repo, f), encoding="utf-8"))

        for repo in os.listdir(out):
            tok = read(repo, "tokenizer.json")
            if tok["model"]["type"] == "WordPiece":
                # BERT's: vocab.txt is the vocabulary in id order, the special tokens at BERT's ids
                vocab = tok["model"]["vocab"]
                self.assertEqual(sorted(vocab.values()), list(range(len(vocab))), repo)
                with open(os.path.join(out, repo, "vocab.txt"), encoding="utf-8") as f:
                    self.assertEqual(f.read().split("\n")[:-1], sorted(vocab, key=vocab.get), repo)
                self.assertEqual(
                    {t["content"]: t["id"] for t in tok["added_tokens"]},
                    {"[PAD]": 0, "[UNK]": 100, "[CLS]": 101, "[SEP]": 102, "[MASK]": 103},
                )
                self.assertGreaterEqual(read(repo, "config.json")["vocab_size"], len(vocab), repo)
                continue
            vocab, merges = tok["model"]["vocab"], tok["model"]["merges"]
            for m in merges:  # every merge joins two tokens into a third
                a, b = m.split(" ")
                self.assertTrue(a in vocab and b in vocab and a + b in vocab, (repo, m))
            # added tokens may be pieces of the model too (SentencePiece's <unk>, <s>, </s>), at the same id
            pieces = dict(vocab)
            for t in tok["added_tokens"]:
                self.assertEqual(pieces.setdefault(t["content"], t["id"]), t["id"], (repo, t))
            ids = sorted(pieces.values())
            self.assertEqual(ids, list(range(len(ids))), repo)
            config = read(repo, "config.json")
            self.assertGreaterEqual(config["vocab_size"], len(ids), repo)
            if not os.path.exists(os.path.join(out, repo, "vocab.json")):
                continue  # SentencePiece-style: tokenizer.json alone
            specials = {} if repo.startswith("Qwen") else {t["content"]: t["id"] for t in tok["added_tokens"]}
            self.assertEqual(read(repo, "vocab.json"), {**vocab, **specials}, repo)
        # GPT-2: BOS = EOS = <|endoftext|>, the last id
        c = read("gpt2", "config.json")
        self.assertEqual((c["bos_token_id"], c["eos_token_id"], c["vocab_size"]), (319, 319, 320))
        self.assertEqual(read("gpt2", "tokenizer.json")["added_tokens"][0]["content"], "<|endoftext|>")
        # SmolLM2: its 17 special tokens first, BOS <|im_start|> (1), EOS and PAD <|im_end|> (2)
        tc = read("SmolLM2-135M-Instruct", "tokenizer_config.json")
        self.assertEqual(
            (tc["bos_token"], tc["eos_token"], tc["pad_token"]), ("<|im_start|>", "<|im_end|>", "<|im_end|>")
        )
        self.assertEqual(tc["chat_template"], hf.SMOL_TEMPLATE)
        self.assertEqual([tc["added_tokens_decoder"][str(i)]["content"] for i in range(3)], hf.SMOL_SPECIALS[:3])
        self.assertEqual(read("SmolLM2-135M-Instruct", "generation_config.json")["eos_token_id"], 2)
        # Qwen2.5: no BOS token, eos [<|im_end|>, <|endoftext|>] in generation_config, config vocab > tokenizer
        tc = read("Qwen2.5-0.5B-Instruct", "tokenizer_config.json")
        added = {t["content"]: t["id"] for t in read("Qwen2.5-0.5B-Instruct", "tokenizer.json")["added_tokens"]}
        self.assertIsNone(tc["bos_token"])
        self.assertEqual(tc["chat_template"], hf.QWEN_TEMPLATE)
        gen = read("Qwen2.5-0.5B-Instruct", "generation_config.json")
        self.assertEqual(gen["eos_token_id"], [added["<|im_end|>"], added["<|endoftext|>"]])
        self.assertEqual(read("Qwen2.5-0.5B-Instruct", "config.json")["eos_token_id"], added["<|im_end|>"])
        # distilbart-cnn: its generation settings
        gen = read("distilbart-cnn-12-6", "generation_config.json")
        self.assertEqual(
            {k: gen[k] for k in ("num_beams", "min_length", "max_length", "length_penalty", "no_repeat_ngram_size")},
            {"num_beams": 4, "min_length": 56, "max_length": 142, "length_penalty": 2.0, "no_repeat_ngram_size": 3},
        )
        self.assertEqual(
            (gen["forced_bos_token_id"], gen["decoder_start_token_id"], gen["early_stopping"]), (0, 2, True)
        )

    def test_other_families(self):
        """Each family beyond GPT-2, Llama and Qwen2: its cache shapes from config.json (the family's own
        head_dim where it has one), its start-token convention, its template, NoPE and untied output layers."""
        import onnx

        from draftsmith_train import hub_family_specs as S

        out = os.path.join(self.out[0], "fixtures")
        families = {e["family"]: e for e in self.hf.family_catalogue()}
        self.assertEqual(set(families), set(S.CHAT_PROMPTS))
        for fam, e in families.items():
            folder = os.path.join(out, e["name"])
            c = json.load(open(os.path.join(folder, "config.json")))
            tok = json.load(open(os.path.join(folder, "tokenizer.json")))
            tc = json.load(open(os.path.join(folder, "tokenizer_config.json")))
            self.assertEqual(c["model_type"], fam)
            D = c.get("head_dim") or c["hidden_size"] // c["num_attention_heads"]
            if fam in ("qwen3", "gemma", "gemma2", "gemma3_text"):
                self.assertNotEqual(D, c["hidden_size"] // c["num_attention_heads"], f"{fam}: head_dim set apart")
            for f in ("model.onnx", "model_q4.onnx"):
                g = onnx.load(os.path.join(folder, "onnx", f)).graph
                v = {x.name: x for x in list(g.input) + list(g.output)}
                self.assertEqual([i.name for i in g.input][:3], ["input_ids", "attention_mask", "position_ids"])
                L = c["num_hidden_layers"]
                self.assertEqual(len([n for n in v if n.startswith("past_key_values.")]), 2 * L, fam)
                kv = c["num_key_value_heads"]
                self.assertEqual(
                    dims(v[f"past_key_values.{L - 1}.value"]), ["batch_size", kv, "past_sequence_length", D]
                )
                self.assertEqual(dims(v["logits"]), ["batch_size", "sequence_length", c["vocab_size"]], fam)
                if f == "model.onnx":  # an output layer of its own, or the embedding table transposed
                    lm_head = any(t.name == "lm_head.weight" for t in g.initializer)
                    self.assertEqual(lm_head, c.get("tie_word_embeddings") is False, f"{fam}: untied output layer")
                rotary = {n.name.split("/")[1] for n in g.node if "/q_rotary/" in n.name}
                no_rope = c.get("no_rope_layers", [1] * L)
                self.assertEqual(rotary, {f"model.layers.{i}.self_attn" for i in range(L) if no_rope[i]}, fam)
            # the start token: the post-processor puts it first exactly when the tokenizer config says so
            first = tok["post_processor"].get("single", [{}])[0]
            self.assertEqual("SpecialToken" in first, bool(tc.get("add_bos_token")), fam)
            if "SpecialToken" in first:
                self.assertEqual(first["SpecialToken"]["id"], tc["bos_token"])
            self.assertIn(tc["chat_template"], {getattr(S, k) for k in dir(S) if k.endswith("_TEMPLATE")}, fam)
        self.assertTrue(
            any(x == 0 for x in json.load(open(os.path.join(out, "SmolLM3-3B", "config.json")))["no_rope_layers"])
        )

    def test_real_vocabulary_padding(self):
        _, info = self.hf.smol_tokenizer(self.hf.SMOL_MERGES, real_vocab=49152)
        self.assertEqual(info["size"], 49152)
        # the tiny tokenizer's tokens keep their ids; the generated merges come after them
        _, tiny = self.hf.smol_tokenizer(self.hf.SMOL_MERGES)
        big = info["bpe"].vocab
        self.assertEqual({t: big[t] for t in tiny["bpe"].vocab}, tiny["bpe"].vocab)
        self.assertEqual(info["bpe"].merges[: len(tiny["bpe"].merges)], tiny["bpe"].merges)

    def test_q4_packing(self):
        import numpy as np

        w = np.random.default_rng(0).standard_normal((48, 5)).astype(np.float32)
        packed, scales, deq = self.hf.q4_pack(w)
        self.assertEqual((packed.shape, scales.shape), ((5, 3, 8), (15,)))  # 3 blocks of 16, two values a byte
        q = np.stack([packed & 15, packed >> 4], -1).reshape(5, 48).astype(np.float32) - 8
        np.testing.assert_allclose(q * np.repeat(scales.reshape(5, 3), 16, 1), deq.T, rtol=0, atol=1e-6)
        self.assertLessEqual(float(np.abs(deq - w).max()), float(scales.max()) / 2 + 1e-6)


@unittest.skipIf(torch is None, "needs PyTorch (Debian's python3-torch)")
class ReferenceMathTest(unittest.TestCase):
    """The PyTorch references the graphs are checked against: a cache gives a full pass's logits."""

    @classmethod
    def setUpClass(cls):
        from draftsmith_train import hub_fixtures

        cls.hf = hub_fixtures

    def assertClose(self, a, b, tol=1e-4):
        self.assertLess(float((a - b).abs().max()), tol)

    def llama(self, qwen):
        hf = self.hf
        if qwen:
            c = hf.head_dim(hf.qwen_config(384, 296, 298))
            c["attention_bias"] = True
        else:
            c = hf.head_dim(hf.smol_config(320))
        W = hf.effective(hf.llama_weights(c, 5), "float", lm_head_of="model.embed_tokens")
        return c, W

    def test_llama_and_qwen_cache_and_padding(self):
        hf = self.hf
        for qwen in (False, True):
            c, W = self.llama(qwen)
            ids = torch.tensor([[5, 60, 70, 80, 90, 100, 110, 120, 130]])
            T = ids.shape[1]
            with torch.no_grad():
                full, _ = hf.ref_llama(c, W, ids, torch.ones(1, T, dtype=torch.long), torch.arange(T)[None])
                logits, past = hf.ref_llama(c, W, ids[:, :4], torch.ones(1, 4, dtype=torch.long), torch.arange(4)[None])
                steps = [logits]
                for j in range(4, T):
                    logits, past = hf.ref_llama(
                        c, W, ids[:, j : j + 1], torch.ones(1, j + 1, dtype=torch.long), torch.tensor([[j]]), past
                    )
                    steps.append(logits)
                self.assertClose(torch.cat(steps, 1), full)
                # left padding: positions from the mask, as transformers.js makes them
                padded = torch.cat([torch.tensor([[0, 0]]), ids[:, :6]], 1)
                mask = torch.tensor([[0, 0] + [1] * 6])
                pos = (mask.cumsum(-1) - 1).masked_fill(mask == 0, 1)
                got, _ = hf.ref_llama(c, W, padded, mask, pos)
                self.assertClose(got[:, -1], full[:, 5])

    def test_grouped_query_attention_is_repeat_kv(self):
        """H query heads on KV key-value heads equal H heads whose key/value projections repeat each
        key-value head H/KV times in a row (Hugging Face's repeat_kv)."""
        hf = self.hf
        c, W = self.llama(False)
        H, KV, D = c["num_attention_heads"], c["num_key_value_heads"], c["head_dim"]
        mha = dict(c, num_key_value_heads=H)
        W2 = dict(W)
        for i in range(c["num_hidden_layers"]):
            for n in ("k_proj", "v_proj"):
                k = f"model.layers.{i}.self_attn.{n}"
                w = W[k].reshape(-1, KV, 1, D).repeat(H // KV, axis=2).reshape(-1, H * D)
                W2[k] = w
        ids = torch.tensor([[7, 8, 9, 10, 11]])
        m = torch.ones_like(ids)
        with torch.no_grad():
            a, _ = hf.ref_llama(c, W, ids, m, torch.arange(5)[None])
            b, _ = hf.ref_llama(mha, W2, ids, m, torch.arange(5)[None])
        self.assertClose(a, b, 1e-5)

    def test_gpt2_cache_with_and_without_position_ids(self):
        hf = self.hf
        c = hf.gpt2_config(2, 320, 319)
        W = hf.effective(hf.gpt2_weights(c, 3), "float", lm_head_of="transformer.wte")
        ids = torch.tensor([[1, 50, 60, 70, 80, 90, 100]])
        T = ids.shape[1]
        with torch.no_grad():
            for with_pos in (True, False):
                pos = (lambda a, b: torch.arange(a, b)[None]) if with_pos else (lambda a, b: None)
                full, _ = hf.ref_gpt2(c, W, ids, torch.ones(1, T, dtype=torch.long), pos(0, T))
                logits, past = hf.ref_gpt2(c, W, ids[:, :3], torch.ones(1, 3, dtype=torch.long), pos(0, 3))
                steps = [logits]
                for j in range(3, T):
                    logits, past = hf.ref_gpt2(
                        c, W, ids[:, j : j + 1], torch.ones(1, j + 1, dtype=torch.long), pos(j, j + 1), past
                    )
                    steps.append(logits)
                self.assertClose(torch.cat(steps, 1), full)

    def test_bart_cache(self):
        hf = self.hf
        c = hf.bart_config(320)
        W = hf.effective(hf.bart_weights(c, 4), "float", lm_head_of="model.shared")
        src = torch.tensor([[0, 30, 40, 50, 60, 2, 1, 1]])
        mask = torch.tensor([[1] * 6 + [0] * 2])
        dec = torch.tensor([[2, 0, 100, 110, 120]])
        with torch.no_grad():
            enc = hf.ref_bart_encoder(c, W, src, mask)
            alone = hf.ref_bart_encoder(c, W, src[:, :6], mask[:, :6])
            self.assertClose(enc[:, :6], alone)  # padding is masked out
            full, _ = hf.ref_bart_decoder(c, W, dec, mask, enc)
            logits, past = hf.ref_bart_decoder(c, W, dec[:, :1], mask, enc)
            steps = [logits]
            for j in range(1, dec.shape[1]):
                # the cross-attention keys/values of the first step are kept, as transformers.js does
                logits, nxt = hf.ref_bart_decoder(c, W, dec[:, j : j + 1], mask, enc, past)
                past = [(k, v, p[2], p[3]) for (k, v, _, _), p in zip(nxt, past)]
                steps.append(logits)
            self.assertClose(torch.cat(steps, 1), full)


if __name__ == "__main__":
    unittest.main()
