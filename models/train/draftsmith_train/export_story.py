"""Export the story models to the folder the extension loads (models/story).

Generation streams one token at a time, so every decoder is exported as a STEP with its incremental
state as inputs and outputs (a causal convolution needs its last k-1 inputs, self-attention the keys
and values of the earlier positions). Every state input is named past_*, and the step returns the
next state under the same name with past -> present: the TypeScript side feeds present_* back as
past_* without knowing the layout; model.json (architecture.state, architecture.premise.state) gives each
state's initial shape (zeros; the self-attention past has length 0).

premise.onnx  (GCNN LM + self-attention, or the backbone: writes a premise, ending at </s>)
              input_ids [B,1] int64, position [1] int64 (tokens fed before this one),
              past_conv [L,B,k-1,C], past_key_values [Ls,2,B,H,P,dh]
              -> log_probs [B,V], present_conv, present_key_values [Ls,2,B,H,P+1,dh]
              (the backbone fine-tuned on premises, causal_lm.py: past_key_values only)
encoder.onnx  input_ids [B,S] int64 (the prompt's ids + </s>), attention_mask [B,S] int64
              -> encoder_keys, encoder_values [B,S,E] (+ pretrained_encoder_keys/values for fusion;
                 with the backbone as the frozen half: pretrained_prompt_key_values [L,2,B,H,S,dh],
                 the prompt read into its key/value cache)
decoder.onnx  input_ids [B,1], position [1], attention_mask [B,S], the encoder outputs by name,
              past_conv, past_key_values (+ pretrained_past_conv, pretrained_past_key_values;
              the backbone: pretrained_past_key_values [L,2,B,H,P,dh], the story's own part of its cache)
              -> log_probs [B,V], fusion_gates [B,2] (fusion: mean gate on the trained and on the
                 pretrained decoder's state), present_* for every past_*
model.json    the manifest with sha256 per file; a parity fixture (PyTorch) for the TypeScript test.
With a bench folder: bench/decoder_full.onnx (the same decoder recomputing the whole prefix each
step, to measure streaming both ways) and PyTorch's full log-probabilities, for check_story_onnx.cjs.

Weight matrices are stored as int8 with a float32 scale per row (weight_storage.py; 4x smaller, the
same float32 graph once onnxruntime has folded them); "float32" as the seventh argument (or
WEIGHTS=float32) keeps them as they are.

  python3 -m draftsmith_train.export_story runs/story-fusion.pt runs/story-premise.pt ../story .data
      [fixture.json] [bench] [int8|float32]
"""
import json
import math
import os
import shutil
import time
from dataclasses import asdict
from types import SimpleNamespace

import torch

from . import tokenizer as T
from .export_common import OPSET, greedy_reference, sha256
from .story_data import encode_source, load_pairs, premise_sequences
from .story_model import check_room, generate, load_model, perplexity, story_nll
from .onnx_graph import rewrite_file
from .roundtrip_data import simple_corpus_tag
from .weight_storage import quantize_, store_int8_files

PROMPT = "A lighthouse keeper finds a message in a bottle that was written by her own hand."


def _state_names(prefix, decoder):
    names = [f"{prefix}past_conv"]
    if decoder.n_self_attn:
        names.append(f"{prefix}past_key_values")
    return names


def _state_axes(name):
    if name.endswith("conv"):
        return {1: "batch"}
    return {2: "batch", 4: "past" if "past" in name else "total"}


def _shape_spec(name, t):
    """The initial state's shape for the manifest: 'batch' for the batch axis, numbers elsewhere."""
    axes = _state_axes(name)
    return {"name": name, "shape": ["batch" if axes.get(i) == "batch" else int(s) for i, s in enumerate(t.shape)]}


def stack_cache(cache):
    """[(k, v)] per layer, each [B,H,P,dh] -> one tensor [L,2,B,H,P,dh]."""
    return torch.stack([torch.stack([k, v]) for k, v in cache])


def unstack_cache(kv):
    return [(kv[i, 0], kv[i, 1]) for i in range(kv.shape[0])]


