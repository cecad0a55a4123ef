"""TAAS recipe: prepare data, train the tokenizer, pretrain a small BART-like model by denoising,
fine-tune it for summarization with the neural topic model and topic-aware attention, export to ONNX.

  python3 -m draftsmith_train.summarize prepare  --data .data
  python3 -m draftsmith_train.summarize pretrain --data .data --minutes 25 --out runs/pretrain.pt
  python3 -m draftsmith_train.summarize finetune --data .data --init runs/pretrain.pt --minutes 40 --out runs/taas.pt
  python3 -m draftsmith_train.summarize export   --ckpt runs/taas.pt --out models/summarize

pretrain and finetune take --resume: they go on from --out where it exists (train_loop).

Runs on a CUDA GPU when one is present (--device auto), otherwise on one CPU thread.
"""
import argparse
import json
import math
import os
import random
import re
import time

import numpy as np
import torch

from . import data as D
from . import dist
from .batching import token_batches
from . import tokenizer as T
from .modules import ModelConfig, TopicAwareSummarizer, label_smoothed_nll


def pick_device(name):
    """auto: CUDA when present, else the CPU with one thread. Under several processes (WORLD_SIZE > 1:
    launch.py or torchrun) it also joins the process group (dist.py): gloo on the CPU, nccl on CUDA,
    where each rank takes the GPU of its LOCAL_RANK."""
    if name == "auto":
        name = "cuda" if torch.cuda.is_available() else "cpu"
    if name == "cpu":
        torch.set_num_threads(1)  # TRAINING.md: a second thread is ~3x slower here
    dist.init(name)
    return dist.local_device(name)


def log(msg):
    if dist.is_main():   # under DDP, rank 0 speaks for all
        print(time.strftime("%H:%M:%S"), msg, flush=True)


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
            w = ids[s:s + window]
            if len(w) >= 16:
                windows.append(w)
    return windows


def pad(seqs, value=T.PAD):
    n = max(len(s) for s in seqs)
    return torch.tensor([s + [value] * (n - len(s)) for s in seqs], dtype=torch.long)


def add_resume_arg(p):
    """--resume as roundtrip's and reply's (resumable.py), for the training commands that run train_loop."""
    p.add_argument("--resume", action="store_true",
                   help="training: go on from --out (weights, optimizer, step, schedule, elapsed time) if it exists")


def resume_checkpoint(args):
    """With --resume and an existing --out: its path, else None. A command resuming builds its model from
    that checkpoint's shape and skips --init/--init-decoder/--pretrained (their weights would be replaced)."""
    out = getattr(args, "out", None)
    return out if getattr(args, "resume", False) and out and os.path.exists(out) else None


def train_state(opt, step, tokens, seconds):
    """What a resumed run needs beside the weights; the RNG too, so that in one process the resumed steps
    draw the same dropout masks as the uninterrupted run's."""
    rng = {"cpu": torch.get_rng_state()}
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        rng["cuda"] = torch.cuda.get_rng_state()
    return {"optimizer": opt.state_dict(), "steps": step, "tokens": tokens, "seconds": seconds, "rng": rng}


def load_train_state(path, model, opt):
    """The checkpoint's weights into model, its optimizer (when it kept one) into opt, its RNG (one process
    only: under DDP each rank seeds its own); returns (steps, tokens, seconds)."""
    ck = torch.load(path, map_location="cpu")
    model.load_state_dict(ck["state"])   # float16 weights (gpu_chunk.sh's smallest bundle) load as float32
    meta = ck.get("meta", {})
    state = meta.get("train_state") or {}
    if "optimizer" in state:
        opt.load_state_dict(state["optimizer"])
    else:
        log(f"{path} keeps no optimizer state: AdamW starts again from zero moments")
    rng = state.get("rng")
    if rng and dist.world() == 1:
        torch.set_rng_state(rng["cpu"])
        if "cuda" in rng and next(model.parameters()).is_cuda:
            torch.cuda.set_rng_state(rng["cuda"])
    return tuple(int(state.get(k, meta.get(k, 0))) for k in ("steps", "tokens", "seconds"))


