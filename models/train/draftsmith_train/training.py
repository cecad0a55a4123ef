"""The one training loop and checkpoint layout of every recipe (summarize, essay, story, roundtrip, reply).

A checkpoint is {"config", "state", "meta"}: model.c.to_dict() (or the recipe's config), the weights, and
meta: the recipe's own fields, the counters (steps, tokens, seconds), "val" (the last validation's
numbers, a dict such as {"nll": 3.714, "ppl": 41.0}), "best_nll", "args", and "train_state" (optimizer,
counters, RNG) so that --resume goes on where the run stopped (a CPU run spans sessions; --steps and
--minutes count the whole run). With keep_best, <out>.best.pt keeps the weights of the lowest validation
NLL so far, chosen from the recorded number (early stopping: a small data set such as the reply pairs is
overfitted within the run); that is what those recipes export.

Under several processes (launch.py / torchrun: dist.py) the loop is DistributedDataParallel: each rank
trains on its slice of the batch stream, rank 0 alone validates, saves and logs, and the ranks stop together.
"""
import math
import os
import time

import numpy as np
import torch

from . import dist
from . import tokenizer as T


def pick_device(name):
    """auto: CUDA when present, else the CPU with one thread. Under several processes (WORLD_SIZE > 1:
    launch.py or torchrun) it also joins the process group (dist.py): gloo on the CPU, nccl on CUDA,
    where each rank takes the GPU of its LOCAL_RANK."""
    if name == "auto":
        name = "cuda" if torch.cuda.is_available() else "cpu"
    if name == "cpu":
        torch.set_num_threads(1)  # measured: a second thread made training ~3x slower on the 2-core machines
    else:  # TensorFloat-32 matrix products on CUDA: several times float32's speed
        torch.backends.cuda.matmul.allow_tf32 = True
        torch.backends.cudnn.allow_tf32 = True
    dist.init(name)
    return dist.local_device(name)


def log(msg):
    if dist.is_main():  # under DDP, rank 0 speaks for all
        print(time.strftime("%H:%M:%S"), msg, flush=True)


def pad(seqs, value=T.PAD):
    n = max(len(s) for s in seqs)
    return torch.tensor([s + [value] * (n - len(s)) for s in seqs], dtype=torch.long)


# ---------------------------------------------------------------------------------------------
# Options
# ---------------------------------------------------------------------------------------------
def add_resume_arg(p):
    p.add_argument(
        "--resume",
        action="store_true",
        help="training: go on from --out (weights, optimizer, step, schedule, elapsed time) if it exists",
    )


def add_rnn_train_args(p, embed, hidden, dropout, batch_tokens, max_val, log_every):
    """The options the RNN recipes' train command takes (roundtrip, reply; the sizes' defaults are the recipe's)."""
    p.add_argument("--device", default="auto")
    p.add_argument("--out", default=None)
    p.add_argument("--minutes", type=float, default=20)
    p.add_argument("--steps", type=int, default=10**9)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--embed", type=int, default=embed)
    p.add_argument("--hidden", type=int, default=hidden)
    p.add_argument("--dropout", type=float, default=dropout)
    p.add_argument("--batch-tokens", type=int, default=batch_tokens)
    p.add_argument("--max-train", type=int, default=None)
    add_resume_arg(p)
    p.add_argument("--max-val", type=int, default=max_val)
    p.add_argument("--log-every", type=int, default=log_every)
    p.add_argument("--val-every", type=int, default=250)


def resume_checkpoint(args):
    """With --resume and an existing --out: its path, else None. A command resuming builds its model from
    that checkpoint's shape and skips --init/--init-decoder/--pretrained (their weights would be replaced)."""
    out = getattr(args, "out", None)
    return out if getattr(args, "resume", False) and out and os.path.exists(out) else None


def embeddings_from_backbone(embedding, path):
    """An nn.Embedding's weights from a backbone checkpoint's token embeddings (backbone.py; same
    tokenizer, same width), the padding row zero: --init-embeddings of the recipes that take it."""
    wte = torch.load(path, map_location="cpu")["state"]["transformer.wte.weight"]
    if tuple(wte.shape) != tuple(embedding.weight.shape):
        raise SystemExit(
            f"--init-embeddings: {tuple(wte.shape)} in {path}, the model has {tuple(embedding.weight.shape)}"
        )
    with torch.no_grad():
        embedding.weight.copy_(wte)
        if embedding.padding_idx is not None:
            embedding.weight[embedding.padding_idx].zero_()
    log(f"word embeddings from {path} ({wte.shape[0]} x {wte.shape[1]})")


# ---------------------------------------------------------------------------------------------
# Checkpoints
# ---------------------------------------------------------------------------------------------
def save_checkpoint(path, model, meta, config=None, **extra):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    torch.save(
        {
            "config": config if config is not None else model.c.to_dict(),
            "state": model.state_dict(),
            "meta": meta,
            **extra,
        },
        path,
    )


