"""Export a TAAS checkpoint to the model folder the extension loads (models/summarize).

encoder.onnx  input_ids, attention_mask -> cross_key_values, memory_mask, topic_attention, topic_scores
decoder.onnx  input_ids [B,1], cross_key_values, memory_mask, source_ids, past_key_values
              -> log_probs [B,V], present_key_values, cross_attention [B,T+1]
topics.json   the top words of every topic (softmax(beta) rows) for the insights panel
model.json    the manifest (validated by extension/engine/runtime/manifest.ts), with file hashes
and a parity fixture (test/fixtures/summarize-parity.json) computed by PyTorch for the unit tests.
"""
import hashlib
import json
import os
import shutil

import torch

from . import tokenizer as T
from .summarize import load_model

OPSET = 16  # ScatterElements with reduction="add": the pointer's copy distribution (modules.PointerGenerator)


class EncoderExport(torch.nn.Module):
    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, input_ids, attention_mask):
        h = self.m.encode(input_ids, attention_mask)
        memory, memory_mask, alpha, scores = self.m.topic_memory(h, attention_mask)
        return self.m.cross_key_values(memory), memory_mask, alpha, scores


class DecoderExport(torch.nn.Module):
    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, input_ids, cross_key_values, memory_mask, source_ids, past_key_values):
        start = past_key_values.shape[4]
        logp, present, attn = self.m.decode_step(input_ids, start, cross_key_values, memory_mask, source_ids,
                                                 past_key_values)
        return logp[:, -1], present, attn[:, -1]


