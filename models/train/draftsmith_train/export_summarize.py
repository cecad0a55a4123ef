"""Export a TAAS checkpoint to the model folder the extension loads (models/summarize).

encoder.onnx  input_ids, attention_mask -> cross_key_values, memory_mask, topic_attention, topic_scores
decoder.onnx  input_ids [B,1], memory_mask [M,T+1], source_ids [M,T] (copy only),
              cross_key_values.{i}.key/value [M,H,T+1,dh], past_key_values.{i}.key/value [B,H,P,dh]
              -> log_probs [B,V], cross_attention [B,T+1], present.{i}.key/value [B,H,P+1,dh]
              (one tensor per layer; M is 1 or B: every beam may read one copy of the memory)
topics.json   the top words of every topic (softmax(beta) rows) for the insights panel
model.json    the manifest (validated by extension/engine/runtime/manifest.ts), with file hashes
and a parity fixture (test/fixtures/summarize-parity.json) computed by PyTorch for the unit tests.

Weight matrices are stored as int8 with a float32 scale per row by default (weight_storage.py; the
fixture is computed from the rounded weights); WEIGHTS=float32 (or the weights argument) keeps float32.
"""
import json
import os
import shutil

import torch

from . import tokenizer as T
from .export_common import OPSET, cache_axes, cache_names, greedy_reference, layer_caches, sha256
from .onnx_graph import rewrite_file
from .modules import load_summarizer
from .weight_storage import quantize_, store_int8_files


class EncoderExport(torch.nn.Module):
    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, input_ids, attention_mask):
        h = self.m.encode(input_ids, attention_mask)
        memory, memory_mask, alpha, scores = self.m.topic_memory(h, attention_mask)
        return self.m.cross_key_values(memory), memory_mask, alpha, scores


class DecoderExport(torch.nn.Module):
    """One decoding step. The caches come and go as one tensor per layer, not one stacked tensor:
    onnxruntime copies whatever a graph slices out of an input (Gather, Split), which was the whole
    cross-attention memory and the whole past at every step."""

    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, input_ids, memory_mask, source_ids, *caches):
        n = len(self.m.decoder)
        cross = [(caches[2 * i], caches[2 * i + 1]) for i in range(n)]
        past = [(caches[2 * n + 2 * i], caches[2 * n + 2 * i + 1]) for i in range(n)]
        logp, present, attn = self.m.decode_layers(input_ids, past[0][0].shape[2], cross, memory_mask, source_ids, past)
        return (logp[:, -1], attn[:, -1]) + tuple(t for kv in present for t in kv)


def default_fixture(out_dir):
    """The parity fixture the unit tests read belongs to the shipped folder only; an export elsewhere (a
    candidate, a smoke run) keeps its own beside its model, never touching test/fixtures."""
    here = os.path.dirname(os.path.abspath(__file__))
    shipped = os.path.realpath(os.path.join(here, "../../summarize"))
    if os.path.realpath(out_dir) == shipped:
        return os.path.join(here, "../../../test/fixtures/summarize-parity.json")
    return os.path.join(out_dir, "parity.json")


