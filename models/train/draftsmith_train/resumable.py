"""The plain Adam training loop of the RNN recipes (roundtrip, reply): gradient-norm clipping, a
validation every val_every steps that keeps the weights AND the optimizer, and --resume, which goes on
from what the last validation kept (a CPU run spans sessions; STEPS and MINUTES count the whole run).
A checkpoint is {"config", "state", "meta", "optimizer"}; model.c.to_dict() is the config.
Beside it, <out>.best.pt keeps the weights of the lowest validation NLL so far (early stopping: a small
data set such as the reply pairs is overfitted within the run), which is what the exports read.
Under several processes (launch.py / torchrun: dist.py) the loop is DistributedDataParallel: each rank
trains on its slice of the batch stream, rank 0 alone validates, saves and logs, and the ranks stop together."""
import os
import re
import time

import numpy as np
import torch

from . import dist
from .summarize import log


def add_train_args(p, embed, hidden, dropout, batch_tokens, max_val, log_every):
    """The options every RNN recipe's train command takes (the sizes' defaults are the recipe's)."""
    p.add_argument("--device", default="auto")
    p.add_argument("--out", default=None)
    p.add_argument("--minutes", type=float, default=20)
    p.add_argument("--steps", type=int, default=10 ** 9)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--embed", type=int, default=embed)
    p.add_argument("--hidden", type=int, default=hidden)
    p.add_argument("--dropout", type=float, default=dropout)
    p.add_argument("--batch-tokens", type=int, default=batch_tokens)
    p.add_argument("--max-train", type=int, default=None)
    p.add_argument("--resume", action="store_true", help="train: go on from --out's weights and optimizer if it exists")
    p.add_argument("--max-val", type=int, default=max_val)
    p.add_argument("--log-every", type=int, default=log_every)
    p.add_argument("--val-every", type=int, default=250)


def save(path, model, meta, optimizer=None):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    ck = {"config": model.c.to_dict(), "state": model.state_dict(), "meta": meta}
    if optimizer is not None:
        ck["optimizer"] = optimizer.state_dict()   # so a run stopped early can be resumed (--resume)
    torch.save(ck, path)


def best_path(out):
    """runs/reply-nrm.pt -> runs/reply-nrm.best.pt: the lowest-validation-NLL weights of that run."""
    root, ext = os.path.splitext(out)
    return root + ".best" + ext


def _nll(v):
    """validate()'s string ("nll 4.339 ppl 76.6") -> 4.339, or None when it names no NLL."""
    m = re.search(r"nll ([0-9.]+)", v)
    return float(m.group(1)) if m else None


def load_model(path, make):
    """make(config_dict) -> the model; returns (model with the checkpoint's weights, meta)."""
    ck = torch.load(path, map_location="cpu")
    m = make(ck["config"])
    m.load_state_dict(ck["state"])
    return m, ck.get("meta", {})


def resume(args, model, opt):
    """With --resume and an existing --out: its weights and optimizer loaded; returns the counters done."""
    done = {"steps": 0, "tokens": 0, "seconds": 0, "best_nll": float("inf")}
    if args.resume and os.path.exists(args.out):
        ck = torch.load(args.out, map_location="cpu")
        assert ck["config"] == model.c.to_dict(), f"{args.out} has another shape: {ck['config']}"
        model.load_state_dict(ck["state"])
        if "optimizer" in ck:
            opt.load_state_dict(ck["optimizer"])
        done = {k: ck["meta"].get(k, v) for k, v in done.items()}
        log(f"resumed from {args.out} at step {done['steps']} ({ck['meta'].get('val')})")
    return done


def train(model, opt, batches, args, done, step_fn, validate, meta):
    """step_fn(batch) -> (loss to minimise, token NLL for the log, tokens); validate() -> a string.
    Saves to args.out at every validation and at the end, with meta (a dict) and the counters, and
    to best_path(args.out) whenever the validation NLL is the lowest so far."""
    best = {"nll": done.get("best_nll", float("inf"))}

    def keep(stats):
        nll = _nll(stats["val"])
        if nll is not None and nll < best["nll"]:
            best["nll"] = nll
            save(best_path(args.out), model, {**meta, **stats, "args": vars(args), "best_nll": nll})
            log(f"best so far: {best_path(args.out)}")
        save(args.out, model, {**meta, **stats, "args": vars(args), "best_nll": best["nll"]}, opt)

    rank, world = dist.rank(), dist.world()
    if world > 1:
        torch.manual_seed(1000 * rank + done["steps"] + 1)   # each rank its own dropout masks
        log(f"DistributedDataParallel: {world} processes, {args.batch_tokens} tokens per rank per step")
    run = dist.wrap_step(model, step_fn)
    t0, step, tokens, losses = time.time() - done["seconds"], done["steps"], done["tokens"], []
    model.train()
    for batch in dist.shard(batches):
        loss, nll, n = run(batch)
        opt.zero_grad()
        loss.backward()   # under DDP: the gradients averaged over the ranks here
        torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)  # both papers: gradients clipped at norm 5
        opt.step()
        step += 1
        tokens += dist.sum_all(n) if world > 1 else n   # all ranks' tokens
        losses.append(float(nll))
        elapsed = time.time() - t0
        if step % args.log_every == 0:
            log(f"step {step} token nll {np.mean(losses[-args.log_every:]):.3f} tok/s {tokens / elapsed:.0f}")
        if step % args.val_every == 0 and dist.is_main():
            v = validate()
            log(f"step {step} validation {v}")
            keep({"steps": step, "tokens": tokens, "seconds": round(elapsed), "val": v, "partial": True})
        if dist.decide(elapsed > args.minutes * 60 or step >= args.steps):
            break
    if dist.is_main():
        stats = {"steps": step, "tokens": tokens, "seconds": round(time.time() - t0), "val": validate()}
        log(f"done: {stats}")
        keep(stats)
    dist.barrier()
