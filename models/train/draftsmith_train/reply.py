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
import torch.nn as nn
import torch.nn.functional as F

from . import data as D
from . import dist
from . import tokenizer as T
from .batching import token_batches
from .reply_data import KeyFinder, load as load_rows, prepare_reply
from . import training as R
from .training import log, nll_and_ppl, pick_device

MODELS = ("nrm", "esed")
BETA = 100.0  # Eq. 12's sharpness: the read is nearly the single best-matching row
SVD_DIMS = 32
MAX_POST, MAX_REPLY = 48, 40


class Config:
    def __init__(self, model="esed", vocab_size=8000, embed=64, hidden=64, dropout=0.1):
        self.model, self.vocab_size, self.embed, self.hidden, self.dropout = model, vocab_size, embed, hidden, dropout

    @property
    def memory_dim(self):
        return 2 * self.hidden

    def to_dict(self):
        return dict(self.__dict__)


def pad(seqs, value=T.PAD):
    n = max(1, max(len(s) for s in seqs))
    return torch.tensor([s + [value] * (n - len(s)) for s in seqs], dtype=torch.long)


class Encoder(nn.Module):
    """Bidirectional GRU over the post: outputs h_i [B, T, 2H] and the summary vector [B, 2H] (the final
    forward state and the backward state at the first token)."""

    def __init__(self, c, embedding):
        super().__init__()
        self.embedding = embedding
        self.gru = nn.GRU(c.embed, c.hidden, batch_first=True, bidirectional=True)

    def forward(self, ids, lengths=None):
        x = self.embedding(ids)
        if lengths is None:  # one post, or all of one length (the exported graph)
            out, h = self.gru(x)
        else:
            packed = nn.utils.rnn.pack_padded_sequence(x, lengths.cpu(), batch_first=True, enforce_sorted=False)
            out, h = self.gru(packed)
            out, _ = nn.utils.rnn.pad_packed_sequence(out, batch_first=True, total_length=ids.size(1))
        return out, torch.cat([h[0], h[1]], -1)


def memory_read(p, block, beta=BETA):
    """Eqs. 11-12: p [B, D] (normalised), block [B, L, D] (normalised rows, zero rows padding) ->
    r [B, D] = Σ_l softmax_l(β pᵀm_l) m_l, and the weights [B, L]. Zero rows never win."""
    scores = beta * torch.einsum("bd,bld->bl", p, block)
    scores = scores.masked_fill(block.abs().sum(-1) == 0, -1e9)
    w = torch.softmax(scores, -1)
    return torch.einsum("bl,bld->bd", w, block), w


class Decoder(nn.Module):
    """GRU decoder with Luong attention over the encoder outputs, r (ESED) appended to each (Eq. 13)."""

    def __init__(self, c, embedding):
        super().__init__()
        self.c = c
        self.embedding = embedding
        ctx = 2 * c.hidden + (c.memory_dim if c.model == "esed" else 0)
        self.gru = nn.GRU(c.embed, c.hidden, batch_first=True)
        self.attn = nn.Linear(ctx, c.hidden, bias=False)  # score(s, h'_i) = sᵀ W_a h'_i
        self.combine = nn.Linear(c.hidden + ctx, c.hidden)
        self.drop = nn.Dropout(c.dropout)
        self.out = nn.Linear(c.hidden, c.vocab_size)

    def forward(self, ids, s0, enc_out, enc_mask, r=None):
        """ids [B, U], s0 [B, H], enc_out [B or 1, T, 2H], enc_mask [B or 1, T], r [B, D] or None ->
        log-probs [B, U, V], final state [B, H], attention [B, U, T]."""
        s, h = self.gru(self.embedding(ids), s0.unsqueeze(0))
        keys = self.attn.weight  # [H, ctx]
        k_enc = enc_out @ keys[:, : enc_out.size(-1)].t()  # [b, T, H]
        scores = torch.einsum("buh,bth->but", s, k_enc.expand(s.size(0), -1, -1))
        if r is not None:  # Eq. 13: h'_i = [h_i; r]; r's part of the score is the same for every i
            scores = scores + torch.einsum("buh,bh->bu", s, r @ keys[:, enc_out.size(-1) :].t()).unsqueeze(-1)
        scores = scores.masked_fill(enc_mask.unsqueeze(1) == 0, -1e9)
        a = torch.softmax(scores, -1)
        ctx = torch.einsum("but,btc->buc", a, enc_out.expand(s.size(0), -1, -1))
        if r is not None:
            ctx = torch.cat([ctx, r.unsqueeze(1).expand(-1, ctx.size(1), -1)], -1)
        o = torch.tanh(self.combine(torch.cat([s, ctx], -1)))
        return F.log_softmax(self.out(self.drop(o)), -1), h[0], a


