"""Rewrites of exported ONNX graphs that onnxruntime runs faster, with the same numbers.

tied_logits_as_gemm: the tied output embedding is traced as Einsum("btd,vd->btv", x, E) (a MatMul
with E.t() would make the exporter fold the transpose into a second copy of E). onnxruntime's CPU
Einsum transposes E at every call: 6 of the 7 ms of a decoder step at batch 1 (as profiled).
Gemm(transB=1) on x reshaped to [b*t, d] reads E as stored, once. E may be computed from
initializers only (weight_storage's int8 + scale): onnxruntime folds that at load, then prepacks it.

batched_einsums_as_matmul: the attention einsums of a step (Suggest Replies' GRU decoder) as the
MatMul they are (Einsum runs each through a generic, slower path).

top_candidates: beside a step's log_probs [batch, vocab], each row's best TOP_CANDIDATES tokens
(TopK, sorted, the lower id first among equals) as top_log_probs and top_ids (int32): beam search
reads those instead of scanning the vocabulary for every beam in JavaScript (decode/beam.ts).

step_convs_as_gemm: in a one-token step graph a causal convolution sees exactly its kernel's window
(the k-1 cached inputs and the new one), so Conv(x [b,c,k], W [o,c,k]) is Gemm(x flattened to
[b,c*k], W reshaped to [o,c*k], transB) [b,o], unsqueezed to [b,o,1]: onnxruntime's Conv spends
most of its time on im2col for a window this small (Continue Story's decoder, 8 per step). A
window of another length makes the Gemm fail, never compute something else.
"""
import re

import numpy as np
import onnx
from onnx import helper, numpy_helper


def _constant_names(graph):
    """Names known before any input arrives: initializers, Constant outputs, and what nodes compute
    from those alone (the graph is in topological order)."""
    known = {t.name for t in graph.initializer}
    for n in graph.node:
        if n.op_type == "Constant" or (len(n.input) > 0 and all(i in known for i in n.input if i)):
            known.update(n.output)
    return known


def _rewrite(model, match, prefix):
    """Replaces each node for which match(node, constants, add_init) returns a list of nodes."""
    g = model.graph
    constants = _constant_names(g)
    out_nodes, changed = [], 0

    def add_init(name, array):
        g.initializer.append(numpy_helper.from_array(array, name))
        return name

    for n in g.node:
        replacement = match(n, constants, add_init, f"{prefix}_{changed}/")
        if replacement is None:
            out_nodes.append(n)
        else:
            out_nodes += replacement
            changed += 1
    del g.node[:]
    g.node.extend(out_nodes)
    return changed


def _equation(n):
    return next((a.s for a in n.attribute if a.name == "equation"), b"").decode().replace(" ", "")


def tied_logits_as_gemm(model):
    def match(n, constants, add_init, p):
        m = re.fullmatch(r"(\w)(\w)(\w),(\w)\3->\1\2\4", _equation(n)) if n.op_type == "Einsum" else None
        if m is None or n.input[1] not in constants:
            return None
        x, w, y = n.input[0], n.input[1], n.output[0]
        zero, two, minus_one = (
            add_init(p + k, np.array([v], np.int64)) for k, v in (("zero", 0), ("two", 2), ("minus_one", -1))
        )
        return [
            helper.make_node("Shape", [x], [p + "shape"], name=p + "Shape"),
            helper.make_node("Slice", [p + "shape", zero, two], [p + "bt"], name=p + "Slice"),
            helper.make_node("Concat", [p + "bt", minus_one], [p + "out_shape"], axis=0, name=p + "Concat"),
            helper.make_node("Flatten", [x], [p + "x2"], axis=2, name=p + "Flatten"),
            helper.make_node("Gemm", [p + "x2", w], [p + "y2"], transB=1, name=p + "Gemm"),
            helper.make_node("Reshape", [p + "y2", p + "out_shape"], [y], name=p + "Reshape_out"),
        ]

    return _rewrite(model, match, "tied_logits")


def batched_einsums_as_matmul(model):
    """ayz,awz->ayw = A @ B^T; ayz,az->ay = (A @ B[..., None])[..., 0]; ayz,azw->ayw = A @ B."""

    def match(n, constants, add_init, p):
        if n.op_type != "Einsum":
            return None
        m = re.fullmatch(r"(\w+),(\w+)->(\w+)", _equation(n))
        if m is None:
            return None
        a, b, out = m.groups()
        x, w, y = n.input[0], n.input[1], n.output[0]
        if len(a) != 3 or len(set(a)) != 3 or b[:1] != a[0]:
            return None
        batch, rows, inner = a
        if len(b) == 3 and b[0] == batch and b[2] == inner and b[1] not in a and out == batch + rows + b[1]:
            return [
                helper.make_node("Transpose", [w], [p + "wt"], perm=[0, 2, 1], name=p + "Transpose"),
                helper.make_node("MatMul", [x, p + "wt"], [y], name=p + "MatMul"),
            ]
        if b == batch + inner and out == batch + rows:
            axis = add_init(p + "axis", np.array([2], np.int64))
            return [
                helper.make_node("Unsqueeze", [w, axis], [p + "w3"], name=p + "Unsqueeze"),
                helper.make_node("MatMul", [x, p + "w3"], [p + "y3"], name=p + "MatMul"),
                helper.make_node("Squeeze", [p + "y3", axis], [y], name=p + "Squeeze"),
            ]
        if len(b) == 3 and b[:2] == batch + inner and b[2] not in a and out == batch + rows + b[2]:
            return [helper.make_node("MatMul", [x, w], [y], name=p + "MatMul")]
        return None

    opset = next(o.version for o in model.opset_import if o.domain in ("", "ai.onnx"))
    if opset < 13:
        raise ValueError(f"batched_einsums_as_matmul needs opset 13 or later (Squeeze's axes input), not {opset}")
    return _rewrite(model, match, "einsum")


