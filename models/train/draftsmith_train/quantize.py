"""Dynamic int8 quantization of an exported model folder, as onnxruntime's quantize_dynamic does it
(Python onnxruntime is not a Debian package, so the rewrite is written with the onnx package alone).

Every MatMul (and Gemm) whose right-hand side is a constant weight matrix of at least MIN_ELEMENTS
becomes
    A_q, a_scale, a_zero = DynamicQuantizeLinear(A)          # uint8, per tensor, at run time
    Y = Cast(MatMulInteger(A_q, W_q, a_zero)) * (a_scale * w_scale)
with W quantized once, symmetric int8, one scale per output column. onnxruntime fuses the pattern
into its DynamicQuantizeMatMul kernel (VNNI where the CPU has it). Embedding lookups (Gather) keep
their float tables; the tied output embedding's Gemm gets an int8 copy of its own.

  python3 -m draftsmith_train.quantize ../summarize ../../.work/variants/summarize-int8
"""
import json
import os
import shutil
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from .export_common import sha256
from .weight_storage import fold_int8

MIN_ELEMENTS = 4096  # smaller matrices (e.g. the pointer's gate, 576 x 1) stay float


def _attr(node, name, default):
    a = next((a for a in node.attribute if a.name == name), None)
    return default if a is None else helper.get_attribute_value(a)


def quantize_model(model):
    g = model.graph
    inits = {t.name: t for t in g.initializer}
    nodes, count = [], 0
    for n in g.node:
        w, bias = None, None
        if n.op_type == "MatMul" and n.input[1] in inits and len(inits[n.input[1]].dims) == 2:
            w = numpy_helper.to_array(inits[n.input[1]])
        elif (
            n.op_type == "Gemm"
            and n.input[1] in inits
            and _attr(n, "transA", 0) == 0
            and _attr(n, "alpha", 1.0) == 1.0
            and _attr(n, "beta", 1.0) == 1.0
        ):
            w = numpy_helper.to_array(inits[n.input[1]])
            if _attr(n, "transB", 0):
                w = w.T
            bias = n.input[2] if len(n.input) > 2 and n.input[2] else None
        if w is None or w.dtype != np.float32 or w.size < MIN_ELEMENTS:
            nodes.append(n)
            continue
        p = f"{n.output[0]}/int8/"
        scale = np.abs(w).max(axis=0) / 127.0  # one scale per output column
        scale[scale == 0] = 1.0
        w_q = np.clip(np.round(w / scale), -127, 127).astype(np.int8)
        g.initializer.extend(
            [numpy_helper.from_array(w_q, p + "W_q"), numpy_helper.from_array(scale.astype(np.float32), p + "W_scale")]
        )
        y = n.output[0] if bias is None else p + "Y"
        nodes += [
            helper.make_node(
                "DynamicQuantizeLinear", [n.input[0]], [p + "A_q", p + "A_scale", p + "A_zero"], name=p + "quantize"
            ),
            helper.make_node(
                "MatMulInteger", [p + "A_q", p + "W_q", p + "A_zero"], [p + "Y_int"], name=p + "MatMulInteger"
            ),
            helper.make_node("Cast", [p + "Y_int"], [p + "Y_f"], to=TensorProto.FLOAT, name=p + "Cast"),
            helper.make_node("Mul", [p + "A_scale", p + "W_scale"], [p + "scale"], name=p + "scale"),
            helper.make_node("Mul", [p + "Y_f", p + "scale"], [y], name=p + "rescale"),
        ]
        if bias is not None:
            nodes.append(helper.make_node("Add", [y, bias], [n.output[0]], name=p + "bias"))
        count += 1
    del g.node[:]
    g.node.extend(nodes)
    # Drop the float weights nothing reads any more.
    used = {i for node in g.node for i in node.input}
    kept = [t for t in g.initializer if t.name in used]
    del g.initializer[:]
    g.initializer.extend(kept)
    onnx.checker.check_model(model)
    return count


def quantize_folder(src, dst):
    os.makedirs(dst, exist_ok=True)
    manifest = json.load(open(os.path.join(src, "model.json")))
    for name in os.listdir(src):
        path = os.path.join(src, name)
        if name.endswith(".onnx"):
            model = onnx.load(path)
            fold_int8(model)  # a folder stored as int8 + scales (weight_storage.py): back to its float graph first
            count = quantize_model(model)
            onnx.save(model, os.path.join(dst, name))
            print(
                f"{name}: {count} matrices to int8, {os.path.getsize(path) / 1e6:.1f} ->"
                f" {os.path.getsize(os.path.join(dst, name)) / 1e6:.1f} MB"
            )
        elif os.path.isfile(path) and name != "model.json":
            shutil.copy(path, os.path.join(dst, name))
    manifest["name"] += "-int8"
    manifest[
        "description"
    ] += " (int8 weights, dynamically quantized activations: models/train/draftsmith_train/quantize.py)"
    manifest["sha256"] = {f: sha256(os.path.join(dst, f)) for f in manifest["sha256"]}
    json.dump(manifest, open(os.path.join(dst, "model.json"), "w"), indent=2)


if __name__ == "__main__":
    quantize_folder(sys.argv[1], sys.argv[2])