def train_loop(model, batches, args, device, step_fn, val_fn=None, param_groups=None, keep=None):
    """param_groups: optional AdamW groups, each may carry "lr_scale" (a multiple of the schedule's lr).
    keep(meta): saves the weights; called at every validation, so a long CPU run stopped early still
    leaves its last validated weights behind, with meta["train_state"] (optimizer, counters, RNG); the
    returned stats carry it too, for the command's final save.
    --resume (resume_checkpoint): the run goes on from --out's weights and train_state: step (so the
    learning-rate schedule), tokens, elapsed time (--steps and --minutes count the whole run); it skips
    the batches already trained on, so it sees the uninterrupted run's batch order."""
    opt = torch.optim.AdamW(param_groups or model.parameters(), lr=args.lr, betas=(0.9, 0.98), weight_decay=0.01)
    warmup = args.warmup
    step, tokens, seconds = 0, 0, 0
    resume = resume_checkpoint(args)
    if resume:   # every rank loads the same file (rank 0 wrote it)
        step, tokens, seconds = load_train_state(resume, model, opt)
    t0, losses = time.time() - seconds, []
    world = dist.world()
    if world > 1:   # DistributedDataParallel (dist.py): each rank its slice of the stream, its own dropout
        torch.manual_seed(1000 * dist.rank() + step + 1)
        log(f"DistributedDataParallel: {world} processes (each its own batches of the stream)")
    # find_unused: some of these models leave parameters out of the loss (story fusion's frozen parts'
    # neighbours, the ablations' switched-off modules); DDP then must not wait for their gradients.
    run = dist.wrap_step(model, step_fn, find_unused=True)
    batches = iter(dist.shard(batches))
    if resume:
        for _ in range(step):
            next(batches)
        log(f"resumed from {resume} at step {step} ({tokens} tokens, {seconds} s)")
    model.train()
    for batch in batches:
        lr = args.lr * min(1.0, (step + 1) / warmup) * (1.0 if step < warmup else max(0.1, math.sqrt(warmup / (step + 1))))
        for g in opt.param_groups:
            g["lr"] = lr * g.get("lr_scale", 1.0)
        loss, ntok = run(batch)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        step += 1
        tokens += dist.sum_all(ntok) if world > 1 else ntok
        losses.append(loss.item())
        elapsed = time.time() - t0
        if step % args.log_every == 0:
            log(f"step {step} loss {np.mean(losses[-args.log_every:]):.3f} lr {lr:.2e} tok/s {tokens / elapsed:.0f}")
        if val_fn and step % args.val_every == 0 and dist.is_main():
            model.eval()
            result = val_fn()
            log(f"step {step} validation {result}")
            if keep:
                seconds = round(time.time() - t0)
                keep({"partial": True, "steps": step, "tokens": tokens, "seconds": seconds, "val": result,
                      "train_state": train_state(opt, step, tokens, seconds)})
            model.train()
        if dist.decide(elapsed > args.minutes * 60 or step >= args.steps):
            break
    log(f"done: {step} steps, {tokens} tokens, {tokens / (time.time() - t0):.0f} tok/s")
    if world > 1:
        # What the recipes do after the loop (the final validation, saves, exports) is rank 0's alone:
        # the other ranks' part ends here.
        dist.barrier()
        if not dist.is_main():
            dist.leave()
    seconds = round(time.time() - t0)
    return {"steps": step, "tokens": tokens, "seconds": seconds, "train_state": train_state(opt, step, tokens, seconds)}


def cmd_prepare(args):
    D.prepare(args.data)
    sp = T.train(os.path.join(args.data, "corpus.txt"), os.path.join(args.data, "spm"), args.vocab)
    T.write_tokenizer_json(sp, os.path.join(args.data, "tokenizer"))
    log(f"tokenizer: {sp.get_piece_size()} pieces")


def save(path, model, meta):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    torch.save({"config": model.c.to_dict(), "state": model.state_dict(), "meta": meta}, path)


def load_model(path, **overrides):
    ck = torch.load(path, map_location="cpu")
    cfg = ModelConfig(**{**ck["config"], **overrides})
    m = TopicAwareSummarizer(cfg)
    missing, unexpected = m.load_state_dict(ck["state"], strict=False)
    return m, ck.get("meta", {}), missing


