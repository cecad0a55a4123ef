"""PC-SAN (Lin et al. 2020, "Pretraining-Based Contextual Self-Attention Model for Topic Essay
Generation"): the topic words, joined into one input, go through a pretrained bidirectional
encoder; every decoder layer reads its own softmax-weighted sum of ALL encoder layers (Eq. 2),
concatenated with word vectors of the topics; the decoder's self-attention queries also see the
target-side history (Eqs. 8-12).

Names match the TypeScript side (extension/engine/systems/essay.ts): DynamicWeightedSum,
ContextualSelfAttention, EssayGenerator.

The pretrained encoder stands for the paper's BERT, which is not available offline. Two kinds:
  encoder="own"       the denoising encoder-decoder pretrained by the summarization recipe
                      (summarize.py pretrain; it is also a good start for the decoder);
  encoder="backbone"  the blocks of the shared GPT-2 backbone (backbone.py, causal_lm.py): its token
                      and position embeddings, its N layers (so N+1 states for Eq. 2) and its final
                      LayerNorm. They run left to right, as they were pretrained; the decoder reads
                      every position's state through attention, so the last one has seen every topic.
The word vectors are fastText skip-gram vectors (Debian's fasttext).

A pointer-generator copy over the topic subwords (See et al. 2017, as in the summarizer) is an
addition to the paper: at this model size the decoder alone rarely spells the topic words out, and
covering them is the point of the task. copy=False trains the paper's plain decoder.

Ablations (paper Tables 4 and 5), as config values:
  layer_mix  "dynamic" (PC-SAN), "static" (one weight vector shared by all decoder layers),
             "last" (the last encoder layer only), "none" (no pretrained encoder: word vectors only)
  context    "target" (PC-SAN: running mean of the previous target positions),
             "none" (a plain self-attention decoder), "source" (the mean of the encoded topics)
"""
import math
import re
from dataclasses import asdict, dataclass

import torch
import torch.nn as nn

from .causal_lm import Block, GPT2Config
from .modules import EncoderLayer, FeedForward, MultiHeadAttention, PointerGenerator, causal_bias, padding_bias


@dataclass
class EssayConfig:
    vocab_size: int = 8000
    d_model: int = 192
    n_heads: int = 4
    d_ff: int = 768
    encoder_layers: int = 3
    decoder_layers: int = 3
    max_source_positions: int = 512  # as pretrained; topic inputs are short
    max_target_positions: int = 256
    dropout: float = 0.1
    pad_id: int = 0
    word_vocab_size: int = 1  # fastText vocabulary + 1 (index 0: not a known word)
    word_dim: int = 64
    layer_mix: str = "dynamic"
    context: str = "target"
    copy: bool = True
    encoder: str = "own"  # "own" (EncoderLayer) or "backbone" (causal_lm.Block, the GPT-2 backbone's)
    backbone: dict | None = None  # the backbone's GPT2Config when encoder == "backbone"

    def to_dict(self):
        return asdict(self)


class DynamicWeightedSum(nn.Module):
    """Eq. 2: for decoder layer l, u_l = γ_l Σ_j softmax(w_l)_j H_j over the encoder's layer outputs
    H_0 (embeddings) .. H_N. "static" shares one w (and γ) across decoder layers; "last" uses H_N."""

    def __init__(self, decoder_layers, encoder_states, mode):
        super().__init__()
        self.mode = mode
        rows = 1 if mode == "static" else decoder_layers
        self.decoder_layers = decoder_layers
        self.w = nn.Parameter(torch.zeros(rows, encoder_states))
        self.gamma = nn.Parameter(torch.ones(rows))

    def weights(self):
        """[decoder_layers, encoder_states]: what the insights panel shows (the paper's Figure 3)."""
        if self.mode == "last":
            w = torch.zeros_like(self.w[:1])
            w[:, -1] = 1.0
        else:
            w = torch.softmax(self.w, dim=-1)
        return w.expand(self.decoder_layers, -1)

    def forward(self, states):
        """states [S, B, T, d] -> [L, B, T, d]."""
        w = self.weights()
        gamma = (
            self.gamma.expand(self.decoder_layers)
            if self.mode != "last"
            else torch.ones(self.decoder_layers, device=w.device)
        )
        return gamma[:, None, None, None] * torch.einsum("ls,sbtd->lbtd", w, states)


