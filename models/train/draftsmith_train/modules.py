"""Transformer encoder-decoder with TAAS's topic-aware attention and an optional copy mechanism.

Names match the TypeScript inference side (extension/engine/systems/summarize.ts):
NeuralTopicModel, TopicAwareAttention, PointerGenerator.

torch 1.13 on Debian has no F.scaled_dot_product_attention, so attention is written out.
Pre-LayerNorm blocks: they train stably from scratch at this size on a CPU.
"""
import math
from dataclasses import dataclass, asdict

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class ModelConfig:
    vocab_size: int = 8000
    d_model: int = 192
    n_heads: int = 4
    d_ff: int = 768
    encoder_layers: int = 3
    decoder_layers: int = 3
    max_source_positions: int = 512
    max_target_positions: int = 256
    dropout: float = 0.1
    pad_id: int = 0
    # TAAS
    num_topics: int = 10
    bow_vocab_size: int = 2000
    topic_attention: bool = True  # False is the "TAAS without topic-aware attention" ablation
    copy: bool = True  # pointer-generator (See et al. 2017), an allowed addition
    # ProdLDA's batch norm on the NTM's reconstruction logits; without it the shipped taas-small's
    # ten topics collapsed into one word list. Off by default so older checkpoints load as trained.
    ntm_batchnorm: bool = False

    def to_dict(self):
        return asdict(self)


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, n_heads, dropout):
        super().__init__()
        self.h = n_heads
        self.dh = d_model // n_heads
        self.q = nn.Linear(d_model, d_model)
        self.k = nn.Linear(d_model, d_model)
        self.v = nn.Linear(d_model, d_model)
        self.o = nn.Linear(d_model, d_model)
        self.drop = nn.Dropout(dropout)

    def split(self, x):  # [B,T,d] -> [B,H,T,dh]
        b, t, _ = x.shape
        return x.view(b, t, self.h, self.dh).transpose(1, 2)

    def project_kv(self, x):
        return self.split(self.k(x)), self.split(self.v(x))

    def attend(self, q, k, v, bias):
        """q [B,H,Tq,dh], k/v [B,H,Tk,dh], bias broadcastable to [B,H,Tq,Tk] (0 or -inf-ish)."""
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.dh) + bias
        w = torch.softmax(scores, dim=-1)
        out = torch.matmul(self.drop(w), v)
        b, h, tq, dh = out.shape
        return self.o(out.transpose(1, 2).reshape(b, tq, h * dh)), w


def padding_bias(mask):
    """mask [B,T] (1 keep, 0 pad) -> additive bias [B,1,1,T]."""
    return (1.0 - mask.float())[:, None, None, :] * -1e9


def causal_bias(t, device):
    return torch.triu(torch.full((t, t), -1e9, device=device), diagonal=1)[None, None]


class FeedForward(nn.Module):
    def __init__(self, d, d_ff, dropout):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d, d_ff), nn.GELU(), nn.Dropout(dropout), nn.Linear(d_ff, d))

    def forward(self, x):
        return self.net(x)


class EncoderLayer(nn.Module):
    def __init__(self, c: ModelConfig):
        super().__init__()
        self.ln1 = nn.LayerNorm(c.d_model)
        self.attn = MultiHeadAttention(c.d_model, c.n_heads, c.dropout)
        self.ln2 = nn.LayerNorm(c.d_model)
        self.ff = FeedForward(c.d_model, c.d_ff, c.dropout)
        self.drop = nn.Dropout(c.dropout)

    def forward(self, x, bias):
        y = self.ln1(x)
        q = self.attn.split(self.attn.q(y))
        k, v = self.attn.project_kv(y)
        a, _ = self.attn.attend(q, k, v, bias)
        x = x + self.drop(a)
        return x + self.drop(self.ff(self.ln2(x)))


