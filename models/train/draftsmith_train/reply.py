"""Suggest Replies: ESED, sequence-to-sequence with an external semantic memory, and its NRM baseline.

  python3 -m draftsmith_train.reply prepare --data .data/reply
  python3 -m draftsmith_train.reply train   --data .data/reply --model nrm  --minutes 30 --out runs/reply-nrm.pt
  python3 -m draftsmith_train.reply memory  --data .data/reply --ckpt runs/reply-nrm.pt --out runs/reply-memory.npz
  python3 -m draftsmith_train.reply train   --data .data/reply --model esed --memory runs/reply-memory.npz
        --out runs/reply-esed.pt
  python3 -m draftsmith_train.reply export  --data .data/reply --ckpt runs/reply-esed.pt --out ../reply

The models (one class, Seq2Seq; `esed` switches the memory on):
  nrm   GRU encoder-decoder with attention (the neural responding machine baseline): a bidirectional GRU
        Encoder over the post; a GRU Decoder whose state attends over the encoder outputs (Luong's general
        score), out = tanh(W_c [s_t; c_t]), log-softmax over the vocabulary.
  esed  nrm, plus the external semantic memory: for a key k, its memory block M_k = [m_1 .. m_L] (built
        offline, `memory` below); the query p is the post's summary vector (the encoder's final forward
        and backward states), projected into the memory space and L2-normalised; the read is
          r = Σ_l softmax_l(β pᵀ m_l) m_l,  β = 100                                  (Eqs. 11-12)
        over the non-padding rows, and r is appended to every encoder output, h'_i = [h_i; r]   (Eq. 13),
        so the decoder attends over the joint context. Since Σ_i a_i = 1, the attention context is
        [Σ a_i h_i; r] and the scores gain a per-row constant, which is how the exported step computes it
        (the encoder outputs shared by every beam, r one row per beam).
Training pairs are grouped by their reply-side keys (Sec. III-C): each ESED training pair reads the block
of one key of its reply (a seeded choice per epoch). At run time the keys come from the post, mapped
(identity, synonym, antonym, embedding neighbour) or typed, and each key gives one candidate.

The memory (`memory`): every reply sentence of the training pairs is embedded by the trained NRM
encoder (the post-side summary vector of a seq2seq trained on post -> reply pairs); sentences are
grouped by their keys; per key: truncated SVD of the group's vectors (latent semantic analysis,
SVD_DIMS dims), k-means with L clusters (numpy, seeded k-means++ init), and the sentence nearest each
centre, whose full (L2-normalised) vector is the block row; blocks with fewer than L sentences are
zero-padded (zero rows are masked in the read).
Sizes here (CPU): embed 64, hidden 64 per direction (memory vectors 128), L = 8; the paper's are larger.
Adam (lr 1e-3), gradient clipping at 5. Runs on CUDA when present (--device auto).
"""
import argparse
import os
import random

import numpy as np
import torch
import torch.nn.functional as F

from . import data as D
from . import dist
from . import tokenizer as T
from .batching import token_batches
from .reply_model import MAX_POST, MAX_REPLY, MODELS, Config, Memory, Seq2Seq, load_model
from .reply_data import KeyFinder, load as load_rows, prepare_reply
from . import training as R
from .training import log, nll_and_ppl, pick_device

SVD_DIMS = 32


# ---------------------------------------------------------------------------------------------
# Training
# ---------------------------------------------------------------------------------------------
def encode_rows(rows, sp):
    return [(sp.encode(r["post"])[-MAX_POST:], sp.encode(r["reply"])[:MAX_REPLY], r) for r in rows]


def cmd_train(args):
    device = pick_device(args.device)
    torch.manual_seed(D.SEED)
    sp = T.load(os.path.join(args.data, "spm.model"))
    model = Seq2Seq(Config(args.model, sp.get_piece_size(), args.embed, args.hidden, args.dropout)).to(device)
    memory = Memory(args.memory) if args.model == "esed" else None
    train = encode_rows(load_rows(os.path.join(args.data, "reply.train.jsonl"), args.max_train), sp)
    val = encode_rows(load_rows(os.path.join(args.data, "reply.val.jsonl"), args.max_val), sp)
    params = sum(p.numel() for p in model.parameters())
    log(f"reply {args.model}: {params / 1e6:.2f}M params, {len(train)} train / {len(val)} val pairs, device {device}")
    rng = random.Random(D.SEED)  # a resumed run skips the batches it trained on (training.train_loop)
    batches = token_batches(train, lambda x: len(x[0]) + len(x[1]) + 2, args.batch_tokens, rng, 8)
    # Under DDP every rank draws the same batch stream (dist.shard keeps its slice), so the key picks
    # of a rank's own batches must not consume that stream's generator: they get one of their own.
    pick_rng = random.Random(D.SEED + 7919 * (dist.rank() + 1)) if dist.world() > 1 else rng

    def blocks_of(batch, pick):
        if memory is None:
            return None
        # Sec. III-C: a pair reads the block of a key of its REPLY (keys outside the memory were dropped in prepare).
        return torch.stack([memory.block(pick([k for k in x[2]["keys"] if k in memory.index])) for x in batch])

    def validate():
        model.eval()
        tot, n = 0.0, 0
        with torch.no_grad():
            for i in range(0, len(val), 32):
                b = val[i : i + 32]
                nll, k = model.loss([x[0] for x in b], [x[1] for x in b], blocks_of(b, lambda ks: ks[0]), device)
                tot += float(nll) * k
                n += k
        model.train()
        return nll_and_ppl(tot / n)

    def step(batch):
        loss, n = model.loss([x[0] for x in batch], [x[1] for x in batch], blocks_of(batch, pick_rng.choice), device)
        return loss, loss, n

    R.train_loop(
        model,
        batches,
        args,
        device,
        step,
        validate,
        meta={"model": args.model, "params": params},
        optimizer=lambda params, lr: torch.optim.Adam(params, lr=lr),
        schedule=R.constant(args.lr),
        clip=5.0,
        keep_best=True,
        find_unused=None,
        others_leave=False,
    )  # both papers: plain Adam, gradients clipped at norm 5


