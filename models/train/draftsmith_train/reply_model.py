"""Suggest Replies' models (ESED and its NRM baseline: one Seq2Seq, `esed` switches the memory on),
the memory read of Eqs. 11-12, the memory file as `reply memory` writes it, and a checkpoint loader.
reply.py trains them and builds the memory, export_reply.py exports them; the TypeScript side
(extension/engine/systems/reply.ts) runs the same parts under the same names.
"""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from . import tokenizer as T
from . import training as R


MODELS = ("nrm", "esed")


BETA = 100.0  # Eq. 12's sharpness: the read is nearly the single best-matching row


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


def load_model(path):
    return R.load_checkpoint(path, lambda config: Seq2Seq(Config(**config)))


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