def load_checkpoint(path, make):
    """make(config_dict) -> the model; returns (model with the checkpoint's weights, meta)."""
    ck = torch.load(path, map_location="cpu")
    m = make(ck["config"])
    m.load_state_dict(ck["state"])
    return m, ck.get("meta", {})


def best_path(out):
    """runs/reply-nrm.pt -> runs/reply-nrm.best.pt: the lowest-validation-NLL weights of that run."""
    root, ext = os.path.splitext(out)
    return root + ".best" + ext


def val_nll(val):
    """The validation NLL recorded in meta["val"]: a dict {"nll": ...}; None when it names none."""
    return float(val["nll"]) if isinstance(val, dict) and "nll" in val else None


def format_val(val):
    """{"nll": 3.7143, "ppl": 41.04} -> "nll 3.714 ppl 41.0" (for the logs only)."""
    if not isinstance(val, dict):
        return str(val)
    return " ".join(
        f"{k} {v:.3f}" if k == "nll" else f"{k} {v:.1f}" if isinstance(v, float) else f"{k} {v}" for k, v in val.items()
    )


def nll_and_ppl(nll):
    return {"nll": round(float(nll), 4), "ppl": round(math.exp(float(nll)), 2)}


def train_state(opt, step, tokens, seconds):
    """What a resumed run needs beside the weights; the RNG too, so that in one process the resumed steps
    draw the same dropout masks as the uninterrupted run's."""
    rng = {"cpu": torch.get_rng_state()}
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        rng["cuda"] = torch.cuda.get_rng_state()
    return {"optimizer": opt.state_dict(), "steps": step, "tokens": tokens, "seconds": seconds, "rng": rng}


def load_train_state(path, model, opt):
    """The checkpoint's weights into model, its optimizer (when it kept one) into opt, its RNG (one process
    only: under DDP each rank seeds its own); returns (steps, tokens, seconds, best validation NLL).
    Also reads the RNN recipes' earlier layout (the optimizer beside "meta", the counters in meta)."""
    ck = torch.load(path, map_location="cpu")
    model.load_state_dict(ck["state"])  # float16 weights (gpu_chunk.sh's smallest bundle) load as float32
    meta = ck.get("meta", {})
    state = meta.get("train_state") or {}
    optimizer = state.get("optimizer", ck.get("optimizer"))
    if optimizer is not None:
        opt.load_state_dict(optimizer)
    else:
        log(f"{path} keeps no optimizer state: the optimizer starts again from zero moments")
    rng = state.get("rng")
    if rng and dist.world() == 1:
        torch.set_rng_state(rng["cpu"])
        if "cuda" in rng and next(model.parameters()).is_cuda:
            torch.cuda.set_rng_state(rng["cuda"])
    steps, tokens, seconds = (int(state.get(k, meta.get(k, 0))) for k in ("steps", "tokens", "seconds"))
    best = meta.get("best_nll")
    return steps, tokens, seconds, float(best) if best is not None else float("inf")


# ---------------------------------------------------------------------------------------------
# Learning-rate schedules (step -> learning rate)
# ---------------------------------------------------------------------------------------------
def inverse_sqrt(lr, warmup):
    """Linear warm-up, then lr * sqrt(warmup / step), never below a tenth of lr (the Transformer recipes)."""
    return (
        lambda step: lr
        * min(1.0, (step + 1) / warmup)
        * (1.0 if step < warmup else max(0.1, math.sqrt(warmup / (step + 1))))
    )


def constant(lr):
    """The RNN recipes' plain Adam at one rate (both papers)."""
    return lambda step: lr