def empty_cache(gpt2_config, batch=1):
    c = gpt2_config
    return torch.zeros(c["n_layer"], 2, batch, c["n_head"], 0, c["n_embd"] // c["n_head"])


class PremiseGPT2(torch.nn.Module):
    """The backbone fine-tuned on premises (causal_lm.py) behind a StoryLM's face: kind "lm", whole-sequence
    log-probabilities, decode(tokens, position, state) with its key/value cache as the state."""

    kind = "lm"

    def __init__(self, gpt2):
        super().__init__()
        self.gpt2 = gpt2
        self.c = gpt2.config

    def decode(self, tokens, position=0, state=None):
        logits, cache = self.gpt2(tokens, past=state)
        return torch.log_softmax(logits, -1), cache

    def forward(self, tokens):
        return self.decode(tokens)[0]


def load_premise(path):
    """A story recipe's GCNN premise model, or the backbone fine-tuned on premises (causal_lm.py)."""
    ck = torch.load(path, map_location="cpu")
    if "kind" in ck:
        return load_model(path, ck)
    from .causal_lm import make

    gpt2 = make(ck["config"])
    gpt2.load_state_dict(ck["state"])
    return PremiseGPT2(gpt2.eval()).eval(), ck.get("meta", {})


class PremiseStepGPT2(torch.nn.Module):
    def __init__(self, lm):
        super().__init__()
        self.lm = lm

    def forward(self, input_ids, position, past_key_values):
        pos = position.view(1, 1).expand(input_ids.shape[0], 1)
        logits, cache = self.lm.gpt2(input_ids, position_ids=pos, past=unstack_cache(past_key_values))
        return torch.log_softmax(logits[:, -1], -1), stack_cache(cache)


class PremiseStep(torch.nn.Module):
    def __init__(self, lm):
        super().__init__()
        self.lm = lm

    def forward(self, input_ids, position, past_conv, *past_kv):
        kv = past_kv[0] if past_kv else self.lm.decoder.initial_state(input_ids.shape[0])[1]
        logp, (conv, kv2) = self.lm.decode(input_ids, position, (past_conv, kv))
        return (logp[:, -1], conv) + ((kv2,) if past_kv else ())


class EncoderExport(torch.nn.Module):
    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, input_ids, attention_mask):
        if self.m.kind == "fusion" and self.m.pretrained.kind == "backbone":
            (z, v, _), (cache, _) = self.m.encode(input_ids, attention_mask)
            return z, v, stack_cache(cache)
        if self.m.kind == "fusion":
            (z, v, _), (pz, pv, _) = self.m.encode(input_ids, attention_mask)
            return z, v, pz, pv
        z, v, _ = self.m.encode(input_ids, attention_mask)
        return z, v


def _split_state(decoder, flat):
    """flat (conv[, kv]) -> (conv, kv) with an empty kv when the decoder has no self-attention."""
    conv = flat[0]
    kv = flat[1] if decoder.n_self_attn else decoder.initial_state(conv.shape[1])[1]
    return conv, kv


def _flat_state(decoder, state):
    return (state[0],) + ((state[1],) if decoder.n_self_attn else ())


