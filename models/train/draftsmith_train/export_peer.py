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
    json.dump({"inputs": {k: v[0].tolist() for k, v in inputs.items()}, "cross_key_values": cross_kv.flatten().tolist(),
               "first_log_probs": first_logp.flatten().tolist(), "greedy_ids": greedy_ids}, open(ref, "w"))
    script = os.path.join(os.path.dirname(__file__), "..", "check_peer_onnx.cjs")
    if not shutil.which("node"):
        print("no node: the check against the shipped ONNX files is skipped")
        return
    subprocess.run(["node", script, shipped_dir, ref], check=True)


# ---- TAAS --------------------------------------------------------------------------------------
class TaasEncoder(torch.nn.Module):
    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, input_ids, attention_mask):
        ids, mask = input_ids[:, 1:], attention_mask[:, 1:]  # position 0: the topic slot's placeholder
        memory, _, _, _ = self.m.topic_memory(self.m.encode(ids, mask), mask)
        src = torch.cat([torch.zeros_like(ids[:, :1]), ids], dim=1).to(memory.dtype)
        return torch.cat([memory, src[:, :, None]], dim=-1)


class TaasDecoder(torch.nn.Module):
    def __init__(self, m, with_past):
        super().__init__()
        self.m, self.with_past = m, with_past

    def forward(self, input_ids, encoder_attention_mask, encoder_hidden_states, *past):
        m, d = self.m, self.m.c.d_model
        src = encoder_hidden_states[:, 1:, d].long()
        mask = encoder_attention_mask
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
        memory, _ = self.m.memories(ids, attention_mask, word_ids)        # [L,B,T,d]
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
            self_bias = torch.cat([torch.full((1, 1, tq, 1), -1e9, device=dev), torch.zeros(1, 1, tq, tp, device=dev),
                                   causal_bias(tq, dev)], dim=-1)
        else:
            cross = [layer.cross_attn.project_kv(encoder_hidden_states[:, :, i * d:(i + 1) * d])
                     for i, layer in enumerate(m.decoder)]
            dec, tp, sums = None, 0, [None] * n
            self_bias = causal_bias(tq, dev)
        pos = (torch.arange(tq, device=dev) + tp)[None]
        emb = m.embed(input_ids) * m.scale
        x = m.drop(emb + m.tgt_pos(pos))
        cross_bias = padding_bias(encoder_attention_mask)
        outs, cw, context = [], None, None
        for i, layer in enumerate(m.decoder):
            pk, pv = (None, None) if dec is None else dec[i]
            x, k, v, s, cw, context = layer(x, self_bias, cross[i][0], cross[i][1], cross_bias, pk, pv, sums[i], tp, None)
            slot = s.reshape(b, 1, h, d // h).transpose(1, 2)               # the new sum, [B,H,1,dh]
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
            wp_nodes.append(helper.make_node("Constant", [], [ph], value=numpy_helper.from_array(np.zeros((1, 1, 1, 1), np.float32))))
            ordered.append(helper.make_tensor_value_info(ph, TensorProto.FLOAT, None))
    then_g = helper.make_graph(wp_nodes, "with_past", [], ordered)
    else_g = helper.make_graph(np_nodes, "no_past", [], np_out)
    outer_inputs = list(with_past.graph.input) + [helper.make_tensor_value_info("use_cache_branch", TensorProto.BOOL, [1])]
    outer_outputs = []
    for o in no_past.graph.output:
        o2 = onnx.ValueInfoProto()
        o2.CopyFrom(o)
        outer_outputs.append(o2)
    if_node = helper.make_node("If", ["use_cache_branch"], np_names, then_branch=then_g, else_branch=else_g, name="optimum::if")
    graph = helper.make_graph([if_node], "merged_decoder", outer_inputs, outer_outputs, initializer=inits)
    model = helper.make_model(graph, opset_imports=list(no_past.opset_import), producer_name="draftsmith export_peer")
    model.ir_version = no_past.ir_version
    onnx.checker.check_model(model)
    return model


def _cache_names(n_layers, prefix, kinds):
    return [f"{prefix}.{i}.{kind}.{kv}" for i in range(n_layers) for kind in kinds for kv in ("key", "value")]


def export_encoder(enc, input_ids, mask, out_dir):
    """encoder_model.onnx in transformers.js's layout: input_ids, attention_mask -> last_hidden_state."""
    axes = {0: "batch_size", 1: "encoder_sequence_length"}
    torch.onnx.export(enc, (input_ids, mask), os.path.join(out_dir, "onnx", "encoder_model.onnx"), opset_version=OPSET,
                      input_names=["input_ids", "attention_mask"], output_names=["last_hidden_state"],
                      dynamic_axes={"input_ids": axes, "attention_mask": axes, "last_hidden_state": axes})


def export_decoders(enc_out, dec_no, dec_wp, ids, mask, n_layers, out_dir, tmp_dir, ops):
    """Traces both decoders with torch.onnx (opset 16) and merges them into decoder_model_merged.onnx."""
    with torch.no_grad():
        ehs = enc_out
        first = torch.tensor([[T.BOS]])
        outs = dec_no(first, mask, ehs)
        past = []
        for i in range(n_layers):
            past += [outs[1 + 4 * i], outs[2 + 4 * i], outs[3 + 4 * i], outs[4 + 4 * i]]
        nxt = torch.tensor([[int(outs[0][0, -1].argmax())]])
        common = {"input_ids": {0: "batch_size", 1: "decoder_sequence_length"},
                  "encoder_attention_mask": {0: "batch_size", 1: "encoder_sequence_length"},
                  "encoder_hidden_states": {0: "batch_size", 1: "encoder_sequence_length"},
                  "logits": {0: "batch_size", 1: "decoder_sequence_length"}}
        present_all = _cache_names(n_layers, "present", ("decoder", "encoder"))
        present_dec = _cache_names(n_layers, "present", ("decoder",))
        past_names = [f"past_key_values.{i}.{kind}.{kv}" for i in range(n_layers) for kind in ("decoder", "encoder") for kv in ("key", "value")]
        f_no, f_wp = os.path.join(tmp_dir, "decoder_model.onnx"), os.path.join(tmp_dir, "decoder_with_past_model.onnx")
        axes = dict(common)
        for name in present_all:
            axes[name] = {0: "batch_size", 2: "past_decoder_sequence_length + 1" if ".decoder." in name else "encoder_sequence_length_out"}
        torch.onnx.export(dec_no, (first, mask, ehs), f_no, opset_version=OPSET,
                          input_names=["input_ids", "encoder_attention_mask", "encoder_hidden_states"],
                          output_names=["logits"] + present_all, dynamic_axes=axes)
        axes = dict(common)
        for name in past_names:
            axes[name] = {0: "batch_size", 2: "past_decoder_sequence_length" if ".decoder." in name else "encoder_sequence_length_out"}
        for name in present_dec:
            axes[name] = {0: "batch_size", 2: "past_decoder_sequence_length + 1"}
        torch.onnx.export(dec_wp, (nxt, mask, ehs, *past), f_wp, opset_version=OPSET,
                          input_names=["input_ids", "encoder_attention_mask", "encoder_hidden_states"] + past_names,
                          output_names=["logits"] + present_dec, dynamic_axes=axes)
    if ops["tiedLogits"] == "gemm":  # the same rewrite as the shipped decoder.onnx
        rewrite_file(f_no)
        rewrite_file(f_wp)
    merged = merge_decoders(onnx.load(f_no), onnx.load(f_wp), n_layers)
    onnx.save(merged, os.path.join(out_dir, "onnx", "decoder_model_merged.onnx"))
    return outs, nxt, past


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


def write_configs(out_dir, c, system, extra):
    config = {
        "model_type": "bart", "architectures": ["BartForConditionalGeneration"], "is_encoder_decoder": True,
        "vocab_size": c.vocab_size, "d_model": c.d_model,
        "encoder_layers": c.encoder_layers, "decoder_layers": c.decoder_layers,
        "encoder_attention_heads": c.n_heads, "decoder_attention_heads": c.n_heads,
        "max_position_embeddings": c.max_target_positions,
        "pad_token_id": T.PAD, "bos_token_id": T.BOS, "eos_token_id": T.EOS, "decoder_start_token_id": T.BOS,
        "forced_bos_token_id": None, "forced_eos_token_id": None,
    }
    json.dump(config, open(os.path.join(out_dir, "config.json"), "w"), indent=1)
    json.dump({"bos_token_id": T.BOS, "decoder_start_token_id": T.BOS, "eos_token_id": T.EOS, "pad_token_id": T.PAD},
              open(os.path.join(out_dir, "generation_config.json"), "w"), indent=1)
    json.dump({"system": system, **extra}, open(os.path.join(out_dir, "peer.json"), "w"), indent=1)


def export_summarize(ckpt, shipped_dir, out_dir, steps=32):
    from .summarize import load_model
    ops = match_shipped(shipped_dir)
    m = load_peer_model(ckpt, shipped_dir, lambda p: load_model(p)[0])
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
    write_configs(out_dir, c, "summarize", {"inputs": "placeholder", "vocabSize": c.vocab_size, **ops,
                                            "check": {"input_ids": ids[0].tolist(), "greedy_ids": ref_ids}})
    check_shipped(shipped_dir, out_dir, {"input_ids": src}, cross, ref, ref_ids)
    print("exported peer", out_dir, ops)


def export_essay(ckpt, shipped_dir, out_dir, steps=32):
    from .essay import load_essay_model
    ops = match_shipped(shipped_dir)
    m = load_peer_model(ckpt, shipped_dir, lambda p: load_essay_model(p)[0])
    c = m.c
    if c.context == "source":
        raise SystemExit("the -Source-context ablation feeds the decoder a source context; the peer export does not carry it")
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
        ref1, p1, s1 = m.decode_step(torch.tensor([[T.BOS]]), cross, mask, sctx, torch.zeros(L, 2, 1, H, 0, dh),
                                     torch.zeros(L, 1, c.d_model), src)
        ref2, _, _ = m.decode_step(torch.tensor([[int(ref1[0, -1].argmax())]]), cross, mask, sctx, p1, s1, src)
    dec_no, dec_wp = EssayDecoder(m, False).eval(), EssayDecoder(m, True).eval()
    outs, nxt, past = export_decoders(ehs, dec_no, dec_wp, packed, mask, c.decoder_layers, out_dir, tmp, ops)
    with torch.no_grad():
        second = dec_wp(nxt, mask, ehs, *past)
    assert torch.allclose(outs[0], ref1, atol=1e-4) and torch.allclose(second[0], ref2, atol=1e-4), "peer decoder differs from decode_step"
    ref_ids = greedy(dec_no, dec_wp, ehs, mask, steps, c.decoder_layers)
    write_configs(out_dir, c, "essay", {"inputs": "word-packed", "vocabSize": c.vocab_size, **ops,
                                        "check": {"input_ids": packed[0].tolist(), "greedy_ids": ref_ids}})
    check_shipped(shipped_dir, out_dir, {"input_ids": src, "word_ids": wids}, cross, ref1, ref_ids)
    print("exported peer", out_dir, ops)


if __name__ == "__main__":
    system, ckpt, shipped, out = sys.argv[1:5]  # ckpt "-": the weights from the shipped folder
    {"summarize": export_summarize, "essay": export_essay}[system](ckpt, shipped, out)