class DecoderLayer(nn.Module):
    def __init__(self, c: ModelConfig):
        super().__init__()
        self.ln1 = nn.LayerNorm(c.d_model)
        self.self_attn = MultiHeadAttention(c.d_model, c.n_heads, c.dropout)
        self.ln2 = nn.LayerNorm(c.d_model)
        self.cross_attn = MultiHeadAttention(c.d_model, c.n_heads, c.dropout)
        self.ln3 = nn.LayerNorm(c.d_model)
        self.ff = FeedForward(c.d_model, c.d_ff, c.dropout)
        self.drop = nn.Dropout(c.dropout)

    def forward(self, x, self_bias, cross_k, cross_v, cross_bias, past_k=None, past_v=None):
        y = self.ln1(x)
        q = self.self_attn.split(self.self_attn.q(y))
        k, v = self.self_attn.project_kv(y)
        if past_k is not None:
            k = torch.cat([past_k, k], dim=2)
            v = torch.cat([past_v, v], dim=2)
        a, _ = self.self_attn.attend(q, k, v, self_bias)
        x = x + self.drop(a)
        y = self.ln2(x)
        q = self.cross_attn.split(self.cross_attn.q(y))
        c, cw = self.cross_attn.attend(q, cross_k, cross_v, cross_bias)
        x = x + self.drop(c)
        x = x + self.drop(self.ff(self.ln3(x)))
        return x, k, v, cw, c


class NeuralTopicModel(nn.Module):
    """VAE over a document's bag of words (Miao et al. / ProdLDA style, TAAS Eqs. 1-6).

    The topic-word matrix beta [K, V_bow] is the decoder's weight; softmax(beta) rows are topics.
    """

    def __init__(self, bow_vocab, num_topics, hidden=256, batchnorm=False):
        super().__init__()
        self.bn = nn.BatchNorm1d(bow_vocab, affine=False) if batchnorm else None
        self.enc = nn.Sequential(nn.Linear(bow_vocab, hidden), nn.Softplus(), nn.Linear(hidden, hidden), nn.Softplus())
        self.mu = nn.Linear(hidden, num_topics)
        self.logvar = nn.Linear(hidden, num_topics)
        self.beta = nn.Parameter(torch.randn(num_topics, bow_vocab) * 0.02)
        self.drop = nn.Dropout(0.2)

    def topic_word(self):
        return torch.softmax(self.beta, dim=-1)

    def forward(self, bow):
        hdn = self.drop(self.enc(bow))
        mu, logvar = self.mu(hdn), self.logvar(hdn)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar) if self.training else mu
        theta = torch.softmax(z, dim=-1)
        logits = theta @ self.beta
        log_recon = torch.log_softmax(self.bn(logits) if self.bn is not None else logits, dim=-1)
        nll = -(bow * log_recon).sum(-1)
        kld = -0.5 * (1 + logvar - mu.pow(2) - logvar.exp()).sum(-1)
        return theta, (nll + kld).mean()


class TopicAwareAttention(nn.Module):
    """TAAS Eqs. 7-12.

    P = FFN(beta) + LayerNorm(softmax(FFN(beta)))         (Eqs. 7-8: topic embeddings, [K, d])
    a = h P^T                                             (Eq. 9:  [B, T, K])
    a_bar = mean_k a                                      (Eq. 10)
    alpha = softmax_t(a_bar)                              (Eq. 11: attention over source tokens)
    s = alpha^T h                                         (Eq. 12: topic-aware representation)
    """

    def __init__(self, bow_vocab, d_model):
        super().__init__()
        self.ffn = nn.Sequential(nn.Linear(bow_vocab, d_model), nn.ReLU(), nn.Linear(d_model, d_model))
        self.ln = nn.LayerNorm(d_model)

    def topic_embeddings(self, beta):
        f = self.ffn(beta)
        return f + self.ln(torch.softmax(f, dim=-1))

    def forward(self, h, mask, P):
        a = torch.matmul(h, P.t())  # [B,T,K]
        a_bar = a.mean(dim=-1)  # [B,T]
        a_bar = a_bar + (1.0 - mask.float()) * -1e9
        alpha = torch.softmax(a_bar, dim=-1)
        s = torch.bmm(alpha.unsqueeze(1), h).squeeze(1)  # [B,d]
        return alpha, s, a.transpose(1, 2)  # per-topic token scores [B,K,T]