def step_convs_as_gemm(model):
    def match(n, constants, add_init, p):
        if n.op_type != "Conv" or n.input[1] not in constants:
            return None
        attrs = {a.name: helper.get_attribute_value(a) for a in n.attribute}
        k = attrs.get("kernel_shape")
        plain = (
            attrs.get("group", 1) == 1
            and all(v == 1 for v in attrs.get("strides", [1]) + attrs.get("dilations", [1]))
            and not any(attrs.get("pads", [0, 0]))
            and attrs.get("auto_pad", b"NOTSET") in (b"NOTSET", "NOTSET")
        )
        if k is None or len(k) != 1 or not plain:
            return None
        x, w, y = n.input[0], n.input[1], n.output[0]
        rows = add_init(p + "rows", np.array([0, -1], np.int64))  # [o, c*k], the order Flatten gives x
        axis = add_init(p + "axis", np.array([2], np.int64))
        bias = [n.input[2]] if len(n.input) > 2 and n.input[2] else []
        return [
            helper.make_node("Flatten", [x], [p + "x2"], axis=1, name=p + "Flatten"),
            helper.make_node("Reshape", [w, rows], [p + "w2"], name=p + "Reshape_w"),
            helper.make_node("Gemm", [p + "x2", p + "w2"] + bias, [p + "y2"], transB=1, name=p + "Gemm"),
            helper.make_node("Unsqueeze", [p + "y2", axis], [y], name=p + "Unsqueeze"),
        ]

    return _rewrite(model, match, "step_conv")


TOP_CANDIDATES = 32


def top_candidates(model, k=TOP_CANDIDATES, output="log_probs"):
    g = model.graph
    if any(o.name == "top_ids" for o in g.output):
        return 0
    source = next(o for o in g.output if o.name == output)
    batch = source.type.tensor_type.shape.dim[0]
    batch = batch.dim_param or batch.dim_value
    g.initializer.append(numpy_helper.from_array(np.array([k], np.int64), "top_candidates/k"))
    g.node.extend(
        [
            helper.make_node(
                "TopK",
                [output, "top_candidates/k"],
                ["top_log_probs", "top_candidates/ids64"],
                axis=-1,
                largest=1,
                sorted=1,
                name="top_candidates/TopK",
            ),
            helper.make_node(
                "Cast", ["top_candidates/ids64"], ["top_ids"], to=onnx.TensorProto.INT32, name="top_candidates/Cast"
            ),
        ]
    )
    g.output.extend(
        [
            helper.make_tensor_value_info("top_log_probs", onnx.TensorProto.FLOAT, [batch, k]),
            helper.make_tensor_value_info("top_ids", onnx.TensorProto.INT32, [batch, k]),
        ]
    )
    return 1


def pin_output_dims(model, output_dims):
    """Writes fixed sizes into graph outputs whose size the tracer left symbolic (e.g. the vocabulary
    after logp[:, -1]): the engine checks them against model.json at load (runtime/onnx.ts checkIO)."""
    for o in model.graph.output:
        for axis, size in (output_dims or {}).get(o.name, {}).items():
            dim = o.type.tensor_type.shape.dim[axis]
            dim.ClearField("dim_param")
            dim.dim_value = size


def rewrite_file(path, output_dims=None, step_convs=False, top=False):
    """Applies the rewrites to an exported .onnx in place; output_dims: {output: {axis: size}} to pin;
    step_convs: the graph is a one-token step whose convolutions see exactly their kernel's window;
    top: add top_candidates (a beam search's step). Returns what changed, by rewrite."""
    model = onnx.load(path)
    changed = {
        "tied logits": tied_logits_as_gemm(model),
        "einsums": batched_einsums_as_matmul(model),
        "step convolutions": step_convs_as_gemm(model) if step_convs else 0,
        "top candidates": top_candidates(model) if top else 0,
    }
    pin_output_dims(model, output_dims)
    onnx.checker.check_model(model)
    onnx.save(model, path)
    return changed


if __name__ == "__main__":
    # Rewrites shipped graphs in place (their exports do it themselves): onnx_graph FILE... [--step-convs] [--top]
    import sys

    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    for f in args:
        print(f, rewrite_file(f, step_convs="--step-convs" in sys.argv, top="--top" in sys.argv))
