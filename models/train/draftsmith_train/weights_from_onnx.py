"""Rebuild a shipped model's PyTorch weights from its folder (its graphs + model.json), for tools that need
the PyTorch model but not the training checkpoint (export_peer.py), and for training that goes on from what
is committed on a fresh machine (resume_from_shipped.sh; the checkpoints: roundtrip-checkpoint,
story-checkpoints, reply-checkpoints below). Summarize, Essay, Round-Trip, Continue Story (fused + premise)
and Reply rebuild; each one's test compares the rebuilt model with its parity fixture.

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
  GRU         Reply's: ONNX's gates (z, r, h) where PyTorch has (r, z, n), linear_before_reset (_reply).
  tied copy   a GPT-2's `h @ wte.t()` is stored once more, transposed: recognised and skipped (_tied_copy).
  prefix      the export wrapper's attribute: "m." (most), "lm." (story's premise step).
The tied output embedding is the same "m.embed.weight" in both graphs; a parameter found in both
graphs must be equal there. Every parameter must be found exactly once per graph it appears in.
"""
import json
import os
import re

import numpy as np
import onnx
import torch
from onnx import numpy_helper

from .training import save_checkpoint


def _torch_gates(w):
    """ONNX's LSTM gate blocks (i, o, f, c) along the first axis -> PyTorch's (i, f, g, o)."""
    i, o, f, c = np.split(w, 4, axis=0)
    return np.concatenate([i, f, c, o], axis=0)


def graph_values(path):
    """(graph, {tensor name as the graph's nodes read it: float32 value}): int8 rows times their scales."""
    g = onnx.load(path).graph
    raw = {t.name: numpy_helper.to_array(t) for t in g.initializer}
    producer = {o: n for n in g.node for o in n.output}
    values = {}
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
    return g, values


def graph_weights(path, lstms=(), folded=None, prefix="m."):
    """{parameter name: float32 array} read from one exported graph. lstms: the graph's nn.LSTM modules
    in the order they run; folded: {op type of its only consumer: parameter} for a folded constant;
    prefix: the export wrapper's attribute holding the model ("lm." in story's premise step)."""
    g, values = graph_values(path)
    producer = {o: n for n in g.node for o in n.output}
    consumers = {}
    for n in g.node:
        for i in n.input:
            consumers.setdefault(i, []).append(n)

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
        if name.startswith(prefix):
            put(name[len(prefix) :], a, name)
            continue
        assert users and all(
            n.op_type == "MatMul" and n.input[1] == name for n in users
        ), f"{path}: {name} is not a parameter name nor a Linear weight read by MatMul: a constant folded in, handle it"
        if _tied_copy(a, values, prefix):
            continue
        for mm in users:
            adds = [n for n in consumers.get(mm.output[0], []) if n.op_type == "Add"]
            biases = [i for n in adds for i in n.input if i.startswith(prefix) and i.endswith(".bias")]
            if len(biases) == 1:
                module = biases[0][len(prefix) : -len(".bias")]
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


def _tied_copy(a, values, prefix):
    """A tied output layer traced as `h @ wte.t()` (causal_lm's GPT-2) makes the exporter store a transposed
    copy of the embedding: a weight whose transpose is a named embedding (up to the int8 rows' rounding,
    at most half a step of the larger row scale) is that embedding, found under its own name already."""
    for name, v in values.items():
        if name.startswith(prefix) and name.endswith("wte.weight") and v.shape == a.T.shape:
            step = np.abs(v).max(axis=1, keepdims=True) / 127
            if np.all(np.abs(a.T - v) <= step + 1e-7):
                return True
    return False


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
    man = _manifest(shipped_dir)
    a = man["architecture"]
    if a["type"].startswith("roundtrip-"):
        return _roundtrip(shipped_dir, man)
    if a["type"] == "story-conv-seq2seq":
        return story_models(shipped_dir)[0]
    if a["type"].startswith("reply-"):
        return _reply(shipped_dir, man)
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


def _manifest(shipped_dir):
    with open(os.path.join(shipped_dir, "model.json")) as fh:
        return json.load(fh)


def _gru_gates(w):
    """ONNX's GRU gate blocks (z, r, h) along the first axis -> PyTorch's (r, z, n)."""
    z, r, h = np.split(w, 3, axis=0)
    return np.concatenate([r, z, h], axis=0)


