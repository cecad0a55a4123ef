"""Export a reply checkpoint (ESED or NRM) to the model folder the extension loads (models/reply).
H = hidden size per direction, D = 2H (memory vectors), V = vocabulary, L = memory slots per key.

  encoder.onnx       input_ids [1,T] (the post's pieces, at most maxInputTokens, its END kept)
                     -> encoder_outputs [1,T,2H], state [1,H] (the decoder's first state),
                        query [1,D] (ESED: p, L2-normalised, for the memory read)
  decoder_step.onnx  input_ids [B,1], state [B,H], encoder_outputs [1,T,2H] (ONE row shared by every
                     beam), memory_read [B,D] (ESED: r per row) -> log_probs [B,V], state_out [B,H]
  memory.bin         float16 [K, L, D]: key k's block (rows L2-normalised, zero rows padding)
  keys.json          {keys [K], slots L, dim D, beta, counts [K] (reply sentences per key), examples
                     [K] (the first representative sentence)}
  embedding.bin      float16 [V, E]: the word embeddings, for the neighbour key mapper
The memory read (Eqs. 11-12) runs outside the graphs, in the engine (reply.ts memoryRead), as
reply_model.memory_read does here. Weights are stored as int8 (weight_storage) unless WEIGHTS=float32.

The parity fixture (a fixed post, one key: its read weights, r, the first step's top log-probs and the
greedy ids, computed with the rounded weights) goes to test/fixtures/reply-parity.json for the shipped
folder (models/reply), else parity.json inside the exported folder; check_reply_onnx.cjs checks it.
"""
import json
import os
import shutil

import numpy as np
import torch

from . import tokenizer as T
from .export_roundtrip import REPO
from .export_common import sha256
from .reply_model import BETA, MAX_POST, MAX_REPLY, Memory, load_model, memory_read
from .onnx_graph import rewrite_file
from .weight_storage import quantize_, store_int8_files

OPSET = 14
PARITY_POST = "I love playing tennis with my old friends on a sunny day."


class EncoderExport(torch.nn.Module):
    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, input_ids):
        out, summary = self.m.encoder(input_ids)
        outs = (out, self.m.start(summary))
        return outs + (self.m.p(summary),) if self.m.c.model == "esed" else outs


class DecoderStepExport(torch.nn.Module):
    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, input_ids, state, encoder_outputs, memory_read=None):
        mask = torch.ones(encoder_outputs.shape[:2], dtype=torch.long)
        logp, s, _ = self.m.decoder(input_ids, state, encoder_outputs, mask, memory_read)
        return logp[:, -1], s


def default_fixture(out_dir):
    """The shipped folder's fixture lives with the tests; any other folder keeps its own."""
    if os.path.abspath(out_dir) == os.path.join(REPO, "models", "reply"):
        return os.path.join(REPO, "test", "fixtures", "reply-parity.json")
    return os.path.join(out_dir, "parity.json")


