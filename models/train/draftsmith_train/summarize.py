"""TAAS recipe: prepare data, train the tokenizer, pretrain a small BART-like model by denoising,
fine-tune it for summarization with the neural topic model and topic-aware attention, export to ONNX.

  python3 -m draftsmith_train.summarize prepare  --data .data
  python3 -m draftsmith_train.summarize prepare-bbc --data .data --bbc "DIR/BBC News Summary"
        (a second held-out outlet)
  python3 -m draftsmith_train.summarize pretrain --data .data --minutes 25 --out runs/pretrain.pt
  python3 -m draftsmith_train.summarize finetune --data .data --init runs/pretrain.pt --minutes 40 --out runs/taas.pt
  python3 -m draftsmith_train.summarize export   --ckpt runs/taas.pt --out models/summarize

pretrain and finetune take --resume: they go on from --out where it exists (training.train_loop).

Runs on a CUDA GPU when one is present (--device auto), otherwise on one CPU thread.
"""
import argparse
import json
import os
import random

import numpy as np
import torch

from . import data as D
from .batching import token_batches
from . import tokenizer as T
from .modules import ModelConfig, TopicAwareSummarizer, label_smoothed_nll, load_summarizer
from .training import add_resume_arg, log, nll_and_ppl, pad, pick_device, resume_checkpoint, train_loop


# ---------------------------------------------------------------------------------------------
# Denoising pretraining (BART: text infilling with Poisson(3) spans, 30% of tokens)
# ---------------------------------------------------------------------------------------------
def infill(ids, rng, ratio=0.3, lam=3.0):
    out, i, n = [], 0, len(ids)
    budget = int(round(n * ratio))
    while i < n:
        if budget > 0 and rng.random() < ratio / lam:
            span = min(int(rng.poisson(lam)), budget, n - i)
            out.append(T.MASK)
            i += span
            budget -= span
            if span == 0:
                out.append(ids[i])
                i += 1
        else:
            out.append(ids[i])
            i += 1
    return out


def pretrain_windows(sp, corpus_file, window, max_lines=0):
    windows = []
    for n, line in enumerate(open(corpus_file, encoding="utf-8")):
        if max_lines and n >= max_lines:
            break
        ids = sp.encode(line.strip())
        for s in range(0, max(1, len(ids) - 16), window):
            w = ids[s : s + window]
            if len(w) >= 16:
                windows.append(w)
    return windows


def cmd_prepare(args):
    D.prepare(args.data)
    sp = T.train(os.path.join(args.data, "corpus.txt"), os.path.join(args.data, "spm"), args.vocab)
    T.write_tokenizer_json(sp, os.path.join(args.data, "tokenizer"))
    log(f"tokenizer: {sp.get_piece_size()} pieces")


SIZE_FLAGS = {
    "d_model": "d_model",
    "heads": "n_heads",
    "d_ff": "d_ff",
    "encoder_layers": "encoder_layers",
    "decoder_layers": "decoder_layers",
}


def size_overrides(args):
    """The model size flags given (--d-model, --heads, --d-ff, --encoder-layers, --decoder-layers) as
    ModelConfig fields; none given: {} (ModelConfig's defaults, the shipped size)."""
    return {field: getattr(args, flag) for flag, field in SIZE_FLAGS.items() if getattr(args, flag, None) is not None}


def check_size(cfg, args):
    """A model loaded from a checkpoint keeps its size: a size flag that says otherwise is an error."""
    wrong = {k: (v, getattr(cfg, k)) for k, v in size_overrides(args).items() if getattr(cfg, k) != v}
    if wrong:
        raise SystemExit(f"size flags differ from the checkpoint's model (flag, checkpoint): {wrong}")


def cmd_pretrain(args):
    device = pick_device(args.device)
    sp = T.load(os.path.join(args.data, "spm.model"))
    cfg = ModelConfig(vocab_size=sp.get_piece_size(), copy=False, **size_overrides(args))
    model = TopicAwareSummarizer(cfg).to(device)
    windows = pretrain_windows(sp, os.path.join(args.data, "corpus.txt"), args.window, args.max_train)
    log(f"pretrain: {sum(p.numel() for p in model.parameters()) / 1e6:.2f}M params, {len(windows)} windows")
    rng = np.random.default_rng(D.SEED)

    def batches():
        while True:
            order = rng.permutation(len(windows))
            for s in range(0, len(order) - args.batch, args.batch):
                ws = [windows[i] for i in order[s : s + args.batch]]
                yield [infill(w, rng) for w in ws], ws

    def step(b):
        noisy, clean = b
        src = pad(noisy).to(device)
        tgt = pad([[T.BOS] + w + [T.EOS] for w in clean]).to(device)
        logp, _, _ = model(src, (src != T.PAD).long(), tgt[:, :-1])
        loss, _ = label_smoothed_nll(logp, tgt[:, 1:], 0.1, T.PAD)
        return loss, int((src != T.PAD).sum() + (tgt != T.PAD).sum())

    train_loop(model, batches(), args, device, step, meta={"stage": "pretrain"})