class Seq2Seq(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.c = c
        self.embedding = nn.Embedding(c.vocab_size, c.embed, padding_idx=T.PAD)
        self.encoder = Encoder(c, self.embedding)
        self.bridge = nn.Linear(2 * c.hidden, c.hidden)  # the decoder's first state from the summary vector
        self.decoder = Decoder(c, self.embedding)
        if c.model == "esed":
            self.query = nn.Linear(2 * c.hidden, c.memory_dim, bias=False)  # p: the post in the memory space

    def encode(self, posts, device):
        ids = pad(posts).to(device)
        lengths = torch.tensor([len(p) for p in posts])
        out, summary = self.encoder(ids, lengths)
        mask = (ids != T.PAD).long()
        return out, mask, summary

    def start(self, summary):
        return torch.tanh(self.bridge(summary))

    def p(self, summary):
        return F.normalize(self.query(summary), dim=-1)

    def loss(self, posts, replies, blocks, device):
        out, mask, summary = self.encode(posts, device)
        r = memory_read(self.p(summary), blocks.to(device))[0] if self.c.model == "esed" else None
        tgt = pad([[T.BOS] + y + [T.EOS] for y in replies]).to(device)
        logp, _, _ = self.decoder(tgt[:, :-1], self.start(summary), out, mask, r)
        nll = F.nll_loss(logp.reshape(-1, logp.size(-1)), tgt[:, 1:].reshape(-1), ignore_index=T.PAD, reduction="sum")
        n = int((tgt[:, 1:] != T.PAD).sum())
        return nll / n, n

    @torch.no_grad()
    def greedy(self, post, device, block=None, max_len=MAX_REPLY):
        out, mask, summary = self.encode([post], device)
        r = memory_read(self.p(summary), block.unsqueeze(0).to(device))[0] if self.c.model == "esed" else None
        s, tok, ids = self.start(summary), T.BOS, []
        for _ in range(max_len):
            logp, s, _ = self.decoder(torch.tensor([[tok]], device=device), s, out, mask, r)
            tok = int(logp[0, -1].argmax())
            if tok == T.EOS:
                break
            ids.append(tok)
        return ids


# ---------------------------------------------------------------------------------------------
# Training
# ---------------------------------------------------------------------------------------------
def load_model(path):
    return R.load_checkpoint(path, lambda config: Seq2Seq(Config(**config)))


def encode_rows(rows, sp):
    return [(sp.encode(r["post"])[-MAX_POST:], sp.encode(r["reply"])[:MAX_REPLY], r) for r in rows]


class Memory:
    """keys [K], blocks [K, L, D] (float32), as `memory` writes them (an .npz)."""

    def __init__(self, path):
        z = np.load(path, allow_pickle=False)
        self.keys = [str(k) for k in z["keys"]]
        self.blocks = torch.from_numpy(z["blocks"].astype(np.float32))
        self.index = {k: i for i, k in enumerate(self.keys)}
        self.counts = z["counts"].tolist()
        self.sentences = z["sentences"].tolist() if "sentences" in z else None

    def block(self, key):
        return self.blocks[self.index[key]]


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