class PointerGenerator(nn.Module):
    """p_gen = sigmoid(w . [o_t; c_t; x_t]); P(w) = p_gen P_vocab + (1 - p_gen) sum_{i: x_i = w} a_i
    (See et al. 2017, Eq. 9).

    copy_op picks how sum_{i: x_i = w} a_i is computed; both give the same distribution.
    "scatter" adds each source position's weight into its vocabulary slot (ONNX ScatterElements,
    opset 16): O(T) per step. "onehot" multiplies by a [T, V] one-hot matrix built at every step
    (10 MB at 320 source tokens): what the models exported before that change do, kept so that a peer
    export (export_peer.py) can match such a graph op for op.
    """

    copy_op = "scatter"

    def __init__(self, d_model):
        super().__init__()
        self.gate = nn.Linear(3 * d_model, 1)

    def forward(self, out, context, emb, vocab_logp, copy_attn, src):
        """copy_attn [B,Tq,T]; src [B or 1, T] the source token ids (one row may serve every beam)."""
        p_gen = torch.sigmoid(self.gate(torch.cat([out, context, emb], dim=-1)))  # [B,Tq,1]
        b, tq, t = copy_attn.shape
        vocab = vocab_logp.shape[-1]
        if self.copy_op == "onehot":
            copy_p = torch.bmm(copy_attn, F.one_hot(src, vocab).to(copy_attn.dtype))
        else:
            index = src[:, None, :].expand(b, tq, t)
            copy_p = torch.zeros_like(vocab_logp).scatter_add(2, index, copy_attn)  # [B,Tq,V]
        p = p_gen * vocab_logp.exp() + (1 - p_gen) * copy_p
        return torch.log(p + 1e-9), p_gen.squeeze(-1)