# ---------------------------------------------------------------------------------------------
# Summarization fine-tuning with the neural topic model (TAAS)
# ---------------------------------------------------------------------------------------------
def load_pairs(path, sp, bow_index, max_src, max_tgt, limit=0):
    out = []
    for n, line in enumerate(open(path)):
        if limit and n >= limit:
            break
        r = json.loads(line)
        src = sp.encode(r["source"])[:max_src]
        tgt = sp.encode(r["target"])[: max_tgt - 2]
        bow = {}
        for w in D.WORD.findall(r["source"].lower()):
            j = bow_index.get(w)
            if j is not None:
                bow[j] = bow.get(j, 0) + 1
        out.append((src, [T.BOS] + tgt + [T.EOS], bow, r["domain"]))
    return out


def pair_files(data, specs):
    """Training or validation pairs named as FILE[@DOMAIN,...][*REPEAT] under the data folder: e.g.
    "summarize.train.jsonl@dialogue,tech" keeps two domains, "summarize-llm.train.jsonl*6" reads a small
    set six times per pass (yields (path, domains or None, repeat))."""
    for spec in specs:
        spec, _, repeat = spec.partition("*")
        name, _, domains = spec.partition("@")
        yield os.path.join(data, name), set(domains.split(",")) if domains else None, int(repeat or 1)


def load_pair_files(data, specs, sp, bow_index, max_src, max_tgt, limit=0):
    out = []
    for path, domains, repeat in pair_files(data, specs):
        rows = [
            x for x in load_pairs(path, sp, bow_index, max_src, max_tgt, limit) if domains is None or x[3] in domains
        ]
        out += rows * repeat
    return out


def bow_tensor(bows, size, device):
    x = torch.zeros(len(bows), size)
    for i, b in enumerate(bows):
        for j, c in b.items():
            x[i, j] = c
    return x.to(device)


def cmd_finetune(args):
    device = pick_device(args.device)
    sp = T.load(os.path.join(args.data, "spm.model"))
    bow_vocab = json.load(open(os.path.join(args.data, "bow_vocab.json")))
    bow_index = {w: i for i, w in enumerate(bow_vocab)}
    overrides = dict(
        copy=not args.no_copy,
        topic_attention=not args.no_topic_attention,
        num_topics=args.topics,
        bow_vocab_size=len(bow_vocab),
        ntm_batchnorm=args.ntm_batchnorm,
    )
    resume = resume_checkpoint(args)
    if args.init_shipped and not resume:
        # Continue a shipped model whose training checkpoint is gone: its weights from the ONNX files
        # (weights_from_onnx.py), the settings above on top. The topic model's inference network is not
        # exported; the warm-up below retrains it against the shipped topics (beta frozen there).
        from .weights_from_onnx import load_shipped

        shipped = load_shipped(args.init_shipped)
        model = TopicAwareSummarizer(ModelConfig(**{**shipped.c.to_dict(), **overrides}))
        check_size(model.c, args)
        missing, _ = model.load_state_dict(shipped.state_dict(), strict=False)
        log(f"initialised from the shipped folder {args.init_shipped}; fresh: {sorted(missing)}")
    elif resume or args.init:
        model, meta, missing = load_summarizer(resume or args.init, **overrides)
        check_size(model.c, args)
        meta = {k: v for k, v in meta.items() if k != "train_state"}
        log(f"initialised from {resume or args.init} ({meta}); fresh: {sorted(set(k.split('.')[0] for k in missing))}")
    else:
        model = TopicAwareSummarizer(ModelConfig(vocab_size=sp.get_piece_size(), **overrides, **size_overrides(args)))
    model.to(device)
    train = load_pair_files(
        args.data, args.train or ["summarize.train.jsonl"], sp, bow_index, args.max_src, args.max_tgt, args.max_train
    )
    val = load_pair_files(args.data, args.val or ["summarize.val.jsonl"], sp, bow_index, args.max_src, args.max_tgt)
    val = random.Random(D.SEED).sample(val, min(args.max_val, len(val)))
    log(f"finetune: {len(train)} pairs, copy={model.c.copy}, topic_attention={model.c.topic_attention}")

    if model.c.topic_attention and args.ntm_warmup and not resume:
        # The topic model first learns topics alone, so the topic-aware attention starts from real topics
        # (a resumed run did this before its first step).
        model.ntm.beta.requires_grad_(not args.init_shipped)
        opt = torch.optim.Adam([q for q in model.ntm.parameters() if q.requires_grad], lr=2e-3)
        rng = random.Random(D.SEED)
        for i in range(args.ntm_warmup):
            b = rng.sample(train, 64)
            bow = bow_tensor([x[2] for x in b], len(bow_vocab), device)
            _, loss = model.ntm(bow)
            opt.zero_grad()
            loss.backward()
            opt.step()
            if (i + 1) % 100 == 0:
                log(f"ntm warmup {i + 1} loss {loss.item():.1f}")
        model.ntm.beta.requires_grad_(True)

    rng = random.Random(D.SEED)

    def batches():
        return token_batches(train, lambda x: len(x[0]), args.batch_tokens, rng, 20)

    def forward(b):
        src = pad([x[0] for x in b]).to(device)
        tgt = pad([x[1] for x in b]).to(device)
        bow = bow_tensor([x[2] for x in b], len(bow_vocab), device)
        logp, ntm_loss, _ = model(src, (src != T.PAD).long(), tgt[:, :-1], bow)
        loss, nll = label_smoothed_nll(logp, tgt[:, 1:], args.label_smoothing, T.PAD)
        if ntm_loss is not None:
            words = bow.sum(-1).clamp(min=1).mean()
            loss = loss + args.ntm_weight * ntm_loss / words  # Eq. 14: L = L_summ + lambda * L_NTM (per word)
        return loss, nll, int((src != T.PAD).sum() + (tgt != T.PAD).sum())

    def step(b):
        loss, _, n = forward(b)
        return loss, n

    def validate():
        return nll_and_ppl(np.mean([forward(val[i : i + 16])[1].item() for i in range(0, len(val), 16)]))

    train_loop(model, batches(), args, device, step, validate, meta={"stage": "finetune", "init": args.init})


