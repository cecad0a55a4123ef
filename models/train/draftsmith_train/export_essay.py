"""Export a PC-SAN checkpoint to the model folder the extension loads (models/essay).

encoder.onnx  input_ids, word_ids, attention_mask [B,T]
              -> cross_key_values [L,2,B,H,T,dh] (one memory per decoder layer), memory_mask [B,T],
                 source_context [B,d], layer_weights [L,S] (Eq. 2's softmax weights: the paper's Figure 3)
decoder.onnx  input_ids [B,1], cross_key_values, memory_mask, source_context,
              past_key_values [L,2,B,H,P,dh], past_context_sum [L,B,d]
              -> log_probs [B,V], present_key_values, present_context_sum
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
from .export_summarize import OPSET, greedy_reference, sha256
from .weight_storage import quantize_, store_int8


class EncoderExport(torch.nn.Module):
    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, input_ids, word_ids, attention_mask):
        memory, source_context = self.m.memories(input_ids, attention_mask, word_ids)
        return self.m.cross_key_values(memory), attention_mask, source_context, self.m.layer_mix.weights()


class DecoderExport(torch.nn.Module):
    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, input_ids, cross_key_values, memory_mask, source_context, past_key_values, past_context_sum,
                source_ids):
        logp, present, sums = self.m.decode_step(input_ids, cross_key_values, memory_mask, source_context,
                                                 past_key_values, past_context_sum, source_ids)
        return logp[:, -1], present, sums


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
        torch.onnx.export(enc, (ids, wids, mask), os.path.join(out_dir, "encoder.onnx"), opset_version=OPSET,
                          input_names=["input_ids", "word_ids", "attention_mask"],
                          output_names=["cross_key_values", "memory_mask", "source_context", "layer_weights"],
                          dynamic_axes={"input_ids": {0: "batch", 1: "source"}, "word_ids": {0: "batch", 1: "source"},
                                        "attention_mask": {0: "batch", 1: "source"},
                                        "cross_key_values": {2: "batch", 4: "source"}, "memory_mask": {0: "batch", 1: "source"},
                                        "source_context": {0: "batch"}})
        first = torch.tensor([[T.BOS]])
        past0, sum0 = torch.zeros(L, 2, 1, H, 0, dh), torch.zeros(L, 1, d)
        logp, present, sums = dec(first, cross, mmask, sctx, past0, sum0, ids)
        nxt = torch.tensor([[int(logp.argmax(-1))]])
        # Traced with a non-empty past, so the graph goes through the cache path.
        # source_ids: the copy distribution's vocabulary positions (unused, and dropped, without copy).
        torch.onnx.export(dec, (nxt, cross, mmask, sctx, present, sums, ids), os.path.join(out_dir, "decoder.onnx"),
                          opset_version=OPSET,
                          input_names=["input_ids", "cross_key_values", "memory_mask", "source_context",
                                       "past_key_values", "past_context_sum", "source_ids"],
                          output_names=["log_probs", "present_key_values", "present_context_sum"],
                          dynamic_axes={"input_ids": {0: "batch"}, "cross_key_values": {2: "batch", 4: "source"},
                                        "memory_mask": {0: "batch", 1: "source"}, "source_context": {0: "batch"},
                                        "past_key_values": {2: "batch", 4: "past"}, "past_context_sum": {1: "batch"},
                                        "source_ids": {0: "batch", 1: "source"},
                                        "log_probs": {0: "batch"}, "present_key_values": {2: "batch", 4: "total"},
                                        "present_context_sum": {1: "batch"}})
        cache = {"past": past0, "sum": sum0}

        def step(tok):
            lp, cache["past"], cache["sum"] = dec(tok, cross, mmask, sctx, cache["past"], cache["sum"], ids)
            return lp
        greedy = greedy_reference(step, first)
    for name in ("tokenizer.json", "tokenizer_config.json"):
        shutil.copy(os.path.join(data_dir, "tokenizer", name), os.path.join(out_dir, name))
    json.dump(words, open(os.path.join(out_dir, "words.json"), "w"))
    files = ["encoder.onnx", "decoder.onnx", "tokenizer.json", "tokenizer_config.json", "words.json"]
    for f in files[:2] if records else []:
        n, a, b = store_int8(os.path.join(out_dir, f), records)
        print(f"{f}: {n} weight matrices as int8, initializers {a / 1e6:.1f} -> {b / 1e6:.1f} MB")
    variant = (("" if c.layer_mix == "dynamic" else f"-{c.layer_mix}") + ("" if c.context == "target" else f"-{c.context}-context")
               + ("" if c.copy else "-no-copy"))
    manifest = {
        "schemaVersion": 1,
        "system": "essay",
        "name": "pcsan-small" + variant,
        "description": "PC-SAN: pretrained encoder over the joined topic words, per-decoder-layer dynamic weighted sum of all "
                       "encoder layers with fastText word vectors, decoder self-attention with target-side context"
                       + (", and a pointer that copies topic subwords" if c.copy else ""),
        "architecture": {
            "type": "pcsan-encoder-decoder",
            "vocabSize": c.vocab_size, "dModel": c.d_model, "heads": c.n_heads,
            "encoderLayers": c.encoder_layers, "decoderLayers": c.decoder_layers,
            "maxSourcePositions": c.max_source_positions, "maxTargetPositions": c.max_target_positions,
            "layerMix": c.layer_mix, "context": c.context, "separatorId": sep, "copy": c.copy,
        },
        "files": {"encoder": "encoder.onnx", "decoder": "decoder.onnx", "tokenizer": "tokenizer.json",
                  "tokenizerConfig": "tokenizer_config.json", "words": "words.json"},
        "sha256": {f: sha256(os.path.join(out_dir, f)) for f in files},
        "specialTokens": {"pad": T.PAD, "unk": T.UNK, "bos": T.BOS, "eos": T.EOS, "mask": T.MASK},
        "maxInputTokens": 64,
        # Beam 5 as in the paper; 50-120-word paragraphs are ~70-170 subwords.
        "decoding": {"strategy": "beam", "beamSize": 5, "maxLength": 180, "minLength": 60, "lengthPenalty": 1.0,
                     "noRepeatNgramSize": 3},
        "training": {k: v for k, v in meta.items() if k in ("stage", "steps", "tokens", "seconds", "val")},
        "weights": {"storage": weights},
    }
    json.dump(manifest, open(os.path.join(out_dir, "model.json"), "w"), indent=2)
    fixture = fixture or os.path.join(os.path.dirname(__file__), "../../../test/fixtures/essay-parity.json")
    json.dump({"topics": topics, "input_ids": ids_l, "word_ids": wids_l,
               "layer_weights": [[round(float(x), 6) for x in row] for row in lw],
               "first_log_probs_top": torch.topk(logp[0], 5).indices.tolist(),
               "first_log_probs_values": [round(float(x), 5) for x in torch.topk(logp[0], 5).values],
               "greedy_ids": greedy}, open(fixture, "w"), indent=1)
    print("exported", out_dir, {f: os.path.getsize(os.path.join(out_dir, f)) for f in files})


if __name__ == "__main__":
    import sys
    a = sys.argv[1:] + [None] * (5 - len(sys.argv[1:]))
    export(a[0], a[1], a[2], a[3], a[4] or os.environ.get("WEIGHTS", "int8"))