class DecoderStep(torch.nn.Module):
    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, input_ids, position, attention_mask, *rest):
        m = self.m
        if m.kind == "fusion" and m.pretrained.kind == "backbone":
            # The backbone's cache is the prompt's (fixed, from the encoder) then the story's (the state):
            # joined for the step, and only the story's part goes back out.
            z, v, prompt_kv = rest[:3]
            nt = 1 + (1 if m.trained.decoder.n_self_attn else 0)
            st_tr, story_kv = _split_state(m.trained.decoder, rest[3 : 3 + nt]), rest[3 + nt]
            kv = torch.cat([prompt_kv, story_kv], dim=4)
            seen = torch.cat([attention_mask, attention_mask.new_ones(story_kv.shape[2], story_kv.shape[4])], 1)
            enc = ((z, v, attention_mask), None)
            logp, (s_tr, (cache, _)), gates = m.decode(input_ids, position, enc, (st_tr, (unstack_cache(kv), seen)))
            story_kv = stack_cache(cache)[:, :, :, :, prompt_kv.shape[4] :]
            return (logp[:, -1], gates[:, -1]) + _flat_state(m.trained.decoder, s_tr) + (story_kv,)
        if m.kind == "fusion":
            z, v, pz, pv = rest[:4]
            st = rest[4:]
            nt = 1 + (1 if m.trained.decoder.n_self_attn else 0)
            st_tr, st_pre = _split_state(m.trained.decoder, st[:nt]), _split_state(m.pretrained.decoder, st[nt:])
            enc = ((z, v, attention_mask), (pz, pv, attention_mask))
            logp, (s_tr, s_pre), gates = m.decode(input_ids, position, enc, (st_tr, st_pre))
            return (
                (logp[:, -1], gates[:, -1])
                + _flat_state(m.trained.decoder, s_tr)
                + _flat_state(m.pretrained.decoder, s_pre)
            )
        z, v = rest[:2]
        logp, s, _ = m.decode(input_ids, position, (z, v, attention_mask), _split_state(m.decoder, rest[2:]))
        return (logp[:, -1],) + _flat_state(m.decoder, s)


class DecoderFull(torch.nn.Module):
    """For the streaming measurement only: recompute from the whole prefix each step."""

    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, input_ids, attention_mask, *enc):
        m = self.m
        if m.kind == "fusion" and m.pretrained.kind == "backbone":
            encs = ((enc[0], enc[1], attention_mask), (unstack_cache(enc[2]), attention_mask))
        elif m.kind == "fusion":
            encs = ((enc[0], enc[1], attention_mask), (enc[2], enc[3], attention_mask))
        else:
            encs = (enc[0], enc[1], attention_mask)
        logp, _, gates = m.decode(input_ids, 0, encs)
        return (logp[:, -1],) + ((gates[:, -1],) if gates is not None else ())


def decoders(m):
    """[(state-name prefix, GatedConvDecoder)] in the order of the step's state inputs."""
    if m.kind == "fusion":
        return [("", m.trained.decoder), ("pretrained_", m.pretrained.decoder)]
    return [("", m.decoder)]


def step_state(m):
    """[(name, initial tensor for one row)] of the decoder step's state, in the order of its inputs."""
    if m.kind == "fusion" and m.pretrained.kind == "backbone":
        d = m.trained.decoder
        return list(zip(_state_names("", d), _flat_state(d, d.initial_state(1)))) + [
            ("pretrained_past_key_values", empty_cache(m.pretrained.c.gpt2))
        ]
    return [(n, t) for p, d in decoders(m) for n, t in zip(_state_names(p, d), _flat_state(d, d.initial_state(1)))]


def shape_of(c):
    """The sizes the TypeScript side may check or show (the graphs carry the rest); no encoder
    fields for a language model. The backbone (a GPT-2) has its own."""
    if hasattr(c, "n_embd") or hasattr(c, "gpt2"):
        g = c.gpt2 if hasattr(c, "gpt2") else asdict(c)
        return {
            "type": "gpt2",
            "layers": g["n_layer"],
            "heads": g["n_head"],
            "embedDim": g["n_embd"],
            "maxTargetPositions": g["n_positions"],
            **({"readsPrompt": c.reads_prompt} if hasattr(c, "reads_prompt") else {}),
        }
    enc = (
        {
            "encoderLayers": c.encoder_layers,
            "encoderKernel": c.encoder_kernel,
            "maxSourcePositions": c.max_source_positions,
        }
        if c.encoder_attention
        else {}
    )
    return {
        "embedDim": c.embed_dim,
        "hidden": c.hidden,
        **enc,
        "decoderLayers": c.decoder_layers,
        "decoderKernel": c.decoder_kernel,
        "selfAttentionLayers": c.self_attention_flags(),
        "attentionHeads": c.attention_heads,
        "attentionDim": c.attention_dim,
        "downsampling": c.downsampling(),
        "gatedAttention": c.gated_attention,
        "attendZero": c.attend_zero,
        "maxTargetPositions": c.max_target_positions,
    }