def main():
    p = argparse.ArgumentParser()
    p.add_argument(
        "cmd", choices=["prepare", "prepare-llm", "prepare-gsg", "prepare-bbc", "pretrain", "finetune", "export"]
    )
    p.add_argument("--data", default=".data")
    p.add_argument("--bbc", help='prepare-bbc: the "BBC News Summary" folder (News Articles/, Summaries/)')
    p.add_argument("--device", default="auto")
    p.add_argument("--vocab", type=int, default=8000)
    p.add_argument("--out", default="runs/model.pt")
    p.add_argument("--init")
    p.add_argument(
        "--init-shipped", help="finetune: start from a shipped model folder's weights (no checkpoint needed)"
    )
    p.add_argument(
        "--train",
        action="append",
        help="finetune: FILE[@DOMAIN,...][*REPEAT] under --data; default summarize.train.jsonl",
    )
    p.add_argument("--val", action="append", help="finetune: as --train; default summarize.val.jsonl")
    p.add_argument("--ckpt")
    p.add_argument("--minutes", type=float, default=20)
    p.add_argument("--steps", type=int, default=10**9)
    p.add_argument("--lr", type=float, default=5e-4)
    p.add_argument("--warmup", type=int, default=200)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--window", type=int, default=128)
    p.add_argument("--batch-tokens", type=int, default=6000)
    p.add_argument("--max-src", type=int, default=320)
    p.add_argument("--max-tgt", type=int, default=64)
    p.add_argument("--topics", type=int, default=10)
    # Model size (pretrain, and finetune from scratch); unset: ModelConfig's defaults, the shipped size.
    # A model loaded from --init/--resume/--init-shipped keeps its own size (a flag that differs is an error).
    p.add_argument("--d-model", type=int, help="model width (default: ModelConfig's, 192)")
    p.add_argument("--heads", type=int, help="attention heads (default 4)")
    p.add_argument("--d-ff", type=int, help="feed-forward width (default 768)")
    p.add_argument("--encoder-layers", type=int, help="encoder layers (default 3)")
    p.add_argument("--decoder-layers", type=int, help="decoder layers (default 3)")
    p.add_argument("--ntm-weight", type=float, default=1.0, help="lambda of Eq. 14")
    p.add_argument("--ntm-warmup", type=int, default=300)
    p.add_argument("--ntm-batchnorm", action="store_true", help="ProdLDA batch norm in the topic model (recommended)")
    p.add_argument("--label-smoothing", type=float, default=0.1)
    p.add_argument("--no-copy", action="store_true")
    p.add_argument("--no-topic-attention", action="store_true")
    p.add_argument("--log-every", type=int, default=25)
    p.add_argument("--val-every", type=int, default=250)
    p.add_argument("--max-val", type=int, default=300, help="finetune: validation pairs (a seeded sample)")
    p.add_argument(
        "--max-train",
        type=int,
        default=0,
        help="read only the first N training pairs (pretrain: corpus lines); 0: all (a smoke run reads few)",
    )
    add_resume_arg(p)
    args = p.parse_args()
    if args.cmd == "export":
        from .export_summarize import export

        export(args.ckpt, args.out, args.data)
        return
    {
        "prepare": cmd_prepare,
        "prepare-llm": lambda a: D.prepare_llm(a.data),
        "prepare-gsg": lambda a: D.prepare_gsg(a.data),
        "prepare-bbc": lambda a: D.prepare_second_outlet(a.data, a.bbc),
        "pretrain": cmd_pretrain,
        "finetune": cmd_finetune,
    }[args.cmd](args)


if __name__ == "__main__":
    main()
