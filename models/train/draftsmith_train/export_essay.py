"""Export a PC-SAN checkpoint to the model folder the extension loads (models/essay).

encoder.onnx  input_ids, word_ids, attention_mask [B,T]
              -> cross_key_values [L,2,B,H,T,dh] (one memory per decoder layer), memory_mask [B,T],
                 source_context [B,d], layer_weights [L,S] (Eq. 2's softmax weights: the paper's Figure 3)
decoder.onnx  input_ids [B,1], memory_mask [M,T], source_context [B,d] (-Source-context only),
              past_context_sum [L,B,d], source_ids [M,T] (copy only),
              cross_key_values.{i}.key/value [M,H,T,dh], past_key_values.{i}.key/value [B,H,P,dh]
              -> log_probs [B,V], present_context_sum, present.{i}.key/value [B,H,P+1,dh]
              (one tensor per layer; M is 1 or B: every beam may read one copy of the memory)
words.json    the fastText vocabulary: word_ids[i] = 1 + its index here, 0 for anything else
model.json    the manifest, with file hashes; and test/fixtures/essay-parity.json computed by PyTorch.

Weight matrices are stored as int8 with a float32 scale per row by default (weight_storage.py: 4x
smaller; the fixture is computed from the rounded weights, so parity is exact). Measured on 100 test
paragraphs (the model card): BLEU and Diversity within 0.25 of the float32 export.

  python3 -m draftsmith_train.export_essay runs/essay.pt ../essay .data [fixture.json] [int8|float32]
"""
import json
import os
import shutil

import torch

from . import tokenizer as T
from .essay import encode_topics, load_essay_model, separator_id
from .export_common import OPSET, cache_axes, cache_names, greedy_reference, layer_caches, sha256
from .onnx_graph import rewrite_file
from .roundtrip_data import simple_corpus_tag
from .weight_storage import quantize_, store_int8_files


class EncoderExport(torch.nn.Module):
    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, input_ids, word_ids, attention_mask):
        memory, source_context = self.m.memories(input_ids, attention_mask, word_ids)
        return self.m.cross_key_values(memory), attention_mask, source_context, self.m.layer_mix.weights()


class DecoderExport(torch.nn.Module):
    """One decoding step; the caches one tensor per layer (export_summarize.DecoderExport says why)."""

    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, input_ids, memory_mask, source_context, past_context_sum, source_ids, *caches):
        n = len(self.m.decoder)
        cross = [(caches[2 * i], caches[2 * i + 1]) for i in range(n)]
        past = [(caches[2 * n + 2 * i], caches[2 * n + 2 * i + 1]) for i in range(n)]
        logp, present, sums = self.m.decode_layers(
            input_ids, cross, memory_mask, source_context, past, past_context_sum, source_ids
        )
        return (logp[:, -1], sums) + tuple(t for kv in present for t in kv)