def _scores(model, lm, ids, mask, val, premises):
    """What the int8 rounding may change: the first step's log-probabilities for the fixture's
    prompt, validation perplexity of the story model, and of the premise model."""
    with torch.no_grad():
        first = model.decode(torch.tensor([[T.BOS]]), 0, model.encode(ids, mask))[0][0, -1]
        pfirst = lm.decode(torch.tensor([[T.BOS]]))[0][0, -1]
        nll = sum(float(story_nll(lm, None, premises[i : i + 16], "cpu").sum()) for i in range(0, len(premises), 16))
        tokens = sum(len(p) - 1 for p in premises)
    return {
        "first": first,
        "premise_first": pfirst,
        "ppl": perplexity(model, val, "cpu")["all"]["token_ppl"],
        "premise_ppl": math.exp(nll / max(1, tokens)),
    }


def _quantization_cost(before, after):
    return {
        "first_step_log_prob_max_abs_diff": round(float((before["first"] - after["first"]).abs().max()), 5),
        "premise_first_step_log_prob_max_abs_diff": round(
            float((before["premise_first"] - after["premise_first"]).abs().max()), 5
        ),
        "val_token_ppl": [round(before["ppl"], 3), round(after["ppl"], 3)],
        "premise_val_token_ppl": [round(before["premise_ppl"], 3), round(after["premise_ppl"], 3)],
    }