class ContextualSelfAttention(nn.Module):
    """Masked self-attention whose queries receive the target-side history (Eqs. 8-12, after Yang
    et al. 2019's context-aware SANs): c_t = mean_{i<t} y_i (0 at t = 0), projected to C_t = W_c c_t,
    gated by λ_t = σ(v_q·Q_t + v_c·C_t), and Q̂_t = (1 − λ_t) Q_t + λ_t C_t."""

    def __init__(self, d_model, n_heads, dropout, context):
        super().__init__()
        self.attn = MultiHeadAttention(d_model, n_heads, dropout)
        self.context = context
        if context != "none":
            self.wc = nn.Linear(d_model, d_model, bias=False)
            self.vq = nn.Linear(d_model, 1, bias=False)
            self.vc = nn.Linear(d_model, 1, bias=True)

    def history(self, y, past_sum, past_len):
        """Mean of the layer inputs before each position: y [B,Tq,d]; past_sum [B,d] over past_len earlier positions."""
        csum = torch.cumsum(y, dim=1) - y + past_sum[:, None, :]  # Σ_{i<t}
        count = torch.arange(y.shape[1], device=y.device, dtype=y.dtype)[None, :, None] + past_len
        return csum / torch.clamp(count, min=1.0)

    def forward(self, y, bias, past_k=None, past_v=None, past_sum=None, past_len=0, source_context=None):
        q = self.attn.q(y)
        if self.context != "none":
            if self.context == "target":
                c = self.history(y, past_sum if past_sum is not None else torch.zeros_like(y[:, 0]), past_len)
            else:  # "source": the same context at every position
                c = source_context[:, None, :].expand_as(y)
            C = self.wc(c)
            lam = torch.sigmoid(self.vq(q) + self.vc(C))  # Eq. 11
            q = (1 - lam) * q + lam * C  # Eq. 12
        q = self.attn.split(q)
        k, v = self.attn.project_kv(y)
        if past_k is not None:
            k = torch.cat([past_k, k], dim=2)
            v = torch.cat([past_v, v], dim=2)
        a, _ = self.attn.attend(q, k, v, bias)
        return a, k, v


class EssayDecoderLayer(nn.Module):
    def __init__(self, c: EssayConfig):
        super().__init__()
        self.ln1 = nn.LayerNorm(c.d_model)
        self.self_attn = ContextualSelfAttention(c.d_model, c.n_heads, c.dropout, c.context)
        self.ln2 = nn.LayerNorm(c.d_model)
        self.cross_attn = MultiHeadAttention(c.d_model, c.n_heads, c.dropout)
        self.ln3 = nn.LayerNorm(c.d_model)
        self.ff = FeedForward(c.d_model, c.d_ff, c.dropout)
        self.drop = nn.Dropout(c.dropout)

    def forward(self, x, self_bias, cross_k, cross_v, cross_bias, past_k, past_v, past_sum, past_len, source_context):
        y = self.ln1(x)
        a, k, v = self.self_attn(y, self_bias, past_k, past_v, past_sum, past_len, source_context)
        new_sum = (past_sum if past_sum is not None else torch.zeros_like(y[:, 0])) + y.sum(dim=1)
        x = x + self.drop(a)
        q = self.cross_attn.split(self.cross_attn.q(self.ln2(x)))
        c, cw = self.cross_attn.attend(q, cross_k, cross_v, cross_bias)
        x = x + self.drop(c)
        x = x + self.drop(self.ff(self.ln3(x)))
        return x, k, v, new_sum, cw, c