def export(ckpt, out_dir, data_dir, fixture=None, weights="int8"):
    assert weights in ("int8", "float32"), weights
    model, meta = load_essay_model(ckpt)
    model.eval()
    # Round the weights in the model itself first: the fixture and the graphs then both compute with
    # exactly the weights that ship.
    records = quantize_(model) if weights == "int8" else {}
    c = model.c
    words = torch.load(ckpt, map_location="cpu")["words"]
    word_index = {w: i + 1 for i, w in enumerate(words)}
    os.makedirs(out_dir, exist_ok=True)
    sp = T.load(os.path.join(data_dir, "spm.model"))
    sep = separator_id(sp)
    topics = ["bee", "swallow", "geese", "flower", "frog"]
    ids_l, wids_l = encode_topics(sp, topics, word_index, sep)
    ids = torch.tensor([ids_l])
    wids = torch.tensor([wids_l])
    mask = torch.ones_like(ids)
    # eval() on the wrappers too: torch.onnx.export restores the wrapper's mode afterwards (dropout back on).
    enc, dec = EncoderExport(model).eval(), DecoderExport(model).eval()
    L, H, dh, d = c.decoder_layers, c.n_heads, c.d_model // c.n_heads, c.d_model
    with torch.no_grad():
        cross, mmask, sctx, lw = enc(ids, wids, mask)
        torch.onnx.export(
            enc,
            (ids, wids, mask),
            os.path.join(out_dir, "encoder.onnx"),
            opset_version=OPSET,
            input_names=["input_ids", "word_ids", "attention_mask"],
            output_names=["cross_key_values", "memory_mask", "source_context", "layer_weights"],
            dynamic_axes={
                "input_ids": {0: "batch", 1: "source"},
                "word_ids": {0: "batch", 1: "source"},
                "attention_mask": {0: "batch", 1: "source"},
                "cross_key_values": {2: "batch", 4: "source"},
                "memory_mask": {0: "batch", 1: "source"},
                "source_context": {0: "batch"},
            },
        )
        first = torch.tensor([[T.BOS]])
        past0, sum0 = [torch.zeros(1, H, 0, dh) for _ in range(2 * L)], torch.zeros(L, 1, d)
        out = dec(first, mmask, sctx, sum0, ids, *layer_caches(cross), *past0)
        logp, sums, present = out[0], out[1], list(out[2:])
        nxt = torch.tensor([[int(logp.argmax(-1))]])
        # Traced with a non-empty past, so the graph goes through the cache path. The memory has a
        # batch of its own (one row serves every beam). source_context feeds only the -Source-context
        # ablation, source_ids only the copy (each unused input is dropped).
        cross_in, past_in, present_out = (
            cache_names(L, "cross_key_values"),
            cache_names(L, "past_key_values"),
            cache_names(L, "present"),
        )
        torch.onnx.export(
            dec,
            (nxt, mmask, sctx, sums, ids, *layer_caches(cross), *present),
            os.path.join(out_dir, "decoder.onnx"),
            opset_version=OPSET,
            input_names=["input_ids", "memory_mask", "source_context", "past_context_sum", "source_ids"]
            + cross_in
            + past_in,
            output_names=["log_probs", "present_context_sum"] + present_out,
            dynamic_axes={
                "input_ids": {0: "batch"},
                "memory_mask": {0: "memory_batch", 1: "source"},
                "source_context": {0: "memory_batch"},
                "past_context_sum": {1: "batch"},
                "source_ids": {0: "memory_batch", 1: "source"},
                **cache_axes(cross_in, "memory_batch", "source"),
                **cache_axes(past_in, "batch", "past"),
                **cache_axes(present_out, "batch", "total"),
                "log_probs": {0: "batch"},
                "present_context_sum": {1: "batch"},
            },
        )
        rewrite_file(os.path.join(out_dir, "decoder.onnx"), {"log_probs": {1: c.vocab_size}})
        cache = {"past": past0, "sum": sum0}

        def step(tok):
            o = dec(tok, mmask, sctx, cache["sum"], ids, *layer_caches(cross), *cache["past"])
            cache["sum"], cache["past"] = o[1], list(o[2:])
            return o[0]

        greedy = greedy_reference(step, first)
    for name in ("tokenizer.json", "tokenizer_config.json"):
        shutil.copy(os.path.join(data_dir, "tokenizer", name), os.path.join(out_dir, name))
    json.dump(words, open(os.path.join(out_dir, "words.json"), "w"))
    files = ["encoder.onnx", "decoder.onnx", "tokenizer.json", "tokenizer_config.json", "words.json"]
    store_int8_files(out_dir, files[:2], records)
    variant = (
        ("" if c.layer_mix == "dynamic" else f"-{c.layer_mix}")
        + ("" if c.context == "target" else f"-{c.context}-context")
        + ("" if c.copy else "-no-copy")
    )
    tag = simple_corpus_tag(data_dir, "essay_split.json")
    backbone = c.encoder == "backbone"
    manifest = {
        "schemaVersion": 1,
        "system": "essay",
        "name": f"pcsan-{tag}{'backbone-' if backbone else ''}small" + variant,
        "description": (
            "PC-SAN: "
            + ("the shared pretrained GPT-2 backbone as the encoder" if backbone else "pretrained encoder")
            + " over the joined topic words, per-decoder-layer dynamic weighted sum of all "
            "encoder layers with fastText word vectors, decoder self-attention with target-side context"
            + (", and a pointer that copies topic subwords" if c.copy else "")
        ),
        "architecture": {
            "type": "pcsan-encoder-decoder",
            "vocabSize": c.vocab_size,
            "dModel": c.d_model,
            "heads": c.n_heads,
            "encoderLayers": c.encoder_layers,
            "decoderLayers": c.decoder_layers,
            "maxSourcePositions": c.max_source_positions,
            "maxTargetPositions": c.max_target_positions,
            "layerMix": c.layer_mix,
            "context": c.context,
            "separatorId": sep,
            "copy": c.copy,
            "encoder": c.encoder,
            **({"encoderHeads": c.backbone["n_head"]} if backbone else {}),
        },
        "files": {
            "encoder": "encoder.onnx",
            "decoder": "decoder.onnx",
            "tokenizer": "tokenizer.json",
            "tokenizerConfig": "tokenizer_config.json",
            "words": "words.json",
        },
        "sha256": {f: sha256(os.path.join(out_dir, f)) for f in files},
        "specialTokens": {"pad": T.PAD, "unk": T.UNK, "bos": T.BOS, "eos": T.EOS, "mask": T.MASK},
        "maxInputTokens": 64,
        # Beam 5 as in the paper; 50-120-word paragraphs are ~70-170 subwords. A simple-corpus paragraph is
        # often a whole ROCStories story, ~40-80 subwords: a 60 minimum would make it run past its end.
        "decoding": {
            "strategy": "beam",
            "beamSize": 5,
            "maxLength": 180,
            "minLength": 36 if tag else 60,
            "lengthPenalty": 1.0,
            "noRepeatNgramSize": 3,
        },
        "training": {k: v for k, v in meta.items() if k in ("stage", "steps", "tokens", "seconds", "val")},
        "weights": {"storage": weights},
    }
    json.dump(manifest, open(os.path.join(out_dir, "model.json"), "w"), indent=2)
    fixture = fixture or os.path.join(os.path.dirname(__file__), "../../../test/fixtures/essay-parity.json")
    json.dump(
        {
            "topics": topics,
            "input_ids": ids_l,
            "word_ids": wids_l,
            "layer_weights": [[round(float(x), 6) for x in row] for row in lw],
            "first_log_probs_top": torch.topk(logp[0], 5).indices.tolist(),
            "first_log_probs_values": [round(float(x), 5) for x in torch.topk(logp[0], 5).values],
            "greedy_ids": greedy,
        },
        open(fixture, "w"),
        indent=1,
    )
    print("exported", out_dir, {f: os.path.getsize(os.path.join(out_dir, f)) for f in files})


if __name__ == "__main__":
    import sys

    a = sys.argv[1:] + [None] * (5 - len(sys.argv[1:]))
    export(a[0], a[1], a[2], a[3], a[4] or os.environ.get("WEIGHTS", "int8"))