def cmd_pretrain(args):
    device = pick_device(args.device)
    sp = T.load(os.path.join(args.data, "spm.model"))
    cfg = ModelConfig(vocab_size=sp.get_piece_size(), copy=False)
    model = TopicAwareSummarizer(cfg).to(device)
    windows = pretrain_windows(sp, os.path.join(args.data, "corpus.txt"), args.window, args.max_train)
    log(f"pretrain: {sum(p.numel() for p in model.parameters()) / 1e6:.2f}M params, {len(windows)} windows")
    rng = np.random.default_rng(D.SEED)

    def batches():
        while True:
            order = rng.permutation(len(windows))
            for s in range(0, len(order) - args.batch, args.batch):
                ws = [windows[i] for i in order[s:s + args.batch]]
                yield [infill(w, rng) for w in ws], ws

    def step(b):
        noisy, clean = b
        src = pad(noisy).to(device)
        tgt = pad([[T.BOS] + w + [T.EOS] for w in clean]).to(device)
        logp, _, _ = model(src, (src != T.PAD).long(), tgt[:, :-1])
        loss, _ = label_smoothed_nll(logp, tgt[:, 1:], 0.1, T.PAD)
        return loss, int((src != T.PAD).sum() + (tgt != T.PAD).sum())

    stats = train_loop(model, batches(), args, device, step)
    save(args.out, model, {"stage": "pretrain", **stats})


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
        tgt = sp.encode(r["target"])[:max_tgt - 2]
        bow = {}
        for w in D.WORD.findall(r["source"].lower()):
            j = bow_index.get(w)
            if j is not None:
                bow[j] = bow.get(j, 0) + 1
        out.append((src, [T.BOS] + tgt + [T.EOS], bow, r["domain"]))
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
    overrides = dict(copy=not args.no_copy, topic_attention=not args.no_topic_attention,
                     num_topics=args.topics, bow_vocab_size=len(bow_vocab), ntm_batchnorm=args.ntm_batchnorm)
    resume = resume_checkpoint(args)
    if resume or args.init:
        model, meta, missing = load_model(resume or args.init, **overrides)
        meta = {k: v for k, v in meta.items() if k != "train_state"}
        log(f"initialised from {resume or args.init} ({meta}); fresh: {sorted(set(k.split('.')[0] for k in missing))}")
    else:
        model = TopicAwareSummarizer(ModelConfig(vocab_size=sp.get_piece_size(), **overrides))
    model.to(device)
    train = load_pairs(os.path.join(args.data, "summarize.train.jsonl"), sp, bow_index, args.max_src, args.max_tgt, args.max_train)
    val = load_pairs(os.path.join(args.data, "summarize.val.jsonl"), sp, bow_index, args.max_src, args.max_tgt)
    val = random.Random(D.SEED).sample(val, min(args.max_val, len(val)))
    log(f"finetune: {len(train)} pairs, copy={model.c.copy}, topic_attention={model.c.topic_attention}")

    if model.c.topic_attention and args.ntm_warmup and not resume:
        # The topic model first learns topics alone, so the topic-aware attention starts from real topics
        # (a resumed run did this before its first step).
        opt = torch.optim.Adam(model.ntm.parameters(), lr=2e-3)
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
        with torch.no_grad():
            nlls = [forward(val[i:i + 16])[1].item() for i in range(0, len(val), 16)]
        return f"nll {np.mean(nlls):.3f} ppl {math.exp(np.mean(nlls)):.1f}"

    def keep(stats):
        save(args.out, model, {"stage": "finetune", "init": args.init, **stats, "args": vars(args)})

    stats = train_loop(model, batches(), args, device, step, validate, keep=keep)
    model.eval()
    stats["val"] = validate()
    log(f"final validation {stats['val']}")
    keep(stats)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("cmd", choices=["prepare", "pretrain", "finetune", "export"])
    p.add_argument("--data", default=".data")
    p.add_argument("--device", default="auto")
    p.add_argument("--vocab", type=int, default=8000)
    p.add_argument("--out", default="runs/model.pt")
    p.add_argument("--init")
    p.add_argument("--ckpt")
    p.add_argument("--minutes", type=float, default=20)
    p.add_argument("--steps", type=int, default=10 ** 9)
    p.add_argument("--lr", type=float, default=5e-4)
    p.add_argument("--warmup", type=int, default=200)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--window", type=int, default=128)
    p.add_argument("--batch-tokens", type=int, default=6000)
    p.add_argument("--max-src", type=int, default=320)
    p.add_argument("--max-tgt", type=int, default=64)
    p.add_argument("--topics", type=int, default=10)
    p.add_argument("--ntm-weight", type=float, default=1.0, help="lambda of Eq. 14")
    p.add_argument("--ntm-warmup", type=int, default=300)
    p.add_argument("--ntm-batchnorm", action="store_true", help="ProdLDA batch norm in the topic model (recommended)")
    p.add_argument("--label-smoothing", type=float, default=0.1)
    p.add_argument("--no-copy", action="store_true")
    p.add_argument("--no-topic-attention", action="store_true")
    p.add_argument("--log-every", type=int, default=25)
    p.add_argument("--val-every", type=int, default=250)
    p.add_argument("--max-val", type=int, default=300, help="finetune: validation pairs (a seeded sample)")
    p.add_argument("--max-train", type=int, default=0, help="read only the first N training pairs (pretrain: corpus lines); 0: all (a smoke run reads few)")
    add_resume_arg(p)
    args = p.parse_args()
    if args.cmd == "export":
        from .export_summarize import export
        export(args.ckpt, args.out, args.data)
        return
    {"prepare": cmd_prepare, "pretrain": cmd_pretrain, "finetune": cmd_finetune}[args.cmd](args)


if __name__ == "__main__":
    main()