def greedy_reference(step, first, steps=12):
    """PyTorch's greedy continuation for a parity fixture; step(token [1,1]) -> log-probs [1,V]."""
    out, tok = [], first
    for _ in range(steps):
        nid = int(step(tok).argmax(-1))
        out.append(nid)
        if nid == T.EOS:
            break
        tok = torch.tensor([[nid]])
    return out


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def export(ckpt, out_dir, data_dir, fixture=None):
    model, meta, _ = load_model(ckpt)
    model.eval()
    c = model.c
    os.makedirs(out_dir, exist_ok=True)
    sp = T.load(os.path.join(data_dir, "spm.model"))
    text = "The city council voted on Tuesday to build a new bridge over the river, the mayor said."
    ids = torch.tensor([sp.encode(text)], dtype=torch.long)
    mask = torch.ones_like(ids)
    # eval() on the wrappers too: torch.onnx.export restores the wrapper's mode afterwards, and a
    # wrapper left in training mode would switch dropout back on for the greedy reference below.
    enc = EncoderExport(model).eval()
    dec = DecoderExport(model).eval()
    L, H, dh = c.decoder_layers, c.n_heads, c.d_model // c.n_heads
    with torch.no_grad():
        cross, mmask, alpha, scores = enc(ids, mask)
        past = torch.zeros(L, 2, 1, H, 0, dh)
        first = torch.tensor([[T.BOS]])
        logp, present, attn = dec(first, cross, mmask, ids, past)
        torch.onnx.export(enc, (ids, mask), os.path.join(out_dir, "encoder.onnx"), opset_version=OPSET,
                          input_names=["input_ids", "attention_mask"],
                          output_names=["cross_key_values", "memory_mask", "topic_attention", "topic_scores"],
                          dynamic_axes={"input_ids": {0: "batch", 1: "source"}, "attention_mask": {0: "batch", 1: "source"},
                                        "cross_key_values": {2: "batch", 4: "memory"}, "memory_mask": {0: "batch", 1: "memory"},
                                        "topic_attention": {0: "batch", 1: "source"}, "topic_scores": {0: "batch", 2: "source"}})
        past1 = present  # export with a non-empty past so the graph is traced through the cache path
        nxt = torch.tensor([[sp.encode("The")[0]]])
        torch.onnx.export(dec, (nxt, cross, mmask, ids, past1), os.path.join(out_dir, "decoder.onnx"),
                          opset_version=OPSET,
                          input_names=["input_ids", "cross_key_values", "memory_mask", "source_ids", "past_key_values"],
                          output_names=["log_probs", "present_key_values", "cross_attention"],
                          dynamic_axes={"input_ids": {0: "batch"}, "cross_key_values": {2: "batch", 4: "memory"},
                                        "memory_mask": {0: "batch", 1: "memory"}, "source_ids": {0: "batch", 1: "source"},
                                        "past_key_values": {2: "batch", 4: "past"},
                                        "log_probs": {0: "batch"}, "present_key_values": {2: "batch", 4: "total"},
                                        "cross_attention": {0: "batch", 1: "memory"}})
        # Greedy reference continuation for the parity test (PyTorch, with the same cache path).
        cache = {"past": torch.zeros(L, 2, 1, H, 0, dh)}

        def step(tok):
            lp, cache["past"], _ = dec(tok, cross, mmask, ids, cache["past"])
            return lp
        greedy = greedy_reference(step, first)
    for name in ("tokenizer.json", "tokenizer_config.json"):
        shutil.copy(os.path.join(data_dir, "tokenizer", name), os.path.join(out_dir, name))
    bow_vocab = json.load(open(os.path.join(data_dir, "bow_vocab.json")))
    topics = []
    if c.topic_attention:
        tw = model.ntm.topic_word()
        for k in range(c.num_topics):
            top = torch.topk(tw[k], 10)
            topics.append({"id": k, "words": [bow_vocab[i] for i in top.indices.tolist()],
                           "weights": [round(float(v), 5) for v in top.values]})
    json.dump({"topics": topics}, open(os.path.join(out_dir, "topics.json"), "w"), indent=1)
    files = ["encoder.onnx", "decoder.onnx", "tokenizer.json", "tokenizer_config.json", "topics.json"]
    manifest = {
        "schemaVersion": 1,
        "system": "summarize",
        "name": "taas-small" + ("" if c.topic_attention else "-no-topic-attention") + ("" if c.copy else "-no-copy"),
        "description": "TAAS: Transformer encoder-decoder pretrained by denoising, fine-tuned with a neural topic model "
                       "and topic-aware attention" + (", with a pointer-generator copy mechanism" if c.copy else ""),
        "architecture": {
            "type": "taas-encoder-decoder",
            "vocabSize": c.vocab_size, "dModel": c.d_model, "heads": c.n_heads,
            "encoderLayers": c.encoder_layers, "decoderLayers": c.decoder_layers,
            "maxSourcePositions": c.max_source_positions, "maxTargetPositions": c.max_target_positions,
            "numTopics": c.num_topics, "topicAttention": c.topic_attention, "copy": c.copy,
        },
        "files": {"encoder": "encoder.onnx", "decoder": "decoder.onnx", "tokenizer": "tokenizer.json",
                  "tokenizerConfig": "tokenizer_config.json", "topics": "topics.json"},
        "sha256": {f: sha256(os.path.join(out_dir, f)) for f in files},
        "specialTokens": {"pad": T.PAD, "unk": T.UNK, "bos": T.BOS, "eos": T.EOS, "mask": T.MASK},
        # Positions past the fine-tuning length were never trained: read no more than that.
        "maxInputTokens": int(meta.get("args", {}).get("max_src", c.max_source_positions)),
        "decoding": {"strategy": "beam", "beamSize": 4, "maxLength": 80, "minLength": 6, "lengthPenalty": 1.0,
                     "noRepeatNgramSize": 3},
        "training": {k: v for k, v in meta.items() if k in ("stage", "steps", "tokens", "seconds", "val")},
    }
    json.dump(manifest, open(os.path.join(out_dir, "model.json"), "w"), indent=2)
    fixture = fixture or os.path.join(os.path.dirname(__file__), "../../../test/fixtures/summarize-parity.json")
    json.dump({"text": text, "input_ids": ids[0].tolist(),
               "topic_attention": [round(float(x), 7) for x in alpha[0]],
               "first_log_probs_top": torch.topk(logp[0], 5).indices.tolist(),
               "first_log_probs_values": [round(float(x), 5) for x in torch.topk(logp[0], 5).values],
               "greedy_ids": greedy}, open(fixture, "w"), indent=1)
    print("exported", out_dir, {f: os.path.getsize(os.path.join(out_dir, f)) for f in files})


if __name__ == "__main__":
    import sys
    export(sys.argv[1], sys.argv[2], sys.argv[3])