def _reply(shipped_dir, man):
    """Reply's GRU seq2seq (reply_model.py) from encoder.onnx and decoder_step.onnx. The GRUs are ONNX GRU
    nodes (linear_before_reset, as PyTorch computes): W [dirs, 3H, in], R [dirs, 3H, H], B [dirs, 6H] = [Wb; Rb],
    the gates (z, r, h) where PyTorch has (r, z, n), the encoder's second direction PyTorch's "_reverse". The
    Linears: bridge (Gemm) and the decoder's attention are named; combine and out are placed by their biases;
    ESED's bias-less query is the encoder's one remaining MatMul (the summary vector into the memory space)."""
    from .reply_model import Config, Seq2Seq

    a = man["architecture"]
    model = Seq2Seq(Config(a["type"][len("reply-") :], a["vocabSize"], a["embed"], a["hidden"]))
    found = {}
    for key, gru in (("encoder", "encoder.gru"), ("decoderStep", "decoder.gru")):
        path = os.path.join(shipped_dir, man["files"][key])
        g, values = graph_values(path)
        named = {k[2:]: v for k, v in values.items() if k.startswith("m.")}
        for n in (n for n in g.node if n.op_type == "GRU"):
            w, r, b = (values[x] for x in n.input[1:4])
            for d in range(w.shape[0]):
                sfx = "_l0" + ("_reverse" if d else "")
                b_ih, b_hh = np.split(b[d], 2)
                for name, v in (("weight_ih", w[d]), ("weight_hh", r[d]), ("bias_ih", b_ih), ("bias_hh", b_hh)):
                    named[f"{gru}.{name}{sfx}"] = _gru_gates(v)
        for n in (n for n in g.node if n.op_type == "MatMul" and n.input[1] in values):
            bias = [
                i
                for c in g.node
                if c.op_type == "Add" and n.output[0] in c.input
                for i in c.input
                if i.endswith(".bias")
            ]
            module = bias[0][2 : -len(".bias")] if bias else "query" if key == "encoder" else None
            assert module, f"{path}: no rule places {n.input[1]}"
            named[module + ".weight"] = np.ascontiguousarray(values[n.input[1]].T)
        for k, v in named.items():
            assert k not in found or np.array_equal(found[k], v), f"{k} differs between the graphs"
            found[k] = v
    params = dict(model.named_parameters())
    missing = sorted(set(params) - set(found))
    if missing or set(found) - set(params):
        raise SystemExit(f"{shipped_dir}: missing {missing}, unknown {sorted(set(found) - set(params))}")
    with torch.no_grad():
        for k, v in found.items():
            assert tuple(params[k].shape) == v.shape, f"{k}: model {tuple(params[k].shape)}, graphs {v.shape}"
            params[k].copy_(torch.from_numpy(np.array(v)))
    return model.eval()


def reply_memory(shipped_dir):
    """The memory the engine reads (memory.bin, float16 [K, L, D]) and its keys, as float32 blocks."""
    man = _manifest(shipped_dir)
    a = man["architecture"]
    with open(os.path.join(shipped_dir, man["files"]["keys"])) as fh:
        keys = json.load(fh)["keys"]
    blocks = np.fromfile(os.path.join(shipped_dir, man["files"]["memory"]), dtype=np.float16)
    return keys, torch.from_numpy(blocks.reshape(len(keys), a["slots"], a["memoryDim"]).astype(np.float32))


def reply_checkpoints(shipped_dir, out_dir, dropout=0.3):
    """reply-esed.pt (`reply train --model esed --resume`, at the step model.json records; dropout: the card's
    0.3, which model.json does not record) and reply-memory.npz (the memory it reads, as `reply memory` wrote
    it: float16 as shipped, so the read is the engine's) from a shipped Reply folder."""
    from .reply_model import Config

    man = _manifest(shipped_dir)
    model = load_shipped(shipped_dir)
    config = {**Config(**{k: v for k, v in model.c.to_dict().items()}).to_dict(), "dropout": dropout}
    keys, blocks = reply_memory(shipped_dir)
    with open(os.path.join(shipped_dir, man["files"]["keys"])) as fh:
        counts = json.load(fh)["counts"]
    os.makedirs(out_dir, exist_ok=True)
    np.savez(os.path.join(out_dir, "reply-memory.npz"), keys=np.array(keys), blocks=blocks.numpy(), counts=counts)
    t = man.get("training", {})
    val = re.search(r"nll ([0-9.]+)", str(t.get("val", "")))
    meta = {"train_state": _train_state(t), "best_nll": float(val.group(1)) if val else None, "from": shipped_dir}
    save_checkpoint(os.path.join(out_dir, f"reply-{model.c.model}.pt"), model, meta, config)
    return meta


