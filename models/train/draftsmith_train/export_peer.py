"""Export a shipped model as @huggingface/transformers (transformers.js) runs an encoder-decoder, so
that bench/ can time its generate() against our decoding loop on the same weights and computation.

transformers.js (4.x, models/modeling_utils + seq2seq_forward) loads <dir>/config.json,
generation_config.json, onnx/encoder_model.onnx and onnx/decoder_model_merged.onnx, and calls:
  encoder   input_ids, attention_mask -> last_hidden_state
  decoder   input_ids [B,1], encoder_attention_mask, encoder_hidden_states, use_cache_branch [1] (bool),
            past_key_values.{i}.decoder.key/value, past_key_values.{i}.encoder.key/value [B,H,T,dh]
            -> logits [B,1,V], present.{i}.decoder.key/value, present.{i}.encoder.key/value
On the first step it feeds zero-length past tensors (every symbolic dimension but batch_size is 0)
and use_cache_branch=false; afterwards it feeds the decoder presents back and keeps the FIRST
step's encoder presents for good. So the merged decoder is an If over two traced graphs (as
optimum's merge_decoders builds it): without past it projects the encoder states into the
cross-attention keys/values and returns them; with past it reads them from the cache.

Our models need a little more than a BART does; it rides in the tensors transformers.js passes through:
  summarize (TAAS)  the memory is [s; h]: the topic-aware slot s = αᵀh in front of the token states.
                    input_ids carries one placeholder position in front (the bench feeds it) so that
                    attention_mask covers the slot; encoder_hidden_states = [memory, source id] with the
                    source ids (for the pointer) as one extra channel.
  essay (PC-SAN)    every decoder layer has its own memory: encoder_hidden_states = [memory_1 ..
                    memory_L, source id]. The topic word vector index rides in input_ids
                    (id + vocab_size * word_id), since generate() passes only input_ids and
                    attention_mask to the encoder. The running sum of each layer's inputs (the
                    target-side history, Eq. 8) rides in position 0 of that layer's decoder key cache,
                    masked out of the self-attention; the value cache holds zeros there.
The pointer's copy op and the output embedding's op are whichever the shipped decoder.onnx uses.

The weights come from the shipped folder itself (weights_from_onnx.py rebuilds the PyTorch model
from encoder.onnx and decoder.onnx), so no training checkpoint is needed; CKPT "-" says so. A
checkpoint still works in its place (its weights rounded as the folder stores them: match_weights).
Either way the PyTorch model is checked against the SHIPPED graphs, run by onnxruntime-node
(check_peer_onnx.cjs): the encoder's cross-attention keys/values, the first step's log-probs, and
the greedy ids the peer's config carries.

  python3 -m draftsmith_train.export_peer summarize - ../summarize ../../.work/peer/summarize
  python3 -m draftsmith_train.export_peer essay - ../essay ../../.work/peer/essay
  python3 -m draftsmith_train.export_peer summarize runs/taas.pt ../summarize ../../.work/peer/summarize

--hub-layout (summarize) exports for the Hub rather than the bench: graphs a generic seq2seq
caller (transformers.js's generate(), or any loop that feeds tokenizer output) runs as they are. The
encoder takes plain input_ids/attention_mask [B,T] and prepends the topic slot itself (last_hidden_state
[B,1+T,d+1], the source ids still in the last channel, 0 at the slot); the decoder takes the tokenizer's
encoder_attention_mask [B,T] and prepends the slot's column itself. "logits" are log-probabilities (the
pointer's mixture). The checkpoint's weights are used as trained; the third argument gives the tokenizer
files (and the ops, when it has a decoder.onnx). --int8 [MIN_ELEMENTS] adds *_quantized.onnx (dtype
"q8"; quantize.py's quantize_model, the merged decoder's two branches before the merge); --fixture DIR
copies the Hub files (int8 graphs only) and a README.md there. check_hub_seq2seq.cjs then runs the
export in transformers.js against the PyTorch reference (parts/hub_check.json):

  python3 -m draftsmith_train.export_peer summarize runs/hub-fixture/taas-tiny.pt ../summarize \
      ../../.work/hub/summarize-taas --hub-layout --int8 1024 \
      --fixture ../../test/fixtures/hub/draftsmith/summarize-taas
"""
import hashlib
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import onnx
import torch
from onnx import TensorProto, helper, numpy_helper

from . import tokenizer as T
from .modules import PointerGenerator, causal_bias, padding_bias
from .onnx_graph import rewrite_file

OPSET = 16  # ScatterElements with reduction="add" (the pointer's scatter copy)


def match_shipped(shipped_dir):
    """The peer uses the shipped decoder graph's ops: the pointer's copy op (OneHot + MatMul, or
    ScatterElements) and the tied output embedding (Einsum, or Gemm after onnx_graph's rewrite)."""
    ops = {n.op_type for n in onnx.load(os.path.join(shipped_dir, "decoder.onnx"), load_external_data=False).graph.node}
    PointerGenerator.copy_op = "onehot" if "OneHot" in ops else "scatter"
    return {"copyOp": PointerGenerator.copy_op, "tiedLogits": "einsum" if "Einsum" in ops else "gemm"}


def match_weights(model, shipped_dir):
    """A shipped folder with int8 weight storage computes with rounded weights (weight_storage.py):
    round the peer's the same way, so both run the same numbers."""
    manifest = json.load(open(os.path.join(shipped_dir, "model.json")))
    if manifest.get("weights", {}).get("storage") == "int8":
        from .weight_storage import quantize_

        quantize_(model)