def export(ckpt, out_dir, data_dir, fixture=None, weights=None):
    weights = weights or os.environ.get("WEIGHTS", "int8")
    assert weights in ("int8", "float32"), weights
    model, meta, _ = load_summarizer(ckpt)
    model.eval()
    # Round the weights in the model itself first: the fixture and the graphs then both compute with
    # exactly the weights that ship.
    records = quantize_(model) if weights == "int8" else {}
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
        empty = [torch.zeros(1, H, 0, dh) for _ in range(2 * L)]
        first = torch.tensor([[T.BOS]])
        out = dec(first, mmask, ids, *layer_caches(cross), *empty)
        logp, present = out[0], list(out[2:])
        torch.onnx.export(
            enc,
            (ids, mask),
            os.path.join(out_dir, "encoder.onnx"),
            opset_version=OPSET,
            input_names=["input_ids", "attention_mask"],
            output_names=["cross_key_values", "memory_mask", "topic_attention", "topic_scores"],
            dynamic_axes={
                "input_ids": {0: "batch", 1: "source"},
                "attention_mask": {0: "batch", 1: "source"},
                "cross_key_values": {2: "batch", 4: "memory"},
                "memory_mask": {0: "batch", 1: "memory"},
                "topic_attention": {0: "batch", 1: "source"},
                "topic_scores": {0: "batch", 2: "source"},
            },
        )
        nxt = torch.tensor([[sp.encode("The")[0]]])
        # Exported with a non-empty past so the graph is traced through the cache path. The memory
        # (cross caches, mask, source ids) has a batch of its own: one row serves every beam.
        cross_in, past_in, present_out = (
            cache_names(L, "cross_key_values"),
            cache_names(L, "past_key_values"),
            cache_names(L, "present"),
        )
        torch.onnx.export(
            dec,
            (nxt, mmask, ids, *layer_caches(cross), *present),
            os.path.join(out_dir, "decoder.onnx"),
            opset_version=OPSET,
            input_names=["input_ids", "memory_mask", "source_ids"] + cross_in + past_in,
            output_names=["log_probs", "cross_attention"] + present_out,
            dynamic_axes={
                "input_ids": {0: "batch"},
                "memory_mask": {0: "memory_batch", 1: "memory"},
                "source_ids": {0: "memory_batch", 1: "source"},
                **cache_axes(cross_in, "memory_batch", "memory"),
                **cache_axes(past_in, "batch", "past"),
                **cache_axes(present_out, "batch", "total"),
                "log_probs": {0: "batch"},
                "cross_attention": {0: "batch", 1: "memory"},
            },
        )
        rewrite_file(os.path.join(out_dir, "decoder.onnx"), {"log_probs": {1: c.vocab_size}})
        # Greedy reference continuation for the parity test (PyTorch, with the same cache path).
        cache = {"past": empty}

        def step(tok):
            o = dec(tok, mmask, ids, *layer_caches(cross), *cache["past"])
            cache["past"] = list(o[2:])
            return o[0]

        greedy = greedy_reference(step, first)
    for name in ("tokenizer.json", "tokenizer_config.json"):
        shutil.copy(os.path.join(data_dir, "tokenizer", name), os.path.join(out_dir, name))
    bow_vocab = json.load(open(os.path.join(data_dir, "bow_vocab.json")))
    topics = []
    if c.topic_attention:
        tw = model.ntm.topic_word()
        for k in range(c.num_topics):
            top = torch.topk(tw[k], 10)
            topics.append(
                {
                    "id": k,
                    "words": [bow_vocab[i] for i in top.indices.tolist()],
                    "weights": [round(float(v), 5) for v in top.values],
                }
            )
    json.dump({"topics": topics}, open(os.path.join(out_dir, "topics.json"), "w"), indent=1)
    files = ["encoder.onnx", "decoder.onnx", "tokenizer.json", "tokenizer_config.json", "topics.json"]
    store_int8_files(out_dir, files[:2], records)
    manifest = {
        "schemaVersion": 1,
        "system": "summarize",
        "name": "taas-small" + ("" if c.topic_attention else "-no-topic-attention") + ("" if c.copy else "-no-copy"),
        "description": (
            "TAAS: Transformer encoder-decoder pretrained by denoising, fine-tuned with a neural topic model "
            "and topic-aware attention" + (", with a pointer-generator copy mechanism" if c.copy else "")
        ),
        "architecture": {
            "type": "taas-encoder-decoder",
            "vocabSize": c.vocab_size,
            "dModel": c.d_model,
            "heads": c.n_heads,
            "encoderLayers": c.encoder_layers,
            "decoderLayers": c.decoder_layers,
            "maxSourcePositions": c.max_source_positions,
            "maxTargetPositions": c.max_target_positions,
            "numTopics": c.num_topics,
            "topicAttention": c.topic_attention,
            "copy": c.copy,
        },
        "files": {
            "encoder": "encoder.onnx",
            "decoder": "decoder.onnx",
            "tokenizer": "tokenizer.json",
            "tokenizerConfig": "tokenizer_config.json",
            "topics": "topics.json",
        },
        "sha256": {f: sha256(os.path.join(out_dir, f)) for f in files},
        "specialTokens": {"pad": T.PAD, "unk": T.UNK, "bos": T.BOS, "eos": T.EOS, "mask": T.MASK},
        # Positions past the fine-tuning length were never trained: read no more than that.
        "maxInputTokens": int(meta.get("args", {}).get("max_src", c.max_source_positions)),
        "decoding": {
            "strategy": "beam",
            "beamSize": 4,
            "maxLength": 80,
            "minLength": 6,
            "lengthPenalty": 1.0,
            "noRepeatNgramSize": 3,
        },
        "training": {k: v for k, v in meta.items() if k in ("stage", "steps", "tokens", "seconds", "val")},
        "weights": {"storage": weights},
    }
    # A folder that already holds its known-word list (wordlists.sh) keeps it named in the manifest, so a
    # re-export does not silently switch the vocabulary guard off.
    if os.path.exists(os.path.join(out_dir, "words.txt")):
        manifest["files"]["knownWords"] = "words.txt"
        manifest["sha256"]["words.txt"] = sha256(os.path.join(out_dir, "words.txt"))
    # Likewise the synopsis scorer (synopsis.py). Its attention features were read from the weights it was
    # trained with: after new weights, rerun `synopsis train` (the card's commands) to fit it to their α.
    if os.path.exists(os.path.join(out_dir, "synopsis.json")):
        manifest["files"]["synopsis"] = "synopsis.json"
        manifest["sha256"]["synopsis.json"] = sha256(os.path.join(out_dir, "synopsis.json"))
    json.dump(manifest, open(os.path.join(out_dir, "model.json"), "w"), indent=2)
    fixture = fixture or default_fixture(out_dir)
    json.dump(
        {
            "text": text,
            "input_ids": ids[0].tolist(),
            "topic_attention": [round(float(x), 7) for x in alpha[0]],
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

    export(sys.argv[1], sys.argv[2], sys.argv[3])
