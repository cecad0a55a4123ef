"""Rebuild a shipped model's PyTorch weights from its folder (encoder.onnx + decoder.onnx + model.json),
for tools that need the PyTorch model but not the training checkpoint (export_peer.py).

How each parameter is found in a graph traced by torch.onnx from the wrapper modules of
export_summarize.py / export_essay.py (whose model attribute is `m`):
  named       initializers the exporter kept under the parameter's name, "m.<param>": embeddings,
              positional tables, LayerNorms, biases, TAAS's ntm.beta and topic-attention FFN (Gemm,
              stored as is), PC-SAN's layer_mix.w / gamma and word vectors.
  int8        weight_storage.store_int8 turned big ones into "<name>_int8" (int8) and "<name>_scale"
              (float32) feeding Cast -> Mul; value = int8 * scale, which is bit for bit the rounded
              float32 weight the graph was traced with (both round one float32 product).
  MatMul      Linear weights on 3-D inputs were stored transposed, [in, out], as "onnx::MatMul_N".
              The MatMul that reads one is followed by an Add with the named "<module>.bias":
              <module>.weight = W.T. Bias-less Linears (PC-SAN's ContextualSelfAttention wc and vq)
              are placed by their neighbours (see _biasless).
  LSTM        an nn.LSTM of L layers is L ONNX LSTM nodes, W [1, 4H, in], R [1, 4H, H], B [1, 8H], the
              gates in ONNX's order (i, o, f, c) where PyTorch has (i, f, g, o), B = [b_ih; b_hh]; nodes
              carry no module name, so the caller lists the graph's nn.LSTM modules in the order they run
              (Round-Trip's: the word encoder's, then the sentence encoder's).
  constant    a parameter returned through arithmetic the exporter folded ("start + 0 * h", Round-Trip's
              first sentence-step input): the caller names it by the tensor's only consumer.
The tied output embedding is the same "m.embed.weight" in both graphs; a parameter found in both
graphs must be equal there. Every parameter must be found exactly once per graph it appears in.
"""
import json
import os

import numpy as np
import onnx
import torch
from onnx import numpy_helper


def _torch_gates(w):
    """ONNX's LSTM gate blocks (i, o, f, c) along the first axis -> PyTorch's (i, f, g, o)."""
    i, o, f, c = np.split(w, 4, axis=0)
    return np.concatenate([i, f, c, o], axis=0)