def load_peer_model(ckpt, shipped_dir, load_ckpt):
    """The PyTorch model the peer is traced from: rebuilt from the shipped ONNX files (ckpt "-" or
    None), or a checkpoint's (load_ckpt(ckpt) -> model) with its weights rounded like the folder's."""
    if ckpt in (None, "-"):
        from .weights_from_onnx import load_shipped

        return load_shipped(shipped_dir)  # already the rounded weights: rounding again could move them by an ulp
    m = load_ckpt(ckpt).eval()
    match_weights(m, shipped_dir)
    return m


def check_shipped(shipped_dir, out_dir, inputs, cross_kv, first_logp, greedy_ids):
    """Runs the shipped encoder.onnx/decoder.onnx (onnxruntime-node: no onnxruntime for Python here)
    on the peer's check input and compares them with the PyTorch model: check_peer_onnx.cjs."""
    ref = os.path.join(out_dir, "parts", "shipped_check.json")
    json.dump(
        {
            "inputs": {k: v[0].tolist() for k, v in inputs.items()},
            "cross_key_values": cross_kv.flatten().tolist(),
            "first_log_probs": first_logp.flatten().tolist(),
            "greedy_ids": greedy_ids,
        },
        open(ref, "w"),
    )
    script = os.path.join(os.path.dirname(__file__), "..", "check_peer_onnx.cjs")
    if not shutil.which("node"):
        print("no node: the check against the shipped ONNX files is skipped")
        return
    subprocess.run(["node", script, shipped_dir, ref], check=True)


# ---- TAAS --------------------------------------------------------------------------------------
class TaasEncoder(torch.nn.Module):
    """hub=False (the bench's peer): input_ids/attention_mask carry the topic slot's placeholder at
    position 0. hub=True (--hub-layout): they are plain tokenizer output [B,T]; the slot is prepended
    here. Either way last_hidden_state is [B, 1+T, d+1]: the slot, then the tokens; the last channel
    holds the source ids (0 at the slot) for the decoder's pointer."""

    def __init__(self, m, hub=False):
        super().__init__()
        self.m, self.hub = m, hub

    def forward(self, input_ids, attention_mask):
        if self.hub:
            ids, mask = input_ids, attention_mask
        else:
            ids, mask = input_ids[:, 1:], attention_mask[:, 1:]  # position 0: the topic slot's placeholder
        memory, _, _, _ = self.m.topic_memory(self.m.encode(ids, mask), mask)
        src = torch.cat([torch.zeros_like(ids[:, :1]), ids], dim=1).to(memory.dtype)
        return torch.cat([memory, src[:, :, None]], dim=-1)


class TaasDecoder(torch.nn.Module):
    """hub=True (--hub-layout): encoder_attention_mask is the tokenizer's [B,T]; the topic slot's
    column is prepended here to cover encoder_hidden_states' [B,1+T] positions."""

    def __init__(self, m, with_past, hub=False):
        super().__init__()
        self.m, self.with_past, self.hub = m, with_past, hub

    def forward(self, input_ids, encoder_attention_mask, encoder_hidden_states, *past):
        m, d = self.m, self.m.c.d_model
        src = encoder_hidden_states[:, 1:, d].long()
        mask = encoder_attention_mask
        if self.hub:
            mask = torch.cat([torch.ones_like(mask[:, :1]), mask], dim=1)
        if not m.c.topic_attention:  # the exported model masks the (zero) slot out
            mask = torch.cat([torch.zeros_like(mask[:, :1]), mask[:, 1:]], dim=1)
        if self.with_past:
            dec = [(past[4 * i], past[4 * i + 1]) for i in range(len(m.decoder))]
            cross = [(past[4 * i + 2], past[4 * i + 3]) for i in range(len(m.decoder))]
            start = dec[0][0].shape[2]
        else:
            memory = encoder_hidden_states[:, :, :d]
            cross = [layer.cross_attn.project_kv(memory) for layer in m.decoder]
            dec, start = None, 0
        logp, presents, _ = m.decode_layers(input_ids, start, cross, mask, src, dec)
        outs = [logp]
        for i, (k, v) in enumerate(presents):
            outs += [k, v] + ([] if self.with_past else [cross[i][0], cross[i][1]])
        return tuple(outs)


# ---- PC-SAN ------------------------------------------------------------------------------------
class EssayEncoder(torch.nn.Module):
    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, input_ids, attention_mask):
        v = self.m.c.vocab_size
        ids, word_ids = torch.remainder(input_ids, v), torch.div(input_ids, v, rounding_mode="floor")
        memory, _ = self.m.memories(ids, attention_mask, word_ids)  # [L,B,T,d]
        per_layer = [memory[i] for i in range(memory.shape[0])]
        return torch.cat(per_layer + [ids.to(memory.dtype)[:, :, None]], dim=-1)


