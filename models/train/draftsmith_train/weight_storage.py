"""Smaller model files: weight matrices stored as int8 with one float32 scale per output row.

The story folder holds three graphs with five decoders' worth of weights (the fused and the frozen
pretrained seq2seq, each with its own tied embedding, and the premise LM): ~59 MB in float32, more
than the whole extension should ship. Stored as int8 they take a quarter of that.

How, without changing what runs:
  1. quantize_(model) rounds every weight matrix IN the PyTorch model to q * scale (symmetric, per
     output row, q in [-127, 127]), so the parity fixture and the exported graphs are computed
     with exactly the weights that ship;
  2. after torch.onnx.export, store_int8(path, records) replaces each float32 initializer that
     equals one of those matrices (or its transpose: the exporter stores some Linear weights
     transposed for MatMul; or an LSTM's or GRU's, gates reordered) by an int8 initializer and
     Cast -> Mul by its scales. onnxruntime folds Cast and Mul over initializers when the session is
     created (graph optimisation level 'basic' and up), so inference runs the same float32 graph as
     before: no int8 kernels, no DequantizeLinear (which onnxruntime deliberately does not fold),
     the same speed.
The cost is the rounding in step 1, measured by the exporter (log-probabilities and perplexity of
the rounded model against the float32 one).
"""
import hashlib
import os

import numpy as np
import onnx
import torch
from onnx import TensorProto, helper, numpy_helper

MIN_ELEMENTS = 4096  # biases, layer norms and small projections stay float32 (a few kB)


def _fake_quant(w):
    """w [rows, ...] -> (q int8 [rows, ...], scale float32 [rows], q * scale in float32)."""
    flat = w.reshape(w.shape[0], -1).float()
    scale = (flat.abs().amax(1) / 127).clamp_min(1e-12)
    q = torch.round(flat / scale[:, None]).clamp_(-127, 127)
    # + 0.0: a weight rounded to -0.0 becomes 0.0, as int8 (which has no -0) gives it back.
    return q.to(torch.int8).reshape(w.shape), scale, (q * scale[:, None] + 0.0).reshape(w.shape)


def quantize_(model, min_elements=MIN_ELEMENTS):
    """Rounds every weight matrix of `model` in place; returns {name: (q, scale)} for store_int8.
    A parameter shared by several modules (a tied embedding) is one entry."""
    records = {}
    with torch.no_grad():
        for name, p in model.named_parameters():
            if p.dim() < 2 or p.numel() < min_elements:
                continue
            q, scale, deq = _fake_quant(p.data)
            p.data.copy_(deq)
            records[name] = (q.numpy(), scale.numpy())
    return records


def _key(a):
    """The exact float32 values (with -0.0 as 0.0) and the shape."""
    a = np.ascontiguousarray(a, dtype=np.float32) + np.float32(0)
    return hashlib.sha1(a.tobytes()).hexdigest() + str(a.shape)


