"""A small GPT-2 trained by this project's recipe and exported in the layout transformers.js runs a
causal language model in: the Hub-layout story model that the loopback Hub serves in the
tests, and a plain-LM choice for Continue Story beside the fusion model.

The network is GPT-2's (Radford et al. 2019): pre-LayerNorm transformer blocks, learned positions,
GELU (tanh form), the output projection tied to the token embedding. Its parameters carry GPT-2's
names (transformer.h.{i}.attn.c_attn ...), config.json says model_type "gpt2", and onnx/model.onnx
has the inputs and outputs transformers.js's decoder-only generate() feeds and reads:
  input_ids [B,S], attention_mask [B,P+S], position_ids [B,S], past_key_values.{i}.key/value [B,H,P,dh]
  -> logits [B,S,V], present.{i}.key/value [B,H,P+S,dh]
(the first step feeds P = 0). The tokenizer is the simple corpus's (models/story's tokenizer.json).

  python3 -m draftsmith_train.causal_lm train  --data ../../.data/simple --out runs/story-gpt2.pt --minutes 90
  python3 -m draftsmith_train.causal_lm train  --data ../../.data/everyday --corpus premise --init BACKBONE.pt \
      --out runs/premise-bb.pt                   # the premise model (Fan et al. 3.1) fine-tuned from the backbone
  python3 -m draftsmith_train.causal_lm eval   --data ../../.data/simple --ckpt runs/story-gpt2.pt [--corpus premise]
  python3 -m draftsmith_train.causal_lm export --data ../../.data/simple --ckpt runs/story-gpt2.pt --out DIR [--int8]
"""
import argparse
import json
import math
import os
import random
import shutil
import time
from dataclasses import asdict, dataclass

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from . import tokenizer as T
from .batching import token_batches
from .export_common import OPSET, cache_names, sha256
from .story_data import lm_ids, lm_windows, premise_sequences
from .training import (
    add_resume_arg,
    load_checkpoint,
    resume_checkpoint,
    log,
    nll_and_ppl,
    pad,
    pick_device,
    save_checkpoint,
    train_loop,
)


@dataclass
class GPT2Config:
    vocab_size: int
    n_positions: int = 512
    n_embd: int = 256
    n_layer: int = 4
    n_head: int = 4
    dropout: float = 0.1
    layer_norm_epsilon: float = 1e-5