class EssayDecoder(torch.nn.Module):
    """pcsan.EssayGenerator.decode_step with per-layer caches and the running sum in key position 0."""

    def __init__(self, m, with_past):
        super().__init__()
        self.m, self.with_past = m, with_past

    def forward(self, input_ids, encoder_attention_mask, encoder_hidden_states, *past):
        m = self.m
        c, n = m.c, len(m.decoder)
        d, h = c.d_model, c.n_heads
        src = encoder_hidden_states[:, :, n * d].long()
        b, tq = input_ids.shape
        dev = input_ids.device
        if self.with_past:
            dec = [(past[4 * i], past[4 * i + 1]) for i in range(n)]
            cross = [(past[4 * i + 2], past[4 * i + 3]) for i in range(n)]
            tp = dec[0][0].shape[2] - 1
            # [B,H,1,dh] -> [B,d]: the head split of MultiHeadAttention.split, undone
            sums = [k[:, :, 0, :].reshape(b, d) for k, _ in dec]
            self_bias = torch.cat(
                [
                    torch.full((1, 1, tq, 1), -1e9, device=dev),
                    torch.zeros(1, 1, tq, tp, device=dev),
                    causal_bias(tq, dev),
                ],
                dim=-1,
            )
        else:
            cross = [
                layer.cross_attn.project_kv(encoder_hidden_states[:, :, i * d : (i + 1) * d])
                for i, layer in enumerate(m.decoder)
            ]
            dec, tp, sums = None, 0, [None] * n
            self_bias = causal_bias(tq, dev)
        pos = (torch.arange(tq, device=dev) + tp)[None]
        emb = m.embed(input_ids) * m.scale
        x = m.drop(emb + m.tgt_pos(pos))
        cross_bias = padding_bias(encoder_attention_mask)
        outs, cw, context = [], None, None
        for i, layer in enumerate(m.decoder):
            pk, pv = (None, None) if dec is None else dec[i]
            x, k, v, s, cw, context = layer(
                x, self_bias, cross[i][0], cross[i][1], cross_bias, pk, pv, sums[i], tp, None
            )
            slot = s.reshape(b, 1, h, d // h).transpose(1, 2)  # the new sum, [B,H,1,dh]
            if dec is None:
                k_out, v_out = torch.cat([slot, k], dim=2), torch.cat([torch.zeros_like(slot), v], dim=2)
            else:
                k_out, v_out = torch.cat([slot, k[:, :, 1:]], dim=2), v
            outs += [k_out, v_out] + ([] if self.with_past else [cross[i][0], cross[i][1]])
        out = m.dec_ln(x)
        logp = torch.log_softmax(torch.einsum("btd,vd->btv", out, m.embed.weight), dim=-1)
        if c.copy:
            logp, _ = m.pointer(out, context, emb, logp, cw.mean(dim=1), src)
        return tuple([logp] + outs)


# ---- the merged decoder ------------------------------------------------------------------------
def _key(t):
    a = numpy_helper.to_array(t)
    return (t.data_type, tuple(t.dims), hashlib.sha1(a.tobytes()).hexdigest())


def merge_decoders(no_past, with_past, n_layers):
    """One graph: If(use_cache_branch, with_past, no_past), the weights stored once in the outer graph.

    Every name a branch defines gets the branch's prefix (a subgraph may not redefine an outer
    name, and the two traces reuse names); initializers with equal contents become one. With past,
    the encoder presents are a 1-element placeholder: transformers.js keeps the first step's ones."""
    inits, seen = [], {}

    def branch(model, prefix, name):
        g = model.graph
        rename = {}
        for t in g.initializer:
            k = _key(t)
            if k not in seen:
                seen[k] = prefix + t.name
                t2 = onnx.TensorProto()
                t2.CopyFrom(t)
                t2.name = seen[k]
                inits.append(t2)
            rename[t.name] = seen[k]
        for node in g.node:
            for o in node.output:
                if o:
                    rename[o] = prefix + o
        nodes = []
        for node in g.node:
            n2 = onnx.NodeProto()
            n2.CopyFrom(node)
            n2.name = prefix + (node.name or node.op_type)
            del n2.input[:]
            n2.input.extend(rename.get(i, i) for i in node.input)  # graph inputs keep their (outer) names
            del n2.output[:]
            n2.output.extend(rename.get(o, o) for o in node.output)
            nodes.append(n2)
        outputs = []
        for o in g.output:
            o2 = onnx.ValueInfoProto()
            o2.CopyFrom(o)
            if o.name not in rename:  # an output that is a graph input as it is
                nodes.append(helper.make_node("Identity", [o.name], [prefix + o.name]))
                o2.name = prefix + o.name
            else:
                o2.name = rename[o.name]
            o2.type.tensor_type.ClearField("shape")
            outputs.append(o2)
        return nodes, outputs

    wp_nodes, wp_out = branch(with_past, "with_past/", "with_past")
    np_nodes, np_out = branch(no_past, "no_past/", "no_past")
    np_names = [o.name for o in no_past.graph.output]
    wp_names = [o.name for o in with_past.graph.output]
    # with_past's outputs in no_past's order; the encoder presents are placeholders
    ordered = []
    for name in np_names:
        if name in wp_names:
            ordered.append(wp_out[wp_names.index(name)])
        else:
            ph = "with_past/placeholder/" + name
            wp_nodes.append(
                helper.make_node(
                    "Constant", [], [ph], value=numpy_helper.from_array(np.zeros((1, 1, 1, 1), np.float32))
                )
            )
            ordered.append(helper.make_tensor_value_info(ph, TensorProto.FLOAT, None))
    then_g = helper.make_graph(wp_nodes, "with_past", [], ordered)
    else_g = helper.make_graph(np_nodes, "no_past", [], np_out)
    outer_inputs = list(with_past.graph.input) + [
        helper.make_tensor_value_info("use_cache_branch", TensorProto.BOOL, [1])
    ]
    outer_outputs = []
    for o in no_past.graph.output:
        o2 = onnx.ValueInfoProto()
        o2.CopyFrom(o)
        outer_outputs.append(o2)
    if_node = helper.make_node(
        "If", ["use_cache_branch"], np_names, then_branch=then_g, else_branch=else_g, name="optimum::if"
    )
    graph = helper.make_graph([if_node], "merged_decoder", outer_inputs, outer_outputs, initializer=inits)
    model = helper.make_model(graph, opset_imports=list(no_past.opset_import), producer_name="draftsmith export_peer")
    model.ir_version = no_past.ir_version
    onnx.checker.check_model(model)
    return model


def _cache_names(n_layers, prefix, kinds):
    return [f"{prefix}.{i}.{kind}.{kv}" for i in range(n_layers) for kind in kinds for kv in ("key", "value")]


def export_encoder(enc, input_ids, mask, out_dir, hidden_length="encoder_sequence_length"):
    """encoder_model.onnx in transformers.js's layout: input_ids, attention_mask -> last_hidden_state.
    hidden_length: the name of last_hidden_state's length (the hub layout's is the input's + 1)."""
    axes = {0: "batch_size", 1: "encoder_sequence_length"}
    torch.onnx.export(
        enc,
        (input_ids, mask),
        os.path.join(out_dir, "onnx", "encoder_model.onnx"),
        opset_version=OPSET,
        input_names=["input_ids", "attention_mask"],
        output_names=["last_hidden_state"],
        dynamic_axes={
            "input_ids": axes,
            "attention_mask": axes,
            "last_hidden_state": {0: "batch_size", 1: hidden_length},
        },
    )


def export_decoders(
    enc_out,
    dec_no,
    dec_wp,
    ids,
    mask,
    n_layers,
    out_dir,
    tmp_dir,
    ops,
    hidden_length="encoder_sequence_length",
    int8_min_elements=None,
):
    """Traces both decoders with torch.onnx (opset 16) and merges them into decoder_model_merged.onnx.
    hidden_length: the name of encoder_hidden_states' length. int8_min_elements (not None): also
    decoder_model_merged_quantized.onnx, each branch through quantize.quantize_model (which sees one
    graph, not an If's branches) before the merge, matrices of at least that many elements to int8."""
    with torch.no_grad():
        ehs = enc_out
        first = torch.tensor([[T.BOS]])
        outs = dec_no(first, mask, ehs)
        past = []
        for i in range(n_layers):
            past += [outs[1 + 4 * i], outs[2 + 4 * i], outs[3 + 4 * i], outs[4 + 4 * i]]
        nxt = torch.tensor([[int(outs[0][0, -1].argmax())]])
        common = {
            "input_ids": {0: "batch_size", 1: "decoder_sequence_length"},
            "encoder_attention_mask": {0: "batch_size", 1: "encoder_sequence_length"},
            "encoder_hidden_states": {0: "batch_size", 1: hidden_length},
            "logits": {0: "batch_size", 1: "decoder_sequence_length"},
        }
        present_all = _cache_names(n_layers, "present", ("decoder", "encoder"))
        present_dec = _cache_names(n_layers, "present", ("decoder",))
        past_names = [
            f"past_key_values.{i}.{kind}.{kv}"
            for i in range(n_layers)
            for kind in ("decoder", "encoder")
            for kv in ("key", "value")
        ]
        f_no, f_wp = os.path.join(tmp_dir, "decoder_model.onnx"), os.path.join(tmp_dir, "decoder_with_past_model.onnx")
        axes = dict(common)
        for name in present_all:
            axes[name] = {
                0: "batch_size",
                2: "past_decoder_sequence_length + 1" if ".decoder." in name else "encoder_sequence_length_out",
            }
        torch.onnx.export(
            dec_no,
            (first, mask, ehs),
            f_no,
            opset_version=OPSET,
            input_names=["input_ids", "encoder_attention_mask", "encoder_hidden_states"],
            output_names=["logits"] + present_all,
            dynamic_axes=axes,
        )
        axes = dict(common)
        for name in past_names:
            axes[name] = {
                0: "batch_size",
                2: "past_decoder_sequence_length" if ".decoder." in name else "encoder_sequence_length_out",
            }
        for name in present_dec:
            axes[name] = {0: "batch_size", 2: "past_decoder_sequence_length + 1"}
        torch.onnx.export(
            dec_wp,
            (nxt, mask, ehs, *past),
            f_wp,
            opset_version=OPSET,
            input_names=["input_ids", "encoder_attention_mask", "encoder_hidden_states"] + past_names,
            output_names=["logits"] + present_dec,
            dynamic_axes=axes,
        )
    if ops["tiedLogits"] == "gemm":  # the same rewrite as the shipped decoder.onnx
        rewrite_file(f_no)
        rewrite_file(f_wp)
    merged = merge_decoders(onnx.load(f_no), onnx.load(f_wp), n_layers)
    onnx.save(merged, os.path.join(out_dir, "onnx", "decoder_model_merged.onnx"))
    if int8_min_elements is not None:
        branches = [onnx.load(f) for f in (f_no, f_wp)]
        counts = [quantize_graph(b, int8_min_elements) for b in branches]
        onnx.save(
            merge_decoders(*branches, n_layers), os.path.join(out_dir, "onnx", "decoder_model_merged_quantized.onnx")
        )
        print(f"decoder_model_merged_quantized.onnx: {counts[0]} + {counts[1]} matrices to int8 (no past + with past)")
    return outs, nxt, past


def quantize_graph(model, min_elements):
    """quantize.quantize_model with its size threshold set to min_elements for this call."""
    from . import quantize

    saved, quantize.MIN_ELEMENTS = quantize.MIN_ELEMENTS, min_elements
    try:
        return quantize.quantize_model(model)
    finally:
        quantize.MIN_ELEMENTS = saved


def greedy(dec_no, dec_wp, ehs, mask, steps, n_layers):
    """PyTorch greedy ids through the two peer decoders (no end-of-text stop): the bench's reference."""
    with torch.no_grad():
        outs = dec_no(torch.tensor([[T.BOS]]), mask, ehs)
        cross = [(outs[3 + 4 * i], outs[4 + 4 * i]) for i in range(n_layers)]
        stride, ids = 4, []
        while True:
            tok = int(outs[0][0, -1].argmax())
            ids.append(tok)
            if len(ids) == steps:
                return ids
            past = []
            for i in range(n_layers):
                past += [outs[1 + stride * i], outs[2 + stride * i], cross[i][0], cross[i][1]]
            outs, stride = dec_wp(torch.tensor([[tok]]), mask, ehs, *past), 2


def write_configs(out_dir, c, system, extra, hub=None):
    """hub (a dict; --hub-layout): config.json gets it as "draftsmith", the size and length fields a
    BART config has, generation_config.json a max_length; no peer.json (the bench's)."""
    config = {
        "model_type": "bart",
        "architectures": ["BartForConditionalGeneration"],
        "is_encoder_decoder": True,
        "vocab_size": c.vocab_size,
        "d_model": c.d_model,
        "encoder_layers": c.encoder_layers,
        "decoder_layers": c.decoder_layers,
        "encoder_attention_heads": c.n_heads,
        "decoder_attention_heads": c.n_heads,
        "max_position_embeddings": c.max_target_positions,
        "pad_token_id": T.PAD,
        "bos_token_id": T.BOS,
        "eos_token_id": T.EOS,
        "decoder_start_token_id": T.BOS,
        "forced_bos_token_id": None,
        "forced_eos_token_id": None,
    }
    generation = {"bos_token_id": T.BOS, "decoder_start_token_id": T.BOS, "eos_token_id": T.EOS, "pad_token_id": T.PAD}
    if hub is not None:
        config.update(
            {
                "encoder_ffn_dim": c.d_ff,
                "decoder_ffn_dim": c.d_ff,
                "max_source_positions": c.max_source_positions,
                "max_target_positions": c.max_target_positions,
                "tie_word_embeddings": True,
                "draftsmith": hub,
            }
        )
        generation["max_length"] = c.max_target_positions  # decoder positions, the start token's included
    json.dump(config, open(os.path.join(out_dir, "config.json"), "w"), indent=1)
    json.dump(generation, open(os.path.join(out_dir, "generation_config.json"), "w"), indent=1)
    if hub is None:
        json.dump({"system": system, **extra}, open(os.path.join(out_dir, "peer.json"), "w"), indent=1)


def export_summarize(ckpt, shipped_dir, out_dir, steps=32):
    from .modules import load_summarizer

    ops = match_shipped(shipped_dir)
    m = load_peer_model(ckpt, shipped_dir, lambda p: load_summarizer(p)[0])
    c = m.c
    os.makedirs(os.path.join(out_dir, "onnx"), exist_ok=True)
    tmp = os.path.join(out_dir, "parts")
    os.makedirs(tmp, exist_ok=True)
    ids = torch.tensor([[0] + list(range(10, 60))])  # placeholder + 50 source ids
    mask = torch.ones_like(ids)
    enc = TaasEncoder(m).eval()
    with torch.no_grad():
        ehs = enc(ids, mask)
        export_encoder(enc, ids, mask, out_dir)
        # The same computation as the shipped pair: the peer's first step against decode_step.
        src, smask = ids[:, 1:], mask[:, 1:]
        memory, mm, _, _ = m.topic_memory(m.encode(src, smask), smask)
        cross = m.cross_key_values(memory)  # what the shipped encoder.onnx returns
        ref, _, _ = m.decode_step(torch.tensor([[T.BOS]]), 0, cross, mm, src)
    dec_no, dec_wp = TaasDecoder(m, False).eval(), TaasDecoder(m, True).eval()
    outs, _, _ = export_decoders(ehs, dec_no, dec_wp, ids, mask, c.decoder_layers, out_dir, tmp, ops)
    assert torch.allclose(outs[0], ref, atol=1e-4), "peer decoder differs from decode_step"
    ref_ids = greedy(dec_no, dec_wp, ehs, mask, steps, c.decoder_layers)
    write_configs(
        out_dir,
        c,
        "summarize",
        {
            "inputs": "placeholder",
            "vocabSize": c.vocab_size,
            **ops,
            "check": {"input_ids": ids[0].tolist(), "greedy_ids": ref_ids},
        },
    )
    check_shipped(shipped_dir, out_dir, {"input_ids": src}, cross, ref, ref_ids)
    print("exported peer", out_dir, ops)


# ---- --hub-layout: a seq2seq model for the Hub ---------------------------------------
HUB_TEXT = (
    "The city council voted on Tuesday to build a new bridge over the river, after years of debate "
    "about traffic in the old town. Work is due to start next spring and should take two years."
)
HUB_FILES = [
    "config.json",
    "generation_config.json",
    "tokenizer.json",
    "tokenizer_config.json",
    "onnx/encoder_model_quantized.onnx",
    "onnx/decoder_model_merged_quantized.onnx",
]


def hub_layout_notes(c):
    """config.json's "draftsmith" entry: what a caller of these graphs must know beyond BART's layout."""
    return {
        "system": "summarize",
        "layout": "hub",
        "encoder_hidden_states": (
            f"[batch, 1 + T, {c.d_model + 1}]: the topic-aware slot, then the T source tokens; "
            f"channels 0..{c.d_model - 1} the memory, channel {c.d_model} the source token ids (0 at the slot)"
        ),
        "encoder_attention_mask": "the tokenizer's [batch, T]; the decoder prepends the slot's column itself",
        "logits": "log-probabilities (the pointer-generator's mixture), not raw logits",
        "max_source_tokens": c.max_source_positions,
        "num_topics": c.num_topics,
        "topic_attention": c.topic_attention,
        "copy": c.copy,
    }


def command_line(module, args):
    """A checkpoint's recorded argparse namespace (meta["args"]) as the command that ran it."""
    words = ["python3", "-m", module, args.get("cmd", "")]
    for k, v in args.items():
        if k == "cmd" or v is None or v is False:
            continue
        flag = "--" + k.replace("_", "-")
        for x in v if isinstance(v, list) else [v]:
            words += [flag] if x is True else [flag, str(x)]
    return " ".join(words)


def write_hub_readme(out_dir, name, c, meta, params, ckpt, export_cmd, check):
    from .export_common import sha256

    val = meta.get("val") or {}
    rows = "".join(
        f"| {f} | {os.path.getsize(os.path.join(out_dir, f)):,} | {sha256(os.path.join(out_dir, f))} |\n"
        for f in HUB_FILES
    )
    train = (
        command_line("draftsmith_train.summarize", meta["args"])
        if meta.get("args")
        else f"(no training record: {ckpt})"
    )
    text = f"""# {name}

**A test fixture, far too small to summarize well.** A tiny TAAS summarizer (Transformer encoder-decoder
with a neural topic model, topic-aware attention and a pointer-generator copy) trained by Draftsmith's
recipe (models/train/draftsmith_train/summarize.py) from scratch (no denoising pretraining) on the
prepared summarization pairs (`.data/summarize.train.jsonl`) for a few minutes, exported by \
models/train/draftsmith_train/export_peer.py `--hub-layout` in the layout
transformers.js runs an encoder-decoder in (`AutoModelForSeq2SeqLM`, dtype `q8`). The loopback Hub of
test/unit serves it so that the Hub code path runs a real seq2seq model of this project. What it writes
is nonsense (repeated frequent words); it is here for the layout, not the summaries.

- size: d_model {c.d_model}, {c.n_heads} heads, d_ff {c.d_ff}, \
{c.encoder_layers} encoder + {c.decoder_layers} decoder layer(s),
  {c.num_topics} topics, vocabulary {c.vocab_size} (the shared sentencepiece tokenizer of models/summarize), \
{params / 1e6:.2f}M parameters
- validation (summarize.val.jsonl, {meta.get("args", {}).get("max_val", "?")} pairs, token NLL without label smoothing):
  **nll {val.get("nll")}, ppl {val.get("ppl")}** after {meta.get("steps")} steps, \
{meta.get("tokens")} tokens, {meta.get("seconds")} s
- int8: every weight matrix of at least {check["int8_min_elements"]} elements as int8 with a scale per output column
  (models/train/draftsmith_train/quantize.py's quantize_model: DynamicQuantizeLinear + MatMulInteger); the
  embedding tables stay float32. No float32 graphs are kept here.

## How it was made (from models/train)

```bash
nice -n 5 /usr/bin/{train}
/usr/bin/{export_cmd}
node check_hub_seq2seq.cjs {os.path.relpath(check["work_dir"])} --fixture {os.path.relpath(out_dir)}
```

(The training command is the checkpoint's recorded arguments, defaults included; `--minutes` makes the
step count depend on the machine's speed: add `--steps {meta.get("steps")}` to stop where this run stopped. \
The export writes the
float32 and int8 graphs and the PyTorch reference, `parts/hub_check.json`, to its work folder and copies
the files below here; the check runs both exports in transformers.js against that reference.)

## Layout (what a caller must know)

- encoder `onnx/encoder_model_quantized.onnx`: `input_ids`, `attention_mask` [batch, T] exactly as the
  tokenizer gives them (no special tokens are added; T at most {c.max_source_positions}: truncate longer
  sources) -> `last_hidden_state` [batch, 1 + T, {c.d_model + 1}]: the topic-aware slot s in front of the token
  states (the graph prepends it), and one extra channel carrying the source ids for the pointer.
- decoder `onnx/decoder_model_merged_quantized.onnx`: `input_ids` [batch, t], `encoder_attention_mask`
  [batch, T] (the tokenizer's: the graph prepends the slot's column), `encoder_hidden_states` (as the
  encoder returned it), `use_cache_branch` [1] bool, `past_key_values.{{i}}.decoder.key/value`
  [batch, {c.n_heads}, past, {c.d_model // c.n_heads}] and \
`past_key_values.{{i}}.encoder.key/value` [batch, {c.n_heads}, 1 + T, {c.d_model // c.n_heads}]
  -> `logits` [batch, t, {c.vocab_size}], `present.{{i}}.decoder.*`, `present.{{i}}.encoder.*`.
  First step: zero-length pasts, `use_cache_branch` false; then the decoder presents fed back and the
  FIRST step's encoder presents kept (later steps return 1x1x1x1 placeholders for them).
- **`logits` are log-probabilities** (log of the pointer-generator's mixture of the vocabulary
  distribution and the copy attention), not raw logits: argmax and log_softmax give the same answer
  on them, so greedy search, beam search and sampling treat them correctly.
- decoding starts from `<s>` (id {T.BOS}) and stops at `</s>` (id {T.EOS}); pad id {T.PAD}.

## Files

| file | bytes | sha256 |
|---|---|---|
{rows}"""
    open(os.path.join(out_dir, "README.md"), "w").write(text)


def append_check(readme, lines):
    """The fixture's README gets check_hub_seq2seq.cjs's results."""
    rows = []
    for line in lines.splitlines():
        try:
            r = json.loads(line)
        except ValueError:
            continue
        rows.append(
            f"| {r['dir']} | {r['dtype']} | {r['first_log_probs_max_abs_diff']:.2g} |"
            f" {r.get('batch_row1_padded_max_abs_diff', float('nan')):.2g} |"
            f" {r['peer_placeholder_layout_max_abs_diff']:.2g} | {r['greedy_ids_equal_pytorch']} |"
            f" {r['generated_text']!r} | {'ok' if r['ok'] else 'FAILED'} |"
        )
    with open(readme, "a") as f:
        f.write(
            '\n## Checked in transformers.js (check_hub_seq2seq.cjs)\n\nOn the check text ("'
            + HUB_TEXT
            + "\"): the first step's log-probs against PyTorch's (max |diff|), a padded batch row against the row"
            " alone, the bench's placeholder layout misread on plain tokenizer output (how far off the graphs would"
            " be without the slot handled inside), generate() (greedy, max_new_tokens 30) against PyTorch's greedy"
            " ids, and its text.\n\n| folder | dtype | first step | padded row | placeholder misread | greedy ="
            " PyTorch | generated | |\n|---|---|---|---|---|---|---|---|\n" + "\n".join(rows) + "\n"
        )


def export_summarize_hub(
    ckpt,
    shipped_dir,
    out_dir,
    fixture=None,
    int8_min_elements=None,
    text=HUB_TEXT,
    spm=None,
    steps=30,
    name="draftsmith/summarize-taas",
):
    """--hub-layout: graphs a generic seq2seq caller runs with plain tokenizer output (TaasEncoder and
    TaasDecoder with hub=True). ckpt "-": the shipped folder's weights; otherwise the checkpoint's as
    trained (not rounded to the shipped folder's storage: it is another model). shipped_dir gives the
    tokenizer files and the graphs' ops. Writes the float32 graphs, with int8_min_elements not None the
    *_quantized.onnx ones too, and parts/hub_check.json (PyTorch's reference for check_hub_seq2seq.cjs);
    fixture: a folder that gets HUB_FILES and a README.md (needs the int8 graphs). A shipped_dir
    without decoder.onnx (only the tokenizer files) gives the scatter copy and the Gemm logits."""
    from .modules import load_summarizer

    if os.path.exists(os.path.join(shipped_dir, "decoder.onnx")):
        ops = match_shipped(shipped_dir)
    else:
        PointerGenerator.copy_op = "scatter"
        ops = {"copyOp": "scatter", "tiedLogits": "gemm"}
    meta = {}
    if ckpt in (None, "-"):
        from .weights_from_onnx import load_shipped

        m = load_shipped(shipped_dir)
    else:
        m, meta, _ = load_summarizer(ckpt)
        meta = {k: v for k, v in meta.items() if k != "train_state"}
    m = m.eval()
    c = m.c
    os.makedirs(os.path.join(out_dir, "onnx"), exist_ok=True)
    tmp = os.path.join(out_dir, "parts")
    os.makedirs(tmp, exist_ok=True)
    spm = spm or os.path.join((meta.get("args") or {}).get("data", ".data"), "spm.model")
    if text and os.path.exists(spm):
        ids = torch.tensor([T.load(spm).encode(text)[: c.max_source_positions]])
    else:
        print(f"no check text or no tokenizer model at {spm}: the check input is fixed ids")
        text, ids = None, torch.tensor([list(range(5, min(55, c.vocab_size)))])
    mask = torch.ones_like(ids)
    hidden = "encoder_sequence_length + 1"
    enc = TaasEncoder(m, hub=True).eval()
    dec_no, dec_wp = TaasDecoder(m, False, hub=True).eval(), TaasDecoder(m, True, hub=True).eval()
    with torch.no_grad():
        ehs = enc(ids, mask)
        export_encoder(enc, ids, mask, out_dir, hidden_length=hidden)
        # the model's own path (the shipped engine's): the hub graphs must give its numbers
        memory, mm, _, _ = m.topic_memory(m.encode(ids, mask), mask)
        ref, _, _ = m.decode_step(torch.tensor([[T.BOS]]), 0, m.cross_key_values(memory), mm, ids)
        # what the bench's peer layout (a placeholder expected at position 0) makes of plain tokenizer output
        peer = TaasDecoder(m, False)(torch.tensor([[T.BOS]]), mask, TaasEncoder(m)(ids, mask))[0]
    outs, _, _ = export_decoders(
        ehs,
        dec_no,
        dec_wp,
        ids,
        mask,
        c.decoder_layers,
        out_dir,
        tmp,
        ops,
        hidden_length=hidden,
        int8_min_elements=int8_min_elements,
    )
    diff = float((outs[0] - ref).abs().max())
    assert diff < 1e-4, f"hub decoder differs from decode_step by {diff}"
    ref_ids = greedy(dec_no, dec_wp, ehs, mask, steps, c.decoder_layers)
    if int8_min_elements is not None:
        e = onnx.load(os.path.join(out_dir, "onnx", "encoder_model.onnx"))
        n = quantize_graph(e, int8_min_elements)
        onnx.save(e, os.path.join(out_dir, "onnx", "encoder_model_quantized.onnx"))
        print(f"encoder_model_quantized.onnx: {n} matrices to int8")
    write_configs(out_dir, c, "summarize", {}, hub=hub_layout_notes(c))
    for f in ("tokenizer.json", "tokenizer_config.json"):
        shutil.copy(os.path.join(shipped_dir, f), os.path.join(out_dir, f))
    check = {
        "text": text,
        "input_ids": ids[0].tolist(),
        "first_log_probs": ref.flatten().tolist(),
        "greedy_ids": ref_ids,
        "peer_layout_first_log_probs": peer.flatten().tolist(),
        "eos_token_id": T.EOS,
        "int8_min_elements": int8_min_elements,
        "work_dir": out_dir,
    }
    json.dump(check, open(os.path.join(tmp, "hub_check.json"), "w"))
    params = sum(p.numel() for p in m.parameters())
    print(
        f"exported hub layout {out_dir} ({params / 1e6:.2f}M params, {ops}); python first step vs decode_step: max"
        f" |diff| {diff:.2e}"
    )
    if fixture:
        if int8_min_elements is None:
            raise SystemExit("--fixture needs --int8 (the fixture keeps only the *_quantized.onnx graphs)")
        os.makedirs(os.path.join(fixture, "onnx"), exist_ok=True)
        for f in HUB_FILES:
            shutil.copy(os.path.join(out_dir, f), os.path.join(fixture, f))
        export_cmd = "python3 -m draftsmith_train.export_peer " + " ".join(sys.argv[1:])
        write_hub_readme(fixture, name, c, meta, params, ckpt, export_cmd, check)
        print(
            "fixture",
            fixture,
            sum(os.path.getsize(os.path.join(fixture, f)) for f in HUB_FILES + ["README.md"]),
            "bytes",
        )


def export_essay(ckpt, shipped_dir, out_dir, steps=32):
    from .essay import load_essay_model

    ops = match_shipped(shipped_dir)
    m = load_peer_model(ckpt, shipped_dir, lambda p: load_essay_model(p)[0])
    c = m.c
    if c.context == "source":
        raise SystemExit(
            "the -Source-context ablation feeds the decoder a source context; the peer export does not carry it"
        )
    os.makedirs(os.path.join(out_dir, "onnx"), exist_ok=True)
    tmp = os.path.join(out_dir, "parts")
    os.makedirs(tmp, exist_ok=True)
    src = torch.tensor([list(range(10, 22))])
    wids = torch.tensor([[1, 1, 0, 2, 2, 0, 3, 3, 3, 0, 4, 5]])
    packed = src + c.vocab_size * wids
    mask = torch.ones_like(src)
    enc = EssayEncoder(m).eval()
    with torch.no_grad():
        ehs = enc(packed, mask)
        export_encoder(enc, packed, mask, out_dir)
        memory, sctx = m.memories(src, mask, wids)
        cross = m.cross_key_values(memory)
        L, H, dh = c.decoder_layers, c.n_heads, c.d_model // c.n_heads
        ref1, p1, s1 = m.decode_step(
            torch.tensor([[T.BOS]]),
            cross,
            mask,
            sctx,
            torch.zeros(L, 2, 1, H, 0, dh),
            torch.zeros(L, 1, c.d_model),
            src,
        )
        ref2, _, _ = m.decode_step(torch.tensor([[int(ref1[0, -1].argmax())]]), cross, mask, sctx, p1, s1, src)
    dec_no, dec_wp = EssayDecoder(m, False).eval(), EssayDecoder(m, True).eval()
    outs, nxt, past = export_decoders(ehs, dec_no, dec_wp, packed, mask, c.decoder_layers, out_dir, tmp, ops)
    with torch.no_grad():
        second = dec_wp(nxt, mask, ehs, *past)
    assert torch.allclose(outs[0], ref1, atol=1e-4) and torch.allclose(
        second[0], ref2, atol=1e-4
    ), "peer decoder differs from decode_step"
    ref_ids = greedy(dec_no, dec_wp, ehs, mask, steps, c.decoder_layers)
    write_configs(
        out_dir,
        c,
        "essay",
        {
            "inputs": "word-packed",
            "vocabSize": c.vocab_size,
            **ops,
            "check": {"input_ids": packed[0].tolist(), "greedy_ids": ref_ids},
        },
    )
    check_shipped(shipped_dir, out_dir, {"input_ids": src, "word_ids": wids}, cross, ref1, ref_ids)
    print("exported peer", out_dir, ops)


def main():
    import argparse

    p = argparse.ArgumentParser(
        description="the bench's peer export (default), or --hub-layout: a summarizer for the Hub"
    )
    p.add_argument("system", choices=["summarize", "essay"])
    p.add_argument("ckpt", help='a checkpoint, or "-": the weights from the shipped folder')
    p.add_argument(
        "shipped",
        help="the shipped model folder (the peer's weights and ops; --hub-layout: its ops and tokenizer files)",
    )
    p.add_argument("out")
    p.add_argument(
        "--hub-layout",
        action="store_true",
        help=(
            "summarize: graphs that take plain tokenizer output (the topic slot prepended inside), for"
            " transformers.js's generate()"
        ),
    )
    p.add_argument(
        "--int8",
        type=int,
        nargs="?",
        const=4096,
        default=None,
        metavar="MIN_ELEMENTS",
        help=(
            "--hub-layout: also *_quantized.onnx (quantize.py's quantize_model; matrices of at least MIN_ELEMENTS,"
            " default 4096)"
        ),
    )
    p.add_argument("--fixture", help="--hub-layout --int8: copy the Hub files (int8 graphs only) and a README.md there")
    p.add_argument("--name", default="draftsmith/summarize-taas", help="--hub-layout: the model's name in the README")
    p.add_argument(
        "--spm",
        help="--hub-layout: the sentencepiece model for the check text (default: the checkpoint's --data/spm.model)",
    )
    a = p.parse_args()
    if a.hub_layout:
        if a.system != "summarize":
            raise SystemExit("--hub-layout exports summarize only")
        export_summarize_hub(a.ckpt, a.shipped, a.out, a.fixture, a.int8, spm=a.spm, name=a.name)
        script = os.path.join(os.path.dirname(__file__), "..", "check_hub_seq2seq.cjs")
        if not shutil.which("node"):
            print("no node: check_hub_seq2seq.cjs (transformers.js against the PyTorch reference) is skipped")
            return
        r = subprocess.run(
            ["node", script, a.out] + (["--fixture", a.fixture] if a.fixture else []), stdout=subprocess.PIPE, text=True
        )
        print(r.stdout, end="")
        if a.fixture:
            append_check(os.path.join(a.fixture, "README.md"), r.stdout)
        if r.returncode:
            raise SystemExit(f"check_hub_seq2seq.cjs failed ({r.returncode})")
        return
    {"summarize": export_summarize, "essay": export_essay}[a.system](a.ckpt, a.shipped, a.out)


if __name__ == "__main__":
    main()