def store_int8(path, records):
    """Rewrites the ONNX file at `path`: every float32 initializer equal to a rounded matrix (or its
    transpose) becomes int8 + Cast + Mul. Returns (initializers replaced, bytes before, bytes after)."""
    lookup = {}
    for q, scale in records.values():
        shape = (-1,) + (1,) * (q.ndim - 1)
        deq = q.astype(np.float32) * scale.reshape(shape)
        lookup[_key(deq)] = (q, scale.reshape(shape))
        if q.ndim == 2:  # transposed: the scales run along the last axis
            lookup[_key(deq.T)] = (np.ascontiguousarray(q.T), scale.reshape(1, -1))
        # An LSTM's or GRU's weight_ih/weight_hh: the exporter stores it as [1, gates*H, in] with the
        # gates reordered, from PyTorch's (i, f, g, o) to ONNX's (i, o, f, c) for an LSTM, from (r, z, n)
        # to (z, r, h) for a GRU. Rows move whole, so the per-row int8 values and scales move with them.
        for gates, moved in ((4, (0, 3, 1, 2)), (3, (1, 0, 2))):
            if q.ndim != 2 or q.shape[0] % gates:
                continue
            n = q.shape[0] // gates
            order = np.concatenate([np.arange(g * n, (g + 1) * n) for g in moved])
            lookup[_key(deq[order][None])] = (np.ascontiguousarray(q[order][None]), scale[order].reshape(1, -1, 1))
    # A bidirectional LSTM's or GRU's: both directions' weights, each gate-reordered, stacked as [2, gates*H, in].
    for name, (q, scale) in records.items():
        back = records.get(name + "_reverse")
        if back is None or q.ndim != 2:
            continue
        for gates, moved in ((4, (0, 3, 1, 2)), (3, (1, 0, 2))):
            if q.shape[0] % gates:
                continue
            n = q.shape[0] // gates
            order = np.concatenate([np.arange(g * n, (g + 1) * n) for g in moved])
            qq = np.stack([q[order], back[0][order]])
            ss = np.stack([scale[order], back[1][order]]).reshape(2, -1, 1)
            lookup[_key(qq.astype(np.float32) * ss)] = (qq, ss)
    model = onnx.load(path)
    graph = model.graph
    before = sum(len(i.raw_data) or numpy_helper.to_array(i).nbytes for i in graph.initializer)
    kept, nodes, replaced = [], [], 0
    for init in graph.initializer:
        hit = None
        if init.data_type == TensorProto.FLOAT and np.prod(init.dims) >= MIN_ELEMENTS:
            hit = lookup.get(_key(numpy_helper.to_array(init)))
        if hit is None:
            kept.append(init)
            continue
        q, scale = hit
        name = init.name
        kept += [
            numpy_helper.from_array(q, name + "_int8"),
            numpy_helper.from_array(scale.astype(np.float32), name + "_scale"),
        ]
        nodes += [
            helper.make_node("Cast", [name + "_int8"], [name + "_float"], to=TensorProto.FLOAT, name=name + "_cast"),
            helper.make_node("Mul", [name + "_float", name + "_scale"], [name], name=name + "_dequantize"),
        ]
        replaced += 1
    del graph.initializer[:]
    graph.initializer.extend(kept)
    # The new nodes read initializers only: first in the graph keeps it topologically sorted.
    old = list(graph.node)
    del graph.node[:]
    graph.node.extend(nodes + old)
    onnx.checker.check_model(model)
    onnx.save(model, path)
    after = sum(len(i.raw_data) or numpy_helper.to_array(i).nbytes for i in graph.initializer)
    return replaced, before, after


def store_int8_files(out_dir, names, records):
    """store_int8 on each exported graph of a folder (nothing without records: a float32 export)."""
    for name in names if records else []:
        n, a, b = store_int8(os.path.join(out_dir, name), records)
        print(f"{name}: {n} weight matrices as int8, initializers {a / 1e6:.1f} -> {b / 1e6:.1f} MB")


def fold_int8(model):
    """The inverse of store_int8, in memory: each int8 initializer + Cast + Mul by its scales becomes
    the float32 initializer it stands for (what onnxruntime computes at load). For tools that rewrite
    the float graph (quantize.py). Returns how many were folded."""
    graph = model.graph
    inits = {i.name: i for i in graph.initializer}
    folded = {}
    for n in graph.node:
        if n.op_type == "Mul" and n.name.endswith("_dequantize"):
            base = n.output[0]
            q, scale = inits.get(base + "_int8"), inits.get(base + "_scale")
            if q is not None and scale is not None:
                folded[base] = numpy_helper.to_array(q).astype(np.float32) * numpy_helper.to_array(scale)
    if not folded:
        return 0
    drop = {b + s for b in folded for s in ("_int8", "_scale")}
    kept = [i for i in graph.initializer if i.name not in drop]
    del graph.initializer[:]
    graph.initializer.extend(kept + [numpy_helper.from_array(v.astype(np.float32), k) for k, v in folded.items()])
    nodes = [n for n in graph.node if n.name not in {b + "_cast" for b in folded} | {b + "_dequantize" for b in folded}]
    del graph.node[:]
    graph.node.extend(nodes)
    return len(folded)