def graph_weights(path, lstms=(), folded=None):
    """{parameter name: float32 array} read from one exported graph. lstms: the graph's nn.LSTM modules
    in the order they run; folded: {op type of its only consumer: parameter} for a folded constant."""
    g = onnx.load(path).graph
    raw = {t.name: numpy_helper.to_array(t) for t in g.initializer}
    producer = {o: n for n in g.node for o in n.output}
    consumers = {}
    for n in g.node:
        for i in n.input:
            consumers.setdefault(i, []).append(n)

    values = {}  # tensor name as the graph's nodes read it -> float32 value
    for name, a in raw.items():
        if name.endswith("_int8"):
            base = name[:-5]
            mul = producer.get(base)
            assert (
                mul is not None and mul.op_type == "Mul" and base + "_scale" in mul.input
            ), f"{path}: {name} feeds no Cast -> Mul"
            values[base] = a.astype(np.float32) * raw[base + "_scale"]
        elif name.endswith("_scale") and name[:-6] + "_int8" in raw:
            continue
        elif a.dtype == np.float32:
            values[name] = a
        # int64 constants (onnx_graph's reshapes) are no weights

    out, source = {}, {}

    def put(param, a, tensor):
        assert param not in out, f"{path}: {param} found twice ({source[param]}, {tensor})"
        out[param], source[param] = a, tensor

    nodes = [n for n in g.node if n.op_type == "LSTM"]
    assert len(nodes) % max(1, len(lstms)) == 0 and bool(nodes) == bool(
        lstms
    ), f"{path}: {len(nodes)} LSTM nodes for the modules {list(lstms)}"
    taken = set()
    for k, n in enumerate(nodes):
        module, layer = lstms[k * len(lstms) // len(nodes)], k % (len(nodes) // len(lstms))
        w, r, b = (values[x] for x in n.input[1:4])
        put(f"{module}.weight_ih_l{layer}", _torch_gates(w[0]), n.input[1])
        put(f"{module}.weight_hh_l{layer}", _torch_gates(r[0]), n.input[2])
        b_ih, b_hh = np.split(b[0], 2)
        put(f"{module}.bias_ih_l{layer}", _torch_gates(b_ih), n.input[3])
        put(f"{module}.bias_hh_l{layer}", _torch_gates(b_hh), n.input[3])
        taken.update(n.input[1:4])

    # Linear weights behind MatMul: the module is named by the bias its Add reads.
    module_of = {}  # a Linear's output tensor (MatMul's, and its Add's) -> module path
    biasless = []
    for name, a in values.items():
        if name in taken:
            continue
        users = consumers.get(name, [])
        if folded and len(users) == 1 and users[0].op_type in folded:
            put(folded[users[0].op_type], a.reshape(-1), name)
            continue
        if name.startswith("m."):
            put(name[2:], a, name)
            continue
        assert users and all(
            n.op_type == "MatMul" and n.input[1] == name for n in users
        ), f"{path}: {name} is not a parameter name nor a Linear weight read by MatMul: a constant folded in, handle it"
        for mm in users:
            adds = [n for n in consumers.get(mm.output[0], []) if n.op_type == "Add"]
            biases = [i for n in adds for i in n.input if i.startswith("m.") and i.endswith(".bias")]
            if len(biases) == 1:
                module = biases[0][2 : -len(".bias")]
                module_of[mm.output[0]] = module
                module_of[[n for n in adds if biases[0] in n.input][0].output[0]] = module
            else:
                biasless.append((name, mm))
    for name, mm in biasless:
        _biasless(path, name, mm, module_of, consumers, producer)
    # one entry per initializer, even where several MatMuls read it
    seen = {}
    for mm_out, module in module_of.items():
        node = producer[mm_out]
        if node.op_type != "MatMul":
            continue
        w = node.input[1]
        if seen.get(w, module) != module:
            raise SystemExit(f"{path}: {w} is read as {seen[w]} and as {module}")
        if w not in seen:
            seen[w] = module
            put(module + ".weight", np.ascontiguousarray(values[w].T), w)
    return out


def _biasless(path, name, mm, module_of, consumers, producer):
    """A Linear without bias, placed by the graph around it. pcsan.ContextualSelfAttention: vq reads the
    attention's query projection (<layer>.self_attn.attn.q) and wc's output C feeds vc.
    roundtrip.SentenceAttention, v = u(tanh(w1(h) + w2(memory))): u reads the tanh; w1's output
    (unsqueezed) is added to w2's."""
    src = module_of.get(mm.input[0], "")
    if src.endswith(".attn.q"):
        module_of[mm.output[0]] = src[: -len("attn.q")] + "vq"
        return
    for n in consumers.get(mm.output[0], []):
        dst = module_of.get(n.output[0], "") if n.op_type == "MatMul" else ""
        if dst.endswith(".vc"):
            module_of[mm.output[0]] = dst[: -len("vc")] + "wc"
            return
    tanh = producer.get(mm.input[0])
    if tanh is not None and tanh.op_type == "Tanh":
        w2 = [module_of.get(i, "") for i in producer[tanh.input[0]].input] if tanh.input[0] in producer else []
        for m in w2:
            if m.endswith(".w2"):
                module_of[mm.output[0]] = m[: -len("w2")] + "u"
                return
    outs = [mm.output[0]] + [n.output[0] for n in consumers.get(mm.output[0], []) if n.op_type == "Unsqueeze"]
    for n in (n for o in outs for n in consumers.get(o, []) if n.op_type == "Add"):
        for m in (module_of.get(i, "") for i in n.input):
            if m.endswith(".w2"):
                module_of[mm.output[0]] = m[: -len("w2")] + "w1"
                return
    raise SystemExit(f"{path}: {name} is a bias-less Linear weight read by {mm.name}; no rule places it")


def fill_from_onnx(model, paths, skip=(), layouts=None):
    """Copies every parameter of `model` from the graphs at `paths`. skip: name prefixes of
    parameters the graphs do not hold and the caller never uses (they keep their initial values);
    layouts: {path: graph_weights' keyword arguments} for graphs with LSTMs or folded constants."""
    params = dict(model.named_parameters())
    found = {}
    for path in paths:
        for name, a in graph_weights(path, **(layouts or {}).get(path, {})).items():
            if name not in params:
                raise SystemExit(f"{path}: {name} is no parameter of {type(model).__name__}")
            if name in found:
                assert np.array_equal(found[name][0], a), f"{name} differs between {found[name][1]} and {path}"
                continue
            # the recipe defaults filled in for what model.json does not say (d_ff, ...) must fit
            assert tuple(params[name].shape) == a.shape, f"{name}: model {tuple(params[name].shape)}, {path} {a.shape}"
            found[name] = (a, path)
    missing = [n for n in params if n not in found and not n.startswith(tuple(skip))]
    if missing:
        raise SystemExit(f"not in {', '.join(paths)}: {', '.join(missing)}")
    with torch.no_grad():
        for name, (a, _) in found.items():
            params[name].copy_(torch.from_numpy(np.array(a)))  # a copy: to_array may be read-only
    return sorted(found)


def load_shipped(shipped_dir):
    """The PyTorch model of a shipped summarize, essay or Round-Trip folder, its weights from the ONNX files.

    The config comes from model.json's architecture block; what it does not record takes the
    recipe's default: d_ff, dropout (off in eval), TAAS's bow_vocab_size (the shape checks in
    fill_from_onnx catch a model trained otherwise) and ntm_batchnorm (BatchNorm1d without affine
    parameters: only training buffers); PC-SAN's word vocabulary size is words.json's + 1 (row 0)."""
    man = json.load(open(os.path.join(shipped_dir, "model.json")))
    a = man["architecture"]
    if a["type"].startswith("roundtrip-"):
        return _roundtrip(shipped_dir, man)
    common = dict(
        vocab_size=a["vocabSize"],
        d_model=a["dModel"],
        n_heads=a["heads"],
        encoder_layers=a["encoderLayers"],
        decoder_layers=a["decoderLayers"],
        max_source_positions=a["maxSourcePositions"],
        max_target_positions=a["maxTargetPositions"],
        pad_id=man["specialTokens"]["pad"],
    )
    if a["type"] == "taas-encoder-decoder":
        from .modules import ModelConfig, TopicAwareSummarizer

        model = TopicAwareSummarizer(
            ModelConfig(**common, num_topics=a["numTopics"], topic_attention=a["topicAttention"], copy=a["copy"])
        )
        # The topic model's inference network (bag of words -> theta) only trains beta; topic_word()
        # reads beta alone, so no exported graph (and no peer) uses it.
        skip = ("ntm.enc.", "ntm.mu.", "ntm.logvar.")
    elif a["type"] == "pcsan-encoder-decoder":
        from .pcsan import EssayConfig, EssayGenerator

        words = json.load(open(os.path.join(shipped_dir, man["files"]["words"])))
        # A backbone encoder's GPT-2 shape is the essay's own (pcsan.py); d_ff is 4 x d_model as the recipe's.
        backbone = (
            dict(
                vocab_size=a["vocabSize"],
                n_positions=a["maxSourcePositions"],
                n_embd=a["dModel"],
                n_layer=a["encoderLayers"],
                n_head=a["encoderHeads"],
            )
            if a.get("encoder") == "backbone"
            else None
        )
        model = EssayGenerator(
            EssayConfig(
                **common,
                word_vocab_size=len(words) + 1,
                layer_mix=a["layerMix"],
                context=a["context"],
                copy=a["copy"],
                **({"encoder": "backbone", "backbone": backbone, "d_ff": 4 * a["dModel"]} if backbone else {}),
            )
        )
        skip = ()
    else:
        raise SystemExit(f"{shipped_dir}: no rebuild for architecture {a['type']}")
    fill_from_onnx(model, [os.path.join(shipped_dir, man["files"][k]) for k in ("encoder", "decoder")], skip)
    return model.eval()


def _roundtrip(shipped_dir, man):
    """Round-Trip's LSTMs from encoder.onnx (+ sentence_step.onnx) and word_step.onnx; dropout, which
    model.json does not record and no graph uses, is the recipe's default."""
    from .roundtrip_model import Config, RoundTrip

    a = man["architecture"]
    kind = a["type"][len("roundtrip-") :]
    model = RoundTrip(Config(kind, a["vocabSize"], a["embed"], a["hidden"], a["layers"]))
    path = lambda key: os.path.join(shipped_dir, man["files"][key])  # noqa: E731
    hier = kind != "standard"
    layouts = {
        path("encoder"): dict(
            lstms=["word_encoder.lstm"] + (["sentence_encoder.lstm"] if hier else []),
            folded={"Add": "sentence_decoder.start"} if hier else None,
        ),
        path("wordStep"): dict(lstms=["word_decoder.lstm"]),
    }
    if hier:
        layouts[path("sentenceStep")] = dict(lstms=["sentence_decoder.lstm"])
    fill_from_onnx(model, list(layouts), layouts=layouts)
    return model.eval()


def roundtrip_checkpoint(shipped_dir, out):
    """A Round-Trip training checkpoint from a shipped folder, for `roundtrip train --resume`: the
    weights as they ship (int8-rounded), the step, tokens and seconds model.json records, no optimizer
    state (AdamW starts from zero moments). A checkpoint lives only on the machine that trained it;
    the shipped folder is in the repository."""
    from .training import save_checkpoint

    man = json.load(open(os.path.join(shipped_dir, "model.json")))
    t = man.get("training", {})
    model = load_shipped(shipped_dir)
    state = {k: int(t.get(k, 0)) for k in ("steps", "tokens", "seconds")}
    meta = {"train_state": state, "val": t.get("val"), "best_nll": (t.get("val") or {}).get("nll"), "from": shipped_dir}
    save_checkpoint(out, model, meta)
    return model, meta


if __name__ == "__main__":
    import sys

    if len(sys.argv) != 4 or sys.argv[1] != "roundtrip-checkpoint":
        raise SystemExit("usage: python3 -m draftsmith_train.weights_from_onnx roundtrip-checkpoint MODEL_DIR OUT.pt")
    _, meta = roundtrip_checkpoint(sys.argv[2], sys.argv[3])
    print(f"{sys.argv[3]}: {sys.argv[2]}'s weights, at step {meta['train_state']['steps']}")