def init_from_backbone(model, backbone):
    """The backbone's weights (a causal_lm.GPT2) into an encoder="backbone" model, under the names this
    model gives them: wte -> embed (the decoder's input and output embedding too), wpe -> src_pos and,
    cut to the target length, tgt_pos; h.i -> encoder.i; ln_f -> enc_ln. The rest starts fresh."""
    mapped = {}
    for k, v in backbone.state_dict().items():
        k = k.removeprefix("transformer.")
        if k == "wpe.weight":
            mapped["src_pos.weight"] = v
            mapped["tgt_pos.weight"] = v[: model.c.max_target_positions]
        else:
            mapped[re.sub(r"^h\.", "encoder.", k.replace("wte.", "embed.").replace("ln_f.", "enc_ln."))] = v
    own = model.state_dict()
    wrong = [k for k, v in mapped.items() if k not in own or own[k].shape != v.shape]
    assert not wrong, f"backbone tensors with no place in the essay model: {wrong}"
    model.load_state_dict(mapped, strict=False)
    return len(mapped)


class EssayGenerator(nn.Module):
    def __init__(self, c: EssayConfig):
        super().__init__()
        self.c = c
        self.embed = nn.Embedding(c.vocab_size, c.d_model, padding_idx=c.pad_id)
        self.src_pos = nn.Embedding(c.max_source_positions, c.d_model)
        self.tgt_pos = nn.Embedding(c.max_target_positions, c.d_model)
        if c.encoder == "backbone":
            bb = GPT2Config(**{**c.backbone, "dropout": c.dropout})
            assert (bb.n_embd, bb.n_layer, bb.n_positions) == (
                c.d_model,
                c.encoder_layers,
                c.max_source_positions,
            ), "the essay config must take the backbone's width, depth and positions"
            self.encoder = nn.ModuleList([Block(bb) for _ in range(c.encoder_layers)])
        else:
            self.encoder = nn.ModuleList([EncoderLayer(c) for _ in range(c.encoder_layers)])
        self.enc_ln = nn.LayerNorm(c.d_model)
        self.layer_mix = DynamicWeightedSum(c.decoder_layers, c.encoder_layers + 1, c.layer_mix)
        self.mix_ln = nn.LayerNorm(c.d_model)
        # Topic word vectors (fastText), frozen: they stand for the paper's GloVe.
        self.word_vectors = nn.Embedding(c.word_vocab_size, c.word_dim, padding_idx=0)
        self.word_vectors.weight.requires_grad_(False)
        self.memory_proj = nn.Linear(c.d_model + c.word_dim, c.d_model)  # [u_l ; e_w] -> memory
        self.decoder = nn.ModuleList([EssayDecoderLayer(c) for _ in range(c.decoder_layers)])
        self.dec_ln = nn.LayerNorm(c.d_model)
        if c.copy:
            self.pointer = PointerGenerator(c.d_model)
        self.drop = nn.Dropout(c.dropout)
        # GPT-2 adds its token and position embeddings unscaled; the own encoder scales as Vaswani et al.
        self.scale = 1.0 if c.encoder == "backbone" else math.sqrt(c.d_model)
        nn.init.normal_(self.embed.weight, 0.0, c.d_model**-0.5)
        nn.init.normal_(self.src_pos.weight, 0.0, 0.02)
        nn.init.normal_(self.tgt_pos.weight, 0.0, 0.02)

    # ---- encoder side -------------------------------------------------------------------------
    def encoder_states(self, src, src_mask):
        """[S = N+1, B, T, d]: the embedding output and every encoder layer's output (the last normalised)."""
        pos = torch.arange(src.shape[1], device=src.device)[None]
        x = self.drop(self.embed(src) * self.scale + self.src_pos(pos))
        bias = padding_bias(src_mask)
        if self.c.encoder == "backbone":
            bias = bias + causal_bias(src.shape[1], src.device)
        states = [x]
        for i, layer in enumerate(self.encoder):
            x = layer(x, bias)[0] if self.c.encoder == "backbone" else layer(x, bias)
            states.append(self.enc_ln(x) if i == len(self.encoder) - 1 else x)
        return torch.stack(states)

    def memories(self, src, src_mask, word_ids):
        """Per decoder layer, the cross-attention memory [L, B, T, d], and the source context [B, d]."""
        words = self.word_vectors(word_ids)  # [B,T,w]
        if self.c.layer_mix == "none":
            mixed = torch.zeros(self.c.decoder_layers, *src.shape, self.c.d_model, device=src.device)
        else:
            mixed = self.mix_ln(self.layer_mix(self.encoder_states(src, src_mask)))
        words_l = words[None].expand(self.c.decoder_layers, -1, -1, -1)
        memory = self.memory_proj(torch.cat([mixed, words_l], dim=-1))
        m = src_mask.float()[None, :, :, None]
        source_context = (memory[-1] * m[0]).sum(1) / m[0].sum(1).clamp(min=1.0)
        return memory, source_context

    def cross_key_values(self, memory):
        """[L, 2, B, H, T, dh], once per input, reused at every step and by every beam."""
        return torch.stack(
            [torch.stack(layer.cross_attn.project_kv(memory[i])) for i, layer in enumerate(self.decoder)]
        )

    # ---- decoder side -------------------------------------------------------------------------
    def decode_step(self, tgt, cross_kv, memory_mask, source_context, past=None, past_sum=None, src=None):
        """tgt [B,Tq]; past [L,2,B,H,Tp,dh]; past_sum [L,B,d] (Σ of each layer's inputs so far);
        src [B,T] the topic ids (copy only). Returns log-probs [B,Tq,V], present, present_sum."""
        n = len(self.decoder)
        cross = [(cross_kv[i, 0], cross_kv[i, 1]) for i in range(n)]
        pasts = None if past is None else [(past[i, 0], past[i, 1]) for i in range(n)]
        logp, presents, sums = self.decode_layers(tgt, cross, memory_mask, source_context, pasts, past_sum, src)
        return logp, torch.stack([torch.stack(kv) for kv in presents]), sums

    def decode_layers(self, tgt, cross, memory_mask, source_context, past=None, past_sum=None, src=None):
        """decode_step with the caches as one (key, value) pair per layer, [B,H,T,dh] each (the
        exported decoder's inputs). Returns log-probs, [(key, value)] per layer, present_sum [L,B,d]."""
        b, tq = tgt.shape
        tp = 0 if past is None else past[0][0].shape[2]
        pos = (torch.arange(tq, device=tgt.device) + tp)[None]
        emb = self.embed(tgt) * self.scale
        x = self.drop(emb + self.tgt_pos(pos))
        self_bias = torch.cat([torch.zeros(1, 1, tq, tp, device=tgt.device), causal_bias(tq, tgt.device)], dim=-1)
        cross_bias = padding_bias(memory_mask)
        presents, sums, cw, context = [], [], None, None
        for i, layer in enumerate(self.decoder):
            pk, pv = (None, None) if past is None else past[i]
            ps = None if past_sum is None else past_sum[i]
            x, k, v, s, cw, context = layer(
                x, self_bias, cross[i][0], cross[i][1], cross_bias, pk, pv, ps, tp, source_context
            )
            presents.append((k, v))
            sums.append(s)
        out = self.dec_ln(x)
        logits = torch.einsum("btd,vd->btv", out, self.embed.weight)  # tied output embedding
        logp = torch.log_softmax(logits, dim=-1)
        if self.c.copy:
            # The last layer's cross-attention, heads averaged, is the copy distribution over topic subwords.
            logp, _ = self.pointer(out, context, emb, logp, cw.mean(dim=1), src)
        return logp, presents, torch.stack(sums)

    def forward(self, src, src_mask, word_ids, tgt_in):
        memory, source_context = self.memories(src, src_mask, word_ids)
        logp, _, _ = self.decode_step(tgt_in, self.cross_key_values(memory), src_mask, source_context, src=src)
        return logp