def halving(lr, after, every):
    """lr until step `after`, then halved every `every` steps (Li et al. 2015 and Luong et al. 2015 halve
    their rate every half epoch after the first epochs); after=None: constant."""
    if after is None:
        return constant(lr)
    return lambda step: lr * 0.5 ** (max(0, step - after) // every + (step >= after))


def adamw(params, lr):
    return torch.optim.AdamW(params, lr=lr, betas=(0.9, 0.98), weight_decay=0.01)


# ---------------------------------------------------------------------------------------------
# The loop
# ---------------------------------------------------------------------------------------------
# A run resumed without optimizer state (a checkpoint rebuilt from shipped graphs, a slimmed GPU bundle)
# ramps its rate up linearly over this many steps from the resumed one while AdamW's moments fill again.
REWARM_STEPS = 50


def train_loop(
    model,
    batches,
    args,
    device,
    step_fn,
    val_fn=None,
    param_groups=None,
    *,
    meta=None,
    save=None,
    optimizer=adamw,
    schedule=None,
    clip=1.0,
    keep_best=False,
    find_unused=True,
    others_leave=True,
):
    """Trains until args.steps or args.minutes (both count the whole run, resumed parts included).

    step_fn(batch) -> (loss, tokens) or (loss, token NLL for the log, tokens).
    val_fn() -> a dict of numbers ({"nll", "ppl"}), run every args.val_every steps and at the end on rank 0.
    param_groups: optional optimizer groups, each may carry "lr_scale" (a multiple of the schedule's lr).
    optimizer(params, lr): default AdamW; schedule(step) -> lr: default inverse_sqrt(args.lr, args.warmup).
    save(path, meta): writes a checkpoint (default: save_checkpoint with the model's config); called at
    every validation (so a run stopped early keeps its last validated weights, with meta["train_state"])
    and at the end, with meta = the recipe's `meta` + counters + val + args + train_state.
    --resume (resume_checkpoint): the run goes on from --out's weights and train_state (step, so the
    schedule; tokens; elapsed time; best NLL) and skips the batches already trained on, so it sees the
    uninterrupted run's batch order. A checkpoint without optimizer state restarts AdamW from zero moments
    with a short warm-up (REWARM_STEPS) on top of the schedule.
    others_leave: under DDP, ranks other than 0 exit after the loop (the recipes' exports that follow are
    rank 0's alone); False returns on every rank. Returns the final meta (rank 0's)."""
    opt = optimizer(param_groups or model.parameters(), args.lr)
    schedule = schedule or inverse_sqrt(args.lr, args.warmup)
    save = save or (lambda path, m: save_checkpoint(path, model, m))
    step, tokens, seconds, best = 0, 0, 0, float("inf")
    resume, rewarm_from = resume_checkpoint(args), None
    if resume:  # every rank loads the same file (rank 0 wrote it)
        step, tokens, seconds, best = load_train_state(resume, model, opt)
        if not opt.state:  # zero moments: Adam's first updates are full-size, so the rate ramps up again
            rewarm_from = step
    t0, losses, nlls = time.time() - seconds, [], []
    world = dist.world()
    if world > 1:  # DistributedDataParallel (dist.py): each rank its slice of the stream, its own dropout
        torch.manual_seed(1000 * dist.rank() + step + 1)
        log(f"DistributedDataParallel: {world} processes (each its own batches of the stream)")
    # find_unused: some of these models leave parameters out of the loss (story fusion's frozen parts'
    # neighbours, the ablations' switched-off modules); DDP then must not wait for their gradients.
    run = dist.wrap_step(model, step_fn, find_unused=find_unused)
    batches = iter(dist.shard(batches))
    if resume:
        for _ in range(step):
            next(batches)
        log(f"resumed from {resume} at step {step} ({tokens} tokens, {seconds} s)")

    def keep(val, partial):
        nonlocal best
        seconds = round(time.time() - t0)
        m = {
            **(meta or {}),
            "steps": step,
            "tokens": tokens,
            "seconds": seconds,
            "tokens_per_s": round(tokens / max(1, seconds)),
            "val": val,
            "args": vars(args),
        }
        if partial:
            m["partial"] = True
        nll = val_nll(val)
        if keep_best and nll is not None and nll < best:
            best = nll
            save(best_path(args.out), {**m, "best_nll": nll})
            log(f"best so far: {best_path(args.out)}")
        if nll is not None:
            best = min(best, nll)
        m = {
            **m,
            "best_nll": None if math.isinf(best) else best,
            "train_state": train_state(opt, step, tokens, seconds),
        }
        save(args.out, m)
        return m

    def validate():
        model.eval()
        with torch.no_grad():
            v = val_fn()
        model.train()
        return v

    model.train()
    for batch in batches:
        lr = schedule(step)
        if rewarm_from is not None:
            lr *= min(1.0, (step - rewarm_from + 1) / REWARM_STEPS)
        for g in opt.param_groups:
            g["lr"] = lr * g.get("lr_scale", 1.0)
        out = run(batch)
        loss, ntok = out[0], out[-1]
        opt.zero_grad()
        loss.backward()  # under DDP: the gradients averaged over the ranks here
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        opt.step()
        step += 1
        tokens += dist.sum_all(ntok) if world > 1 else ntok
        losses.append(loss.item())
        if len(out) == 3:
            nlls.append(float(out[1]))
        elapsed = time.time() - t0
        if step % args.log_every == 0:
            nll = f" token nll {np.mean(nlls[-args.log_every:]):.3f}" if nlls else ""
            log(
                f"step {step} loss {np.mean(losses[-args.log_every:]):.3f}{nll} lr {lr:.2e} tok/s"
                f" {tokens / elapsed:.0f}"
            )
        if val_fn and step % args.val_every == 0 and dist.is_main():
            v = validate()
            log(f"step {step} validation {format_val(v)}")
            keep(v, True)
        if dist.decide(elapsed > args.minutes * 60 or step >= args.steps):
            break
    log(f"done: {step} steps, {tokens} tokens, {tokens / (time.time() - t0):.0f} tok/s")
    final = None
    if dist.is_main():
        v = validate() if val_fn else None
        if v is not None:
            log(f"final validation {format_val(v)}")
        final = keep(v, False)
    if world > 1:
        dist.barrier()
        if others_leave and not dist.is_main():
            dist.leave()
    return final