class Attention(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.h, self.dh = c.n_head, c.n_embd // c.n_head
        self.c_attn = nn.Linear(c.n_embd, 3 * c.n_embd)
        self.c_proj = nn.Linear(c.n_embd, c.n_embd)
        self.drop = nn.Dropout(c.dropout)

    def forward(self, x, bias, past_k=None, past_v=None):
        B, S, D = x.shape
        q, k, v = self.c_attn(x).split(D, dim=2)
        q, k, v = (t.view(B, S, self.h, self.dh).transpose(1, 2) for t in (q, k, v))
        if past_k is not None:
            k, v = torch.cat([past_k, k], 2), torch.cat([past_v, v], 2)
        att = (q @ k.transpose(-1, -2)) / math.sqrt(self.dh) + bias  # scaled dot-product attention
        y = self.drop(att.softmax(-1)) @ v
        return self.c_proj(y.transpose(1, 2).reshape(B, S, D)), k, v


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.ln_1 = nn.LayerNorm(c.n_embd, eps=c.layer_norm_epsilon)
        self.attn = Attention(c)
        self.ln_2 = nn.LayerNorm(c.n_embd, eps=c.layer_norm_epsilon)
        self.mlp = nn.ModuleDict(
            {"c_fc": nn.Linear(c.n_embd, 4 * c.n_embd), "c_proj": nn.Linear(4 * c.n_embd, c.n_embd)}
        )
        self.drop = nn.Dropout(c.dropout)

    def forward(self, x, bias, past_k=None, past_v=None):
        a, k, v = self.attn(self.ln_1(x), bias, past_k, past_v)
        x = x + self.drop(a)
        h = self.mlp["c_proj"](F.gelu(self.mlp["c_fc"](self.ln_2(x)), approximate="tanh"))
        return x + self.drop(h), k, v


class GPT2(nn.Module):
    def __init__(self, c: GPT2Config):
        super().__init__()
        self.config = c
        self.transformer = nn.ModuleDict(
            {
                "wte": nn.Embedding(c.vocab_size, c.n_embd),
                "wpe": nn.Embedding(c.n_positions, c.n_embd),
                "h": nn.ModuleList(Block(c) for _ in range(c.n_layer)),
                "ln_f": nn.LayerNorm(c.n_embd, eps=c.layer_norm_epsilon),
            }
        )
        self.drop = nn.Dropout(c.dropout)
        for n, p in self.named_parameters():  # GPT-2's initialisation: N(0, 0.02), residual projections scaled
            if p.dim() == 2:
                std = 0.02 / math.sqrt(2 * c.n_layer) if n.endswith("c_proj.weight") else 0.02
                nn.init.normal_(p, 0.0, std)
            elif n.endswith("bias"):
                nn.init.zeros_(p)

    def forward(self, input_ids, attention_mask=None, position_ids=None, past=None):
        """Logits [B,S,V] and the new cache [(k, v)] per layer. attention_mask [B,P+S] (1: a real token)
        lets left-padded batches through, as transformers.js batches them."""
        x, cache = self.hidden_states(input_ids, attention_mask, position_ids, past)
        return x @ self.transformer["wte"].weight.t(), cache  # lm_head tied to wte, as GPT-2's

    def hidden_states(self, input_ids, attention_mask=None, position_ids=None, past=None):
        """The final LayerNorm's output [B,S,d] (what the tied lm_head reads) and the new cache."""
        B, S = input_ids.shape
        P = 0 if past is None else past[0][0].shape[2]
        dev = input_ids.device  # every index tensor made here lives with the ids (a CUDA run too)
        if position_ids is None:
            position_ids = torch.arange(P, P + S, device=dev).unsqueeze(0).expand(B, S)
        if attention_mask is None:
            attention_mask = torch.ones(B, P + S, dtype=torch.long, device=dev)
        q_pos = torch.arange(S, device=dev).unsqueeze(1) + P  # each query's place among the P+S keys
        k_pos = torch.arange(P + S, device=dev).unsqueeze(0)
        allowed = (k_pos <= q_pos).unsqueeze(0) & attention_mask.bool().unsqueeze(1)  # causal, and not padding
        x = self.drop(self.transformer["wte"](input_ids) + self.transformer["wpe"](position_ids))
        bias = ((~allowed).to(x.dtype) * -1e9).unsqueeze(1)  # [B,1,S,P+S]
        cache = []
        for i, block in enumerate(self.transformer["h"]):
            pk, pv = (None, None) if past is None else past[i]
            x, k, v = block(x, bias, pk, pv)
            cache.append((k, v))
        return self.transformer["ln_f"](x), cache


def make(config):
    return GPT2(GPT2Config(**config))


# ---------------------------------------------------------------------------------------------
# Training
# ---------------------------------------------------------------------------------------------
def lm_loss(model, batch, device):
    x = pad([b[:-1] for b in batch]).to(device)
    y = pad([b[1:] for b in batch]).to(device)
    mask = (x != T.PAD).long()
    logits, _ = model(x, attention_mask=mask)
    nll = F.cross_entropy(logits.reshape(-1, logits.size(-1)), y.reshape(-1), ignore_index=T.PAD, reduction="sum")
    n = int((y != T.PAD).sum())
    return nll / n, nll.item() / n, n


def windows(sp, data, part, window):
    ids, starts = lm_ids(sp, data, part)  # the story recipe's LM text, its ids cached beside it
    return [w.astype(np.int64).tolist() for w in lm_windows(ids, starts, window)]


def evaluate(model, val, device, batch=16):
    total, n = 0.0, 0
    for i in range(0, len(val), batch):
        chunk = val[i : i + batch]
        loss, _, k = lm_loss(model, chunk, device)
        total += float(loss) * k
        n += k
    return nll_and_ppl(total / n)


def texts(sp, args, part):
    """What the model reads: windows of the story recipe's LM text, or its premises (<s> premise </s>)."""
    if args.corpus == "premise":
        return premise_sequences(sp, args.data, part, args.window)
    return windows(sp, args.data, part, args.window)


def cmd_train(args):
    device = pick_device(args.device)
    sp = T.load(os.path.join(args.data, "spm.model"))
    train, val = texts(sp, args, "train"), texts(sp, args, "val")
    val = val[: args.val_limit] if args.val_limit else val
    log(f"{len(train)} training sequences ({args.corpus}), {sum(map(len, train))} tokens; {len(val)} validation")
    resume = resume_checkpoint(args)
    if resume:  # train_loop loads its weights; the shape is the checkpoint's
        config = torch.load(resume, map_location="cpu")["config"]
    elif args.init:
        # fine-tuning (e.g. the shared backbone on the premises): its config and weights, this run's dropout
        init, _ = load(args.init)
        config = {**asdict(init.config), "dropout": args.dropout}
        if config["vocab_size"] != sp.get_piece_size():
            raise SystemExit(
                f"{args.init} has {config['vocab_size']} pieces, {args.data}/spm.model {sp.get_piece_size()}"
            )
    else:
        config = asdict(
            GPT2Config(
                vocab_size=sp.get_piece_size(),
                n_positions=args.window + 1,
                n_embd=args.n_embd,
                n_layer=args.n_layer,
                n_head=args.n_head,
                dropout=args.dropout,
            )
        )
    model = make(config)
    if args.init and not resume:
        model.load_state_dict(init.state_dict())
        log(f"initialised from {args.init}")
    model = model.to(device)
    log(f"GPT-2 {config}: {sum(p.numel() for p in model.parameters()) / 1e6:.2f}M parameters")
    batches = token_batches(train, len, args.batch_tokens, random.Random(args.seed), jitter=8)
    train_loop(
        model,
        batches,
        args,
        device,
        lambda b: lm_loss(model, b, device),
        lambda: evaluate(model, val, device),
        meta={"kind": "gpt2"},
        save=lambda path, m: save_checkpoint(path, model, m, config),
        keep_best=True,
        find_unused=False,
    )


def load(path):
    model, meta = load_checkpoint(path, make)
    model.eval()
    return model, meta


def sample(model, ids, tokens, k=10, temperature=0.8, seed=0):
    """Top-k sampling with the cache, as the exported graph runs it."""
    gen = torch.Generator().manual_seed(seed)
    x, past, out = torch.tensor([ids]), None, []
    with torch.no_grad():
        for _ in range(tokens):
            logits, past = model(
                x,
                attention_mask=torch.ones(
                    1, (0 if past is None else past[0][0].shape[2]) + x.shape[1], dtype=torch.long
                ),
                past=past,
            )
            logits = logits[0, -1] / temperature
            logits[[T.PAD, T.UNK, T.BOS, T.MASK]] = -1e9
            top = logits.topk(k)
            nid = int(top.indices[torch.multinomial(top.values.softmax(-1), 1, generator=gen)])
            if nid == T.EOS:
                break
            out.append(nid)
            x = torch.tensor([[nid]])
    return out


def premise_eval(model, sp, data, limit=400):
    """Per-word perplexity of the first `limit` validation premises (the end of the premise counts as a
    word, as the story eval counts), in all and by the domain of the story each opens."""
    domain = {}
    for line in open(os.path.join(data, "story.val.jsonl"), encoding="utf-8"):
        r = json.loads(line)
        domain[r["prompt"].strip()] = r["domain"]
    lines = [l.strip() for l in open(os.path.join(data, "story_premise.val.txt"), encoding="utf-8") if l.strip()]
    totals = {}
    with torch.no_grad():
        for line in lines[:limit]:
            _, nll, k = lm_loss(model, [[T.BOS] + sp.encode(line) + [T.EOS]], torch.device("cpu"))
            for d in ("all", domain.get(line, "other")):
                t = totals.setdefault(d, [0.0, 0])
                t[0] += nll * k
                t[1] += len(line.split()) + 1
    return {d: round(math.exp(n / w), 1) for d, (n, w) in totals.items()}


def cmd_eval(args):
    sp = T.load(os.path.join(args.data, "spm.model"))
    model, meta = load(args.ckpt)
    if args.corpus == "premise":
        print(json.dumps({"premise_word_ppl": premise_eval(model, sp, args.data), "steps": meta.get("steps")}))
        return
    val = windows(sp, args.data, "val", model.config.n_positions - 1)
    with torch.no_grad():
        r = evaluate(model, val, torch.device("cpu"))
    words = sum(len(sp.decode(w[1:]).split()) for w in val)
    toks = sum(len(w) - 1 for w in val)
    r["word_ppl"] = math.exp(r["nll"] * toks / words)
    print(json.dumps({"val": r, "steps": meta.get("steps"), "tokens": meta.get("tokens")}))
    for i, prompt in enumerate(["Once upon a time, there was a little girl named Lily.", "Tom had a red ball."]):
        ids = sample(model, [T.BOS] + sp.encode(prompt), 80, seed=i)
        print(prompt, "->", sp.decode(ids))


# ---------------------------------------------------------------------------------------------
# Export in transformers.js's layout
# ---------------------------------------------------------------------------------------------
class Exported(nn.Module):
    """The graph's signature: flat cache tensors in, flat cache tensors out."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids, attention_mask, position_ids, *past_flat):
        past = [(past_flat[2 * i], past_flat[2 * i + 1]) for i in range(len(past_flat) // 2)]
        logits, cache = self.model(input_ids, attention_mask, position_ids, past)
        return (logits, *[t for kv in cache for t in kv])


def hub_config(c: GPT2Config):
    """config.json as transformers.js (and Python transformers) read a GPT-2's."""
    return {
        "architectures": ["GPT2LMHeadModel"],
        "model_type": "gpt2",
        "vocab_size": c.vocab_size,
        "n_positions": c.n_positions,
        "n_ctx": c.n_positions,
        "n_embd": c.n_embd,
        "n_layer": c.n_layer,
        "n_head": c.n_head,
        "activation_function": "gelu_new",
        "layer_norm_epsilon": c.layer_norm_epsilon,
        "tie_word_embeddings": True,
        "bos_token_id": T.BOS,
        "eos_token_id": T.EOS,
        "pad_token_id": T.PAD,
    }


def export(model, tokenizer_dir, out, int8=False, meta=None):
    """int8: the weight matrices stored as int8 with a scale per row (weight_storage.py: the shipped
    models' storage), computed in float32 after onnxruntime folds them at load; a quarter of the size,
    and onnx/model.onnx is what transformers.js loads for dtype "fp32"."""
    c = model.config
    os.makedirs(os.path.join(out, "onnx"), exist_ok=True)
    model.eval()
    L, H, dh = c.n_layer, c.n_head, c.n_embd // c.n_head
    past_in, present = cache_names(L, "past_key_values"), cache_names(L, "present")
    ids = torch.tensor([[T.BOS, 5, 6]])
    past = [torch.randn(1, H, 2, dh) for _ in past_in]
    args = (ids, torch.ones(1, 5, dtype=torch.long), torch.tensor([[2, 3, 4]]), *past)
    dyn = {
        "input_ids": {0: "batch_size", 1: "sequence_length"},
        "attention_mask": {0: "batch_size", 1: "total_sequence_length"},
        "position_ids": {0: "batch_size", 1: "sequence_length"},
        "logits": {0: "batch_size", 1: "sequence_length"},
    }
    dyn.update({n: {0: "batch_size", 2: "past_sequence_length"} for n in past_in})
    dyn.update({n: {0: "batch_size", 2: "total_sequence_length"} for n in present})
    path = os.path.join(out, "onnx", "model.onnx")
    records = None
    if int8:
        from .weight_storage import quantize_

        records = quantize_(model)  # the PyTorch model now computes with the rounded weights, as the file will
    torch.onnx.export(
        Exported(model),
        args,
        path,
        input_names=["input_ids", "attention_mask", "position_ids", *past_in],
        output_names=["logits", *present],
        dynamic_axes=dyn,
        opset_version=OPSET,
    )
    if records:
        from .weight_storage import store_int8_files

        store_int8_files(os.path.join(out, "onnx"), ["model.onnx"], records)
    json.dump(hub_config(c), open(os.path.join(out, "config.json"), "w"), indent=1)
    json.dump(
        {
            "bos_token_id": T.BOS,
            "eos_token_id": T.EOS,
            "pad_token_id": T.PAD,
            "do_sample": True,
            "top_k": 10,
            "temperature": 0.8,
            "max_new_tokens": 200,
        },
        open(os.path.join(out, "generation_config.json"), "w"),
        indent=1,
    )
    for f in ("tokenizer.json", "tokenizer_config.json"):
        shutil.copy(os.path.join(tokenizer_dir, f), os.path.join(out, f))
    files = sorted(
        os.path.relpath(os.path.join(d, f), out) for d, _, fs in os.walk(out) for f in fs if f != "README.md"
    )
    with open(os.path.join(out, "README.md"), "w") as f:
        f.write(
            "# draftsmith/story-gpt2\n\nA small GPT-2 trained by Draftsmith's recipe"
            " (models/train/draftsmith_train/causal_lm.py) on the simple-stories corpus, in the layout transformers.js"
            " runs.\n\n"
            + (
                f"Validation: {json.dumps((meta or {}).get('val'))}, {(meta or {}).get('steps')} steps,"
                f" {(meta or {}).get('tokens')} tokens.\n\n"
                if meta
                else ""
            )
            + "| file | sha256 |\n|---|---|\n"
            + "".join(f"| {p} | {sha256(os.path.join(out, p))} |\n" for p in files)
        )
    log(f"exported {out}: {', '.join(files)}")


def check_export(model, out, int8):
    """onnxruntime (Python, when installed) against PyTorch: the first step's and a cached step's logits."""
    try:
        import onnxruntime as ort
    except ImportError:
        log("python onnxruntime not installed: the export is checked by test/unit (transformers.js) instead")
        return
    sess = ort.InferenceSession(os.path.join(out, "onnx", "model.onnx"))
    c = model.config
    H, dh = c.n_head, c.n_embd // c.n_head
    ids = np.array([[T.BOS, 40, 41, 42]], dtype=np.int64)
    feed = {
        "input_ids": ids,
        "attention_mask": np.ones((1, 4), np.int64),
        "position_ids": np.arange(4)[None],
        **{n: np.zeros((1, H, 0, dh), np.float32) for n in cache_names(c.n_layer, "past_key_values")},
    }
    got = sess.run(["logits"], feed)[0]
    with torch.no_grad():
        want = model(torch.tensor(ids))[0].numpy()
    log(f"onnx vs torch: max |logit diff| {np.abs(got - want).max():.4f}")


def cmd_export(args):
    model, meta = load(args.ckpt)
    export(model, args.tokenizer, args.out, args.int8, meta)
    check_export(model, args.out, args.int8)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("cmd", choices=["train", "eval", "export"])
    p.add_argument("--data", default="../../.data/simple")
    p.add_argument("--device", default="auto")
    p.add_argument("--out", default="runs/story-gpt2.pt")
    p.add_argument("--ckpt", default="runs/story-gpt2.pt")
    p.add_argument("--tokenizer", default="../story", help="export: the folder whose tokenizer.json the model reads")
    p.add_argument(
        "--int8",
        action="store_true",
        help="export: weight matrices stored as int8 (computed in float32), a quarter of the size",
    )
    p.add_argument("--corpus", choices=["lm", "premise"], default="lm", help="train, eval: the LM text or the premises")
    p.add_argument("--init", help="train: start from this GPT-2 checkpoint (e.g. the shared backbone's)")
    p.add_argument("--minutes", type=float, default=60)
    p.add_argument("--steps", type=int, default=10**9)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--warmup", type=int, default=200)
    p.add_argument("--batch-tokens", type=int, default=8192)
    p.add_argument("--window", type=int, default=256)
    p.add_argument("--n-embd", type=int, default=256)
    p.add_argument("--n-layer", type=int, default=4)
    p.add_argument("--n-head", type=int, default=4)
    p.add_argument("--dropout", type=float, default=0.1)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--log-every", type=int, default=25)
    p.add_argument("--val-every", type=int, default=200)
    p.add_argument("--val-limit", type=int, default=400)
    add_resume_arg(p)
    args = p.parse_args()
    {"train": cmd_train, "eval": cmd_eval, "export": cmd_export}[args.cmd](args)


if __name__ == "__main__":
    main()