def _rows(path, name):
    """The first dimension of a graph's (possibly int8-stored) initializer."""
    for t in onnx.load(path, load_external_data=False).graph.initializer:
        if t.name in (name, name + "_int8"):
            return int(t.dims[0])
    raise SystemExit(f"{path}: no initializer {name}")


def _gpt2_config(p, vocab_size):
    """causal_lm.GPT2Config's fields from a story model.json's GPT-2 block (dropout: the recipe's default)."""
    return dict(
        vocab_size=vocab_size,
        n_positions=p["maxTargetPositions"],
        n_embd=p["embedDim"],
        n_layer=p["layers"],
        n_head=p["heads"],
    )


def story_models(shipped_dir):
    """(fused story model, premise model) of a shipped Continue Story folder with the backbone as fusion's
    frozen half (export_story.py): encoder.onnx + decoder.onnx hold the fused model (the encoder graph only
    the prompt's part of the backbone), premise.onnx the backbone fine-tuned on premises (wrapper "lm")."""
    from .export_story import PremiseGPT2
    from .gconv import BackboneStoryLM, FusedStoryModel, StoryConfig
    from .causal_lm import make

    man = _manifest(shipped_dir)
    a = man["architecture"]
    if not (a.get("fusion") and a.get("pretrained", {}).get("type") == "gpt2"):
        raise SystemExit(f"{shipped_dir}: only the fusion with the backbone rebuilds from its graphs")
    flags = a["selfAttentionLayers"]
    path = lambda key: os.path.join(shipped_dir, man["files"][key])  # noqa: E731
    c = StoryConfig(
        vocab_size=a["vocabSize"],
        embed_dim=a["embedDim"],
        hidden=a["hidden"],
        encoder_layers=a["encoderLayers"],
        encoder_kernel=a["encoderKernel"],
        decoder_layers=a["decoderLayers"],
        decoder_kernel=a["decoderKernel"],
        self_attention=any(flags),
        self_attention_layers=0 if all(flags) else sum(flags),
        attention_heads=a["attentionHeads"],
        attention_dim=a["attentionDim"],
        gated_attention=a["gatedAttention"],
        multiscale=a["downsampling"] != [1] * len(a["downsampling"]),
        attend_zero=a["attendZero"],
        max_source_positions=a["maxSourcePositions"],
        # model.json's maxTargetPositions is what generation may use; the table is the recipe's, as traced
        max_target_positions=_rows(path("decoder"), "m.trained.decoder.pos.weight"),
        pad_id=man["specialTokens"]["pad"],
    )
    pre = a["pretrained"]
    frozen = BackboneStoryLM(_gpt2_config(pre, a["vocabSize"]), pre.get("readsPrompt", False))
    model = FusedStoryModel(c, frozen)
    # fusion reads the trained decoder's hidden state; its own output layer never runs nor trains
    fill_from_onnx(model, [path("encoder"), path("decoder")], skip=("trained.decoder.out.",))
    premise = PremiseGPT2(make(_gpt2_config(a["premise"], a["premise"]["vocabSize"])))
    fill_from_onnx(premise, [path("premise")], layouts={path("premise"): dict(prefix="lm.")})
    return model.eval(), premise.eval()


def roundtrip_checkpoint(shipped_dir, out):
    """A Round-Trip training checkpoint from a shipped folder, for `roundtrip train --resume`: the
    weights as they ship (int8-rounded), the step, tokens and seconds model.json records, no optimizer
    state (AdamW starts from zero moments). A checkpoint lives only on the machine that trained it;
    the shipped folder is in the repository."""
    man = _manifest(shipped_dir)
    t = man.get("training", {})
    model = load_shipped(shipped_dir)
    state = {k: int(t.get(k, 0)) for k in ("steps", "tokens", "seconds")}
    meta = {"train_state": state, "val": t.get("val"), "best_nll": (t.get("val") or {}).get("nll"), "from": shipped_dir}
    save_checkpoint(out, model, meta)
    return model, meta


def _train_state(t):
    return {k: int(t.get(k, 0)) for k in ("steps", "tokens", "seconds")}