def export(ckpt, premise_ckpt, out_dir, data_dir, fixture=None, bench_dir=None, weights="int8", cost_limit=200):
    """weights: "int8" (weight matrices stored as int8 + a float scale per row: weight_storage.py)
    or "float32". cost_limit: validation stories (and premises) the int8 rounding is measured on."""
    model, meta = load_model(ckpt)
    lm, lm_meta = load_premise(premise_ckpt)
    assert model.kind in ("seq2seq", "fusion") and lm.kind == "lm"
    assert weights in ("int8", "float32"), weights
    os.makedirs(out_dir, exist_ok=True)
    sp = T.load(os.path.join(data_dir, "spm.model"))
    max_src = int(meta.get("args", {}).get("max_src", 128))
    max_tgt = int(meta.get("args", {}).get("max_tgt", 256))
    src_l = encode_source(sp, PROMPT, max_src)
    ids = torch.tensor([src_l])
    mask = torch.ones_like(ids)
    records, cost = {}, None
    if weights == "int8":
        # Round the weights in the models themselves first: the fixture and the graphs then both
        # compute with exactly the weights that ship, and the rounding's cost is measured here.
        val = load_pairs(sp, data_dir, "val", max_src, max_tgt, cost_limit)
        premises = premise_sequences(sp, data_dir, "val", 60)[:cost_limit]
        before = _scores(model, lm, ids, mask, val, premises)
        records = {**quantize_(model), **{"premise." + k: v for k, v in quantize_(lm).items()}}
        cost = _quantization_cost(before, _scores(model, lm, ids, mask, val, premises))
        print("int8 weights, cost against float32:", json.dumps(cost))
    fusion = model.kind == "fusion"
    backbone = fusion and model.pretrained.kind == "backbone"
    if backbone and not model.pretrained.c.reads_prompt:
        raise SystemExit(
            f"{ckpt}: the export takes the backbone as a seq2seq reading the prompt (story seq2seq --backbone)"
        )
    if backbone:
        check_room(model.pretrained.lm.config.n_positions, SimpleNamespace(max_src=max_src, max_tgt=max_tgt), True)
    enc_names = ["encoder_keys", "encoder_values"] + (
        ["pretrained_prompt_key_values"]
        if backbone
        else ["pretrained_encoder_keys", "pretrained_encoder_values"]
        if fusion
        else []
    )
    state_names = [n for n, _ in step_state(model)]
    gpt2_premise = isinstance(lm, PremiseGPT2)
    # eval() on the wrappers too: torch.onnx.export puts a wrapper back into the mode it found.
    enc_x, dec_x = EncoderExport(model).eval(), DecoderStep(model).eval()
    lm_x = (PremiseStepGPT2 if gpt2_premise else PremiseStep)(lm).eval()
    debug = {}
    with torch.no_grad():
        # ---- encoder ---------------------------------------------------------------------------
        enc_out = enc_x(ids, mask)
        torch.onnx.export(
            enc_x,
            (ids, mask),
            os.path.join(out_dir, "encoder.onnx"),
            opset_version=OPSET,
            input_names=["input_ids", "attention_mask"],
            output_names=enc_names,
            dynamic_axes={
                **{n: {0: "batch", 1: "source"} for n in ["input_ids", "attention_mask"] + enc_names},
                **({"pretrained_prompt_key_values": {2: "batch", 4: "source"}} if backbone else {}),
            },
        )
        # ---- decoder step: traced with a non-empty past (position 1) so every shape is symbolic --
        init = [t for _, t in step_state(model)]
        first = torch.tensor([[T.BOS]])
        out0 = dec_x(first, torch.tensor([0]), mask, *enc_out, *init)
        nxt = torch.tensor([[int(out0[0].argmax(-1))]])
        n_head = 2 if fusion else 1
        present_names = [n.replace("past", "present") for n in state_names]
        out_names = ["log_probs"] + (["fusion_gates"] if fusion else []) + present_names
        torch.onnx.export(
            dec_x,
            (nxt, torch.tensor([1]), mask, *enc_out, *out0[n_head:]),
            os.path.join(out_dir, "decoder.onnx"),
            opset_version=OPSET,
            input_names=["input_ids", "position", "attention_mask"] + enc_names + state_names,
            output_names=out_names,
            dynamic_axes={
                "input_ids": {0: "batch"},
                "attention_mask": {0: "batch", 1: "source"},
                **{n: {0: "batch", 1: "source"} for n in enc_names},
                **({"pretrained_prompt_key_values": {2: "batch", 4: "source"}} if backbone else {}),
                **{n: _state_axes(n) for n in state_names + present_names},
                "log_probs": {0: "batch"},
                **({"fusion_gates": {0: "batch"}} if fusion else {}),
            },
        )
        # Greedy reference through the same step path (and every step's gates, for the panel test).
        cache = {"state": init, "pos": 0, "gates": [], "logp": []}

        def step(tok):
            out = dec_x(tok, torch.tensor([cache["pos"]]), mask, *enc_out, *cache["state"])
            cache["pos"] += 1
            cache["state"] = list(out[n_head:])
            if fusion:
                cache["gates"].append([round(float(x), 6) for x in out[1][0]])
            cache["logp"].append(out[0][0])
            return out[0]

        greedy = greedy_reference(step, first)
        debug["decoder_first_log_probs"] = [round(float(x), 6) for x in out0[0][0]]
        debug["decoder_greedy_step_log_probs"] = [
            [round(float(x), 6) for x in lp[[0, 3, 100, 1000, lp.shape[-1] - 1]]] for lp in cache["logp"]
        ]
        # Step-wise against one pass over the whole greedy prefix: the incremental state is exact.
        prefix = torch.tensor([[T.BOS] + greedy[:-1]])
        full = DecoderFull(model).eval()(prefix, mask, *enc_out)
        step_vs_full = max(
            float(
                (model.decode(prefix[:, : t + 1], 0, model.encode(ids, mask))[0][0, -1] - cache["logp"][t]).abs().max()
            )
            for t in range(len(greedy))
        )
        # ---- premise step ---------------------------------------------------------------------
        if gpt2_premise:
            lm_init, lm_names = (empty_cache(asdict(lm.c)),), ["past_key_values"]
        else:
            lm_init, lm_names = _flat_state(lm.decoder, lm.decoder.initial_state(1)), _state_names("", lm.decoder)
        lm_present = [n.replace("past", "present") for n in lm_names]
        p0 = lm_x(first, torch.tensor([0]), *lm_init)
        pn = torch.tensor([[int(p0[0].argmax(-1))]])
        torch.onnx.export(
            lm_x,
            (pn, torch.tensor([1]), *p0[1:]),
            os.path.join(out_dir, "premise.onnx"),
            opset_version=OPSET,
            input_names=["input_ids", "position"] + lm_names,
            output_names=["log_probs"] + lm_present,
            dynamic_axes={
                "input_ids": {0: "batch"},
                "log_probs": {0: "batch"},
                **{n: _state_axes(n) for n in lm_names + lm_present},
            },
        )
        pc = {"state": list(lm_init), "pos": 0}

        def pstep(tok):
            out = lm_x(tok, torch.tensor([pc["pos"]]), *pc["state"])
            pc["pos"] += 1
            pc["state"] = list(out[1:])
            return out[0]

        premise_greedy = greedy_reference(pstep, first, steps=20)
        debug["premise_first_log_probs"] = [round(float(x), 6) for x in p0[0][0]]
        if bench_dir:  # the recompute-every-step alternative, measured by check_story_onnx.cjs (not shipped)
            os.makedirs(bench_dir, exist_ok=True)
            torch.onnx.export(
                DecoderFull(model).eval(),
                (prefix, mask, *enc_out),
                os.path.join(bench_dir, "decoder_full.onnx"),
                opset_version=OPSET,
                input_names=["input_ids", "attention_mask"] + enc_names,
                output_names=["log_probs"] + (["fusion_gates"] if fusion else []),
                dynamic_axes={
                    "input_ids": {0: "batch", 1: "target"},
                    "attention_mask": {0: "batch", 1: "source"},
                    **{n: {0: "batch", 1: "source"} for n in enc_names},
                },
            )
            debug["full_prefix"] = prefix[0].tolist()
            debug["full_last_log_probs"] = [round(float(x), 6) for x in full[0][0]]
        # Python's own sampling speed through the step path, for comparison with onnxruntime-node.
        sampled, _, secs = generate(model, src_l, 100, seed=0)
    for name in ("tokenizer.json", "tokenizer_config.json"):
        shutil.copy(os.path.join(data_dir, "tokenizer", name), os.path.join(out_dir, name))
    files = ["encoder.onnx", "decoder.onnx", "premise.onnx", "tokenizer.json", "tokenizer_config.json"]
    for step_graph in ("decoder.onnx", "premise.onnx"):  # tied logits and window convolutions as Gemms (onnx_graph.py)
        rewrite_file(os.path.join(out_dir, step_graph), step_convs=True)
    store_int8_files(out_dir, files[:3], records)
    c = model.c
    # Everything story-specific sits in "architecture" (the manifest's per-system schema): the shapes,
    # each step graph's state (name and initial shape: zeros, "batch" for the batch axis, 0 for the
    # self-attention's past), the premise model, and the generation settings.
    arch = {
        "type": "story-conv-seq2seq",
        "vocabSize": c.vocab_size,
        **shape_of(c),
        "fusion": fusion,
        "sourceEndsWithEos": True,
        "state": [_shape_spec(n, t) for n, t in zip(state_names, init)],
    }
    if fusion:
        arch["pretrained"] = shape_of(model.pretrained.c)
    if backbone:  # prompt and story share the backbone's positions: the story's room is what the prompt leaves
        arch["maxTargetPositions"] = min(
            arch["maxTargetPositions"], model.pretrained.lm.config.n_positions - max_src + 1
        )
    arch["premise"] = {
        "vocabSize": lm.c.vocab_size,
        **shape_of(lm.c),
        "endOfPromptId": T.EOS,
        "maxTokens": 60,
        "state": [_shape_spec(n, t) for n, t in zip(lm_names, lm_init)],
    }
    # Length is asked for in words; a story's pieces are ~1.3 per word.
    arch.update(defaultWords=150, maxTargetTokens=max_tgt, neverSample=[T.PAD, T.UNK, T.BOS, T.MASK])
    manifest = {
        "schemaVersion": 1,
        "system": "story",
        "name": (
            "story-"
            + simple_corpus_tag(data_dir, "story_split.json")
            + ("fusion" if fusion else "seq2seq")
            + ("-backbone" if backbone else "")
            + "-small"
        ),
        "description": (
            "Hierarchical story generation (Fan et al. 2018): "
            + (
                "the shared backbone fine-tuned on premises"
                if isinstance(lm, PremiseGPT2)
                else "a GCNN + self-attention language model"
            )
            + " writes a premise; a convolutional seq2seq with gated multi-scale self-attention writes the story"
            + (
                ", fused with the shared backbone fine-tuned as a seq2seq that reads the prompt first, frozen (model"
                " fusion)"
                if backbone
                else ", fused with a frozen pretrained seq2seq (model fusion)"
                if fusion
                else ""
            )
        ),
        "architecture": arch,
        "files": {
            "encoder": "encoder.onnx",
            "decoder": "decoder.onnx",
            "premise": "premise.onnx",
            "tokenizer": "tokenizer.json",
            "tokenizerConfig": "tokenizer_config.json",
        },
        "sha256": {f: sha256(os.path.join(out_dir, f)) for f in files},
        "specialTokens": {"pad": T.PAD, "unk": T.UNK, "bos": T.BOS, "eos": T.EOS, "mask": T.MASK},
        # The prompt's last maxInputTokens - 1 pieces, then </s> (story_data.encode_source).
        "maxInputTokens": max_src,
        # Section 5.3: top-k random sampling, k = 10; never <unk> (nor pad/bos/mask).
        "decoding": {
            "strategy": "top-k",
            "topK": 10,
            "temperature": 0.8,
            "beamSize": 1,
            "maxLength": max_tgt,
            "minLength": 0,
            "lengthPenalty": 1.0,
            "noRepeatNgramSize": 0,
        },
        "training": {k: v for k, v in meta.items() if k in ("stage", "steps", "tokens", "seconds", "val")},
        # How the weights are stored, and what the int8 rounding cost against float32 (export_story.py).
        "weights": {"storage": weights, **({"cost": cost} if cost else {})},
    }
    json.dump(manifest, open(os.path.join(out_dir, "model.json"), "w"), indent=2)
    fixture = fixture or os.path.join(os.path.dirname(__file__), "../../../test/fixtures/story-parity.json")
    top = torch.topk(out0[0][0], 5)
    ptop = torch.topk(p0[0][0], 5)
    json.dump(
        {
            "prompt": PROMPT,
            "input_ids": src_l,
            "first_log_probs_top": top.indices.tolist(),
            "first_log_probs_values": [round(float(x), 5) for x in top.values],
            "greedy_ids": greedy,
            "greedy_gates": cache["gates"] or None,
            "premise": {
                "first_log_probs_top": ptop.indices.tolist(),
                "first_log_probs_values": [round(float(x), 5) for x in ptop.values],
                "greedy_ids": premise_greedy,
            },
        },
        open(fixture, "w"),
        indent=1,
    )
    if bench_dir:
        json.dump(debug, open(os.path.join(bench_dir, "torch_reference.json"), "w"))
    sizes = {f: os.path.getsize(os.path.join(out_dir, f)) for f in files}
    print("exported", out_dir, sizes, f"total {sum(sizes.values()) / 1e6:.1f} MB")
    print(
        f"step-wise vs whole-prefix decode (PyTorch): max abs diff {step_vs_full:.2e}; "
        f"PyTorch sampling {len(sampled) / secs:.0f} tokens/s (eager, 1 thread)"
    )


if __name__ == "__main__":
    import sys

    a = sys.argv[1:] + [None] * (7 - len(sys.argv[1:]))
    export(a[0], a[1], a[2], a[3], a[4], a[5], a[6] or os.environ.get("WEIGHTS", "int8"))