def export(ckpt, out_dir, data_dir, memory_path, fixture=None, weights=None):
    weights = weights or os.environ.get("WEIGHTS", "int8")
    model, meta = load_model(ckpt)
    model.eval()
    records = quantize_(model) if weights == "int8" else {}  # the fixture then uses the weights that ship
    c = model.c
    esed = c.model == "esed"
    os.makedirs(out_dir, exist_ok=True)
    sp = T.load(os.path.join(data_dir, "spm.model"))
    memory = Memory(memory_path)
    memory.blocks = memory.blocks.half().float()  # as memory.bin ships it (float16), for the fixture too
    ids = torch.tensor([sp.encode(PARITY_POST)])
    key = "tennis" if "tennis" in memory.index else "friend" if "friend" in memory.index else memory.keys[0]
    enc, dec = EncoderExport(model).eval(), DecoderStepExport(model).eval()
    files = ["encoder.onnx", "decoder_step.onnx"]
    with torch.no_grad():
        enc_out = enc(ids)
        out, s0 = enc_out[0], enc_out[1]
        torch.onnx.export(
            enc,
            (ids,),
            os.path.join(out_dir, "encoder.onnx"),
            opset_version=OPSET,
            input_names=["input_ids"],
            output_names=["encoder_outputs", "state"] + (["query"] if esed else []),
            dynamic_axes={"input_ids": {1: "source"}, "encoder_outputs": {1: "source"}},
        )
        ref = {"key": key, "input_ids": ids[0].tolist(), "state_first": [round(float(x), 6) for x in s0[0, :8]]}
        r = None
        if esed:
            r, w = memory_read(enc_out[2], memory.block(key).unsqueeze(0), BETA)
            ref.update(
                query_first=[round(float(x), 6) for x in enc_out[2][0, :8]],
                read_weights=[round(float(x), 6) for x in w[0]],
                read_first=[round(float(x), 6) for x in r[0, :8]],
            )
        first = torch.tensor([[T.BOS]])
        args = (first, s0, out) + ((r,) if esed else ())
        torch.onnx.export(
            dec,
            args,
            os.path.join(out_dir, "decoder_step.onnx"),
            opset_version=OPSET,
            input_names=["input_ids", "state", "encoder_outputs"] + (["memory_read"] if esed else []),
            output_names=["log_probs", "state_out"],
            dynamic_axes={
                "input_ids": {0: "batch"},
                "state": {0: "batch"},
                "encoder_outputs": {1: "source"},
                "log_probs": {0: "batch"},
                "state_out": {0: "batch"},
                **({"memory_read": {0: "batch"}} if esed else {}),
            },
        )
        lp = dec(*args)[0][0]
        ref["first_log_probs_top"] = torch.topk(lp, 5).indices.tolist()
        ref["first_log_probs_values"] = [round(float(x), 5) for x in torch.topk(lp, 5).values]
        greedy = model.greedy(ids[0].tolist(), torch.device("cpu"), memory.block(key) if esed else None)
    # The attention einsums as MatMuls, and each row's best tokens for the beam search (onnx_graph.py).
    rewrite_file(os.path.join(out_dir, "decoder_step.onnx"), top=True)
    store_int8_files(out_dir, files, records)
    memory.blocks.numpy().astype(np.float16).tofile(os.path.join(out_dir, "memory.bin"))
    model.embedding.weight.detach().numpy().astype(np.float16).tofile(os.path.join(out_dir, "embedding.bin"))
    json.dump(
        {
            "keys": memory.keys,
            "slots": int(memory.blocks.shape[1]),
            "dim": int(memory.blocks.shape[2]),
            "beta": BETA,
            "counts": memory.counts,
            "examples": [s[0] for s in memory.sentences] if memory.sentences else None,
        },
        open(os.path.join(out_dir, "keys.json"), "w"),
    )
    files += ["memory.bin", "keys.json", "embedding.bin"]
    for name in ("tokenizer.json", "tokenizer_config.json"):
        shutil.copy(os.path.join(data_dir, "tokenizer", name), os.path.join(out_dir, name))
    files += ["tokenizer.json", "tokenizer_config.json"]
    manifest = {
        "schemaVersion": 1,
        "system": "reply",
        "name": f"reply-{c.model}-{c.hidden}",
        "description": (
            "ESED: GRU seq2seq with attention and an external semantic memory read per key (Eqs. 11-13)"
            if esed
            else "NRM: GRU seq2seq with attention, no memory (the ESED paper's baseline)"
        ),
        "architecture": {
            "type": f"reply-{c.model}",
            "vocabSize": c.vocab_size,
            "embed": c.embed,
            "hidden": c.hidden,
            "encoderDim": 2 * c.hidden,
            "memory": esed,
            "memoryDim": c.memory_dim,
            "slots": int(memory.blocks.shape[1]),
            "keys": len(memory.keys),
            "beta": BETA,
            "maxReplyTokens": MAX_REPLY,
        },
        "files": {
            "encoder": "encoder.onnx",
            "decoderStep": "decoder_step.onnx",
            "memory": "memory.bin",
            "keys": "keys.json",
            "embedding": "embedding.bin",
            "tokenizer": "tokenizer.json",
            "tokenizerConfig": "tokenizer_config.json",
        },
        "sha256": {f: sha256(os.path.join(out_dir, f)) for f in files},
        "specialTokens": {"pad": T.PAD, "unk": T.UNK, "bos": T.BOS, "eos": T.EOS, "mask": T.MASK},
        "maxInputTokens": MAX_POST,
        "decoding": {
            "strategy": "beam",
            "beamSize": 4,
            "maxLength": MAX_REPLY,
            "minLength": 2,
            "lengthPenalty": 1.0,
            "noRepeatNgramSize": 3,
        },
        "training": {k: v for k, v in meta.items() if k in ("model", "params", "steps", "tokens", "seconds", "val")},
    }
    manifest["training"]["weights"] = weights
    json.dump(manifest, open(os.path.join(out_dir, "model.json"), "w"), indent=2)
    fixture = fixture or default_fixture(out_dir)
    json.dump(
        {
            "model": c.model,
            "post": PARITY_POST,
            **ref,
            "greedy_ids": greedy,
            "greedy_text": sp.decode(greedy),
            "max_length": MAX_REPLY,
        },
        open(fixture, "w"),
        indent=1,
    )
    print("exported", out_dir, {f: os.path.getsize(os.path.join(out_dir, f)) for f in files}, "fixture", fixture)