# The backbone's own checkpoint (6.6 CPU hours and 4 GPU minutes; models/train/README.md) was lost with the
# machine that trained it: its closest committed descendant is story's premise model, the backbone
# fine-tuned 73 steps on the story prompts (0.23M tokens at 3e-4). Its run's counters at the GPU chunk's end:
BACKBONE_RUN = {"steps": 5496, "tokens": 319_700_000, "seconds": 24_000}
BACKBONE_DROPOUT = 0.05  # backbone.py's default, which the shipped run trained with


def story_checkpoints(shipped_dir, out_dir):
    """Training checkpoints rebuilt from a shipped Continue Story folder, into out_dir:
      fusion.pt    the fused model (`story fusion --resume --out fusion.pt`), at the step model.json records
      s2s.pt       its frozen half alone, the backbone reading the prompt (`story fusion --pretrained s2s.pt`)
      premise.pt   the premise model (`causal_lm train --resume --out premise.pt`)
      backbone.pt  the shared backbone's stand-in (`backbone train --resume --out backbone.pt`, RUNS of
                   train_backbone.sh): premise.onnx's GPT-2 at the backbone run's step (BACKBONE_RUN)
    No optimizer state: a resumed run restarts AdamW from zero moments with a short warm-up (training.py)."""
    from dataclasses import asdict

    from .backbone import save_atomic
    from .story_model import save as save_story

    man = _manifest(shipped_dir)
    model, premise = story_models(shipped_dir)
    os.makedirs(out_dir, exist_ok=True)
    made = {}
    t = man.get("training", {})
    meta = {
        **_train_state(t),
        "train_state": _train_state(t),
        "val": t.get("val"),
        "best_nll": (t.get("val") or {}).get("nll"),
    }
    made["fusion.pt"] = {**meta, "from": shipped_dir}
    save_story(os.path.join(out_dir, "fusion.pt"), model, made["fusion.pt"])
    made["s2s.pt"] = {"from": shipped_dir}
    save_story(os.path.join(out_dir, "s2s.pt"), model.pretrained, made["s2s.pt"])
    gpt2 = premise.gpt2
    made["premise.pt"] = {"kind": "gpt2", "from": shipped_dir}
    save_checkpoint(os.path.join(out_dir, "premise.pt"), gpt2, made["premise.pt"], asdict(gpt2.config))
    made["backbone.pt"] = {
        "kind": "backbone-gpt2",
        **BACKBONE_RUN,  # the counters at the top too, as train_loop writes them (chunk.py picks by tokens)
        "train_state": dict(BACKBONE_RUN),
        "from": os.path.join(shipped_dir, man["files"]["premise"]),
    }
    save_atomic(
        os.path.join(out_dir, "backbone.pt"),
        gpt2,
        made["backbone.pt"],
        {**asdict(gpt2.config), "dropout": BACKBONE_DROPOUT},
    )
    return made


USAGE = """usage: python3 -m draftsmith_train.weights_from_onnx COMMAND MODEL_DIR OUT
  roundtrip-checkpoint ../roundtrip OUT.pt   Round-Trip's training checkpoint (roundtrip train --resume)
  story-checkpoints ../story OUT_DIR         fusion.pt, s2s.pt, premise.pt and the backbone's backbone.pt
  reply-checkpoints ../reply OUT_DIR         reply-esed.pt and reply-memory.npz"""


if __name__ == "__main__":
    import sys

    if len(sys.argv) != 4 or sys.argv[1] not in ("roundtrip-checkpoint", "story-checkpoints", "reply-checkpoints"):
        raise SystemExit(USAGE)
    if sys.argv[1] == "reply-checkpoints":
        meta = reply_checkpoints(sys.argv[2], sys.argv[3])
        print(f"{sys.argv[3]}: reply-esed.pt at step {meta['train_state']['steps']} and reply-memory.npz")
    elif sys.argv[1] == "story-checkpoints":
        for name, meta in story_checkpoints(sys.argv[2], sys.argv[3]).items():
            steps = (meta.get("train_state") or {}).get("steps")
            print(f"{os.path.join(sys.argv[3], name)}: from {meta['from']}" + (f", at step {steps}" if steps else ""))
    else:
        _, meta = roundtrip_checkpoint(sys.argv[2], sys.argv[3])
        print(f"{sys.argv[3]}: {sys.argv[2]}'s weights, at step {meta['train_state']['steps']}")