# ---------------------------------------------------------------------------------------------
# The memory: sentence vectors -> per key, truncated SVD -> k-means -> L representatives
# ---------------------------------------------------------------------------------------------
def kmeans(x, k, rng, iters=25):
    """Lloyd's k-means with k-means++ seeding (numpy, seeded): -> centres [k, d], assignment [n]."""
    centres = [x[rng.integers(len(x))]]
    for _ in range(1, k):
        d2 = np.min(((x[:, None, :] - np.array(centres)[None]) ** 2).sum(-1), 1)
        centres.append(x[rng.choice(len(x), p=d2 / d2.sum())] if d2.sum() > 0 else x[rng.integers(len(x))])
    c = np.array(centres)
    for _ in range(iters):
        assign = ((x[:, None, :] - c[None]) ** 2).sum(-1).argmin(1)
        new = np.array([x[assign == j].mean(0) if (assign == j).any() else c[j] for j in range(k)])
        if np.allclose(new, c):
            break
        c = new
    return c, assign


def representatives(vectors, L, rng, dims=SVD_DIMS):
    """Indices of up to L sentences: the one nearest each k-means centre in the truncated-SVD space."""
    if len(vectors) <= L:
        return list(range(len(vectors)))
    x = vectors - vectors.mean(0)
    u, s, _ = np.linalg.svd(x, full_matrices=False)
    z = u[:, :dims] * s[:dims]  # latent semantic analysis: the first `dims` components
    centres, _ = kmeans(z, L, rng)
    picked = []
    for c in centres:
        order = np.argsort(((z - c) ** 2).sum(1))
        picked.append(next(int(i) for i in order if int(i) not in picked))
    return picked


@torch.no_grad()
def cmd_memory(args):
    device = pick_device(args.device)
    sp = T.load(os.path.join(args.data, "spm.model"))
    model, _ = load_model(args.ckpt)
    model.to(device).eval()
    finder = KeyFinder()
    rows = load_rows(os.path.join(args.data, "reply.train.jsonl"))
    vocab = [k for k in __import__("json").load(open(os.path.join(args.data, "reply.keys.json")))["keys"]]
    wanted = set(vocab)
    # Reply sentences (a reply may hold several), each with its keys.
    from .roundtrip_data import split_sentences

    sents = sorted({s for r in rows for s in split_sentences(r["reply"]) if 2 <= len(s.split()) <= 30})
    groups = {}
    for i, s in enumerate(sents):
        for k in finder.keys(s):
            if k in wanted:
                groups.setdefault(k, []).append(i)
    vecs = np.zeros((len(sents), model.c.memory_dim), dtype=np.float32)
    for i in range(0, len(sents), 256):
        chunk = [sp.encode(s)[:MAX_REPLY] for s in sents[i : i + 256]]
        _, _, summary = model.encode(chunk, device)
        vecs[i : i + len(chunk)] = F.normalize(summary, dim=-1).cpu().numpy()
    keys = [k for k in vocab if len(groups.get(k, [])) >= args.min_sentences]
    rng = np.random.default_rng(D.SEED)
    blocks = np.zeros((len(keys), args.slots, model.c.memory_dim), dtype=np.float32)
    chosen = []
    for j, k in enumerate(keys):
        idx = groups[k]
        pick = representatives(vecs[idx], args.slots, rng)
        blocks[j, : len(pick)] = vecs[[idx[p] for p in pick]]
        chosen.append([sents[idx[p]] for p in pick] + [""] * (args.slots - len(pick)))
    np.savez(
        args.out,
        keys=np.array(keys),
        blocks=blocks,
        counts=np.array([len(groups[k]) for k in keys]),
        sentences=np.array(chosen),
    )
    log(
        f"memory: {len(sents)} reply sentences, {len(keys)} keys with >= {args.min_sentences} sentences, "
        f"blocks {blocks.shape} -> {args.out}"
    )
    for k in keys[:3]:
        log(f"  {k}: {chosen[keys.index(k)][:3]}")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("cmd", choices=["prepare", "train", "memory", "export"])
    p.add_argument("--data", default=".data/reply")
    p.add_argument("--model", choices=MODELS, default="esed")
    p.add_argument("--ckpt", default=None)
    p.add_argument("--memory", default=None, help="esed: the .npz that `memory` wrote")
    p.add_argument("--slots", type=int, default=8, help="L: representatives per key")
    p.add_argument("--min-sentences", type=int, default=16, help="keys with fewer reply sentences get no block")
    R.add_rnn_train_args(p, embed=64, hidden=64, dropout=0.1, batch_tokens=2000, max_val=500, log_every=20)
    p.add_argument("--weights", default=None, help="export: int8 (default) or float32")
    args = p.parse_args()
    if args.cmd == "prepare":
        prepare_reply(args.data)
    elif args.cmd == "train":
        args.out = args.out or f"runs/reply-{args.model}.pt"
        cmd_train(args)
    elif args.cmd == "memory":
        cmd_memory(args)
    else:
        from .export_reply import export

        export(args.ckpt, args.out or "../reply", args.data, args.memory, weights=args.weights)


if __name__ == "__main__":
    main()