class TopicAwareSummarizer(nn.Module):
    """Encoder-decoder Transformer (BART-like, pretrained by denoising) with TAAS's topic-aware attention.

    The topic-aware representation s joins the encoder memory as one extra slot in front of the
    token states, so every decoder layer's cross-attention can read it (Eq. 13: s feeds the decoder).
    """

    def __init__(self, c: ModelConfig):
        super().__init__()
        self.c = c
        self.embed = nn.Embedding(c.vocab_size, c.d_model, padding_idx=c.pad_id)
        self.src_pos = nn.Embedding(c.max_source_positions, c.d_model)
        self.tgt_pos = nn.Embedding(c.max_target_positions, c.d_model)
        self.encoder = nn.ModuleList([EncoderLayer(c) for _ in range(c.encoder_layers)])
        self.enc_ln = nn.LayerNorm(c.d_model)
        self.decoder = nn.ModuleList([DecoderLayer(c) for _ in range(c.decoder_layers)])
        self.dec_ln = nn.LayerNorm(c.d_model)
        self.ntm = NeuralTopicModel(c.bow_vocab_size, c.num_topics, batchnorm=c.ntm_batchnorm)
        self.topic_attention = TopicAwareAttention(c.bow_vocab_size, c.d_model)
        self.pointer = PointerGenerator(c.d_model)
        self.drop = nn.Dropout(c.dropout)
        self.scale = math.sqrt(c.d_model)
        # Tied input/output embedding: N(0, d^-1/2) keeps output logits near unit scale (Vaswani et al.).
        nn.init.normal_(self.embed.weight, 0.0, c.d_model**-0.5)
        nn.init.normal_(self.src_pos.weight, 0.0, 0.02)
        nn.init.normal_(self.tgt_pos.weight, 0.0, 0.02)
        with torch.no_grad():
            self.embed.weight[c.pad_id].zero_()

    # ---- encoder side -------------------------------------------------------------------------
    def encode(self, src, src_mask):
        t = src.shape[1]
        pos = torch.arange(t, device=src.device)[None]
        x = self.drop(self.embed(src) * self.scale + self.src_pos(pos))
        bias = padding_bias(src_mask)
        for layer in self.encoder:
            x = layer(x, bias)
        return self.enc_ln(x)

    def topic_memory(self, h, src_mask):
        """Returns (memory [B,T+1,d], memory_mask [B,T+1], alpha [B,T], topic_scores [B,K,T])."""
        P = self.topic_attention.topic_embeddings(self.ntm.topic_word())
        alpha, s, scores = self.topic_attention(h, src_mask, P)
        slot_mask = torch.ones_like(src_mask[:, :1]) if self.c.topic_attention else torch.zeros_like(src_mask[:, :1])
        if not self.c.topic_attention:
            s = torch.zeros_like(s)
        memory = torch.cat([s.unsqueeze(1), h], dim=1)
        memory_mask = torch.cat([slot_mask, src_mask], dim=1)
        return memory, memory_mask, alpha, scores

    def cross_key_values(self, memory):
        """[L, 2, B, H, T+1, dh]: computed once per source, reused at every decoding step."""
        kvs = []
        for layer in self.decoder:
            k, v = layer.cross_attn.project_kv(memory)
            kvs.append(torch.stack([k, v]))
        return torch.stack(kvs)

    # ---- decoder side -------------------------------------------------------------------------
    def decode_step(self, tgt, start_pos, cross_kv, memory_mask, src, past=None):
        """tgt [B,Tq]; past [L,2,B,H,Tp,dh] or None. Returns log-probs [B,Tq,V], present, copy attention."""
        n = len(self.decoder)
        cross = [(cross_kv[i, 0], cross_kv[i, 1]) for i in range(n)]
        pasts = None if past is None else [(past[i, 0], past[i, 1]) for i in range(n)]
        logp, presents, attn = self.decode_layers(tgt, start_pos, cross, memory_mask, src, pasts)
        return logp, torch.stack([torch.stack(kv) for kv in presents]), attn

    def decode_layers(self, tgt, start_pos, cross, memory_mask, src, past=None):
        """decode_step with the caches as one (key, value) pair per layer, [B,H,T,dh] each, as
        transformers.js lays them out (export_peer.py). Returns log-probs, [(key, value)] per layer, copy attention."""
        b, tq = tgt.shape
        pos = (torch.arange(tq, device=tgt.device) + start_pos)[None]
        emb = self.embed(tgt) * self.scale
        x = self.drop(emb + self.tgt_pos(pos))
        tp = 0 if past is None else past[0][0].shape[2]
        self_bias = torch.cat([torch.zeros(1, 1, tq, tp, device=tgt.device), causal_bias(tq, tgt.device)], dim=-1)
        cross_bias = padding_bias(memory_mask)
        presents, cw, context = [], None, None
        for i, layer in enumerate(self.decoder):
            pk, pv = (None, None) if past is None else past[i]
            x, k, v, cw, context = layer(x, self_bias, cross[i][0], cross[i][1], cross_bias, pk, pv)
            presents.append((k, v))
        out = self.dec_ln(x)
        # Tied output embedding. einsum, not matmul with .t(): the exporter would fold the transpose into
        # a second 8000 x d copy of the embedding in decoder.onnx.
        vocab_logits = torch.einsum("btd,vd->btv", out, self.embed.weight)
        vocab_logp = torch.log_softmax(vocab_logits, dim=-1)
        attn = cw.mean(dim=1)  # last layer, heads averaged [B,Tq,T+1]
        if self.c.copy:
            copy_attn = attn[:, :, 1:]  # copy only from source tokens, not the topic slot
            copy_attn = copy_attn / (copy_attn.sum(-1, keepdim=True) + 1e-9)
            logp, _ = self.pointer(out, context, emb, vocab_logp, copy_attn, src)
        else:
            logp = vocab_logp
        return logp, presents, attn

    def forward(self, src, src_mask, tgt_in, bow=None):
        h = self.encode(src, src_mask)
        memory, memory_mask, alpha, _ = self.topic_memory(h, src_mask)
        cross_kv = self.cross_key_values(memory)
        logp, _, _ = self.decode_step(tgt_in, 0, cross_kv, memory_mask, src)
        ntm_loss = None
        if bow is not None and self.c.topic_attention:
            _, ntm_loss = self.ntm(bow)
        return logp, ntm_loss, alpha


def label_smoothed_nll(logp, target, eps, pad_id):
    """Label-smoothed cross entropy on log-probabilities (which may be a copy mixture)."""
    mask = (target != pad_id).float()
    nll = -logp.gather(-1, target.unsqueeze(-1)).squeeze(-1)
    smooth = -logp.mean(dim=-1)
    loss = (1 - eps) * nll + eps * smooth
    return (loss * mask).sum() / mask.sum(), (nll * mask).sum() / mask.sum()


def load_summarizer(path, **overrides):
    """(model, meta, missing weights) from a summarize checkpoint; overrides replace its config's fields."""
    ck = torch.load(path, map_location="cpu")
    cfg = ModelConfig(**{**ck["config"], **overrides})
    m = TopicAwareSummarizer(cfg)
    missing, unexpected = m.load_state_dict(ck["state"], strict=False)
    return m, ck.get("meta", {}), missing
