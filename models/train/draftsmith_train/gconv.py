"""The story system's networks (Fan, Lewis & Dauphin 2018, "Hierarchical Neural Story Generation"):

  GatedConvDecoder              causal gated convolutions (GLU, Dauphin et al. 2017), each layer with
                                attention over the encoder (Gehring et al. 2017) and the paper's gated
                                multi-scale self-attention (section 3.3). Without an encoder it is the
                                GCNN language model (+ self-attention) that writes premises (section 3.1).
  ConvEncoder                   gated convolutions over the prompt (Gehring et al. 2017, section 3.2)
  ConvSeq2seq                   encoder + decoder: the story model (section 3.2)
  StoryLM                       the decoder alone: the premise model, and the "LM" baseline of Table 2
  GatedMultiScaleSelfAttention  section 3.3
  FusedStoryModel               section 3.4: a second seq2seq trained on top of a frozen pretrained one

Names match the TypeScript side (extension/engine/systems/story.ts).

Every decoder runs one code path for training and for step-wise generation: a causal convolution
reads its last k-1 inputs from a state (zeros at the start, which is the left zero padding of
training), and self-attention reads the keys/values of the earlier positions from a state. So
decode() over a whole target and decode() one token at a time give the same numbers, and the ONNX
step graph is the training graph with T = 1.

torch 1.13 on Debian has no scaled_dot_product_attention: attention is written out.
"""
import math
from dataclasses import asdict, dataclass, field

import torch
import torch.nn as nn
import torch.nn.functional as F

SQRT_HALF = math.sqrt(0.5)
NEG = -1e9


@dataclass
class StoryConfig:
    vocab_size: int = 8000
    embed_dim: int = 128  # tied: encoder input, decoder input and output embedding
    hidden: int = 192  # width of every convolution
    encoder_layers: int = 3
    encoder_kernel: int = 3  # odd: centred, non-causal
    decoder_layers: int = 4
    decoder_kernel: int = 4  # causal: sees the current and k-1 earlier positions
    encoder_attention: bool = True  # False: a decoder-only language model (GCNN LM)
    self_attention: bool = True  # False: the plain Conv seq2seq of Table 2
    self_attention_layers: int = 0  # 0: every decoder layer; n: the top n layers only
    attention_heads: int = 4
    attention_dim: int = 128  # over all heads
    gated_attention: bool = True  # queries/keys/values from GLU-gated networks (False: one linear map)
    multiscale: bool = True  # head h sees the past downsampled by factor h (False: all heads factor 1)
    attend_zero: bool = True  # an always-present zero key/value: "attend to nothing"
    max_source_positions: int = 256
    max_target_positions: int = 512
    dropout: float = 0.1
    pad_id: int = 0

    def to_dict(self):
        return asdict(self)

    def self_attention_flags(self):
        """Which decoder layers carry self-attention."""
        if not self.self_attention:
            return [False] * self.decoder_layers
        n = self.self_attention_layers or self.decoder_layers
        return [i >= self.decoder_layers - n for i in range(self.decoder_layers)]

    def downsampling(self):
        """Head h (1-based) sees the past downsampled by factor h (section 3.3)."""
        return [h + 1 if self.multiscale else 1 for h in range(self.attention_heads)]


def linear(i, o, dropout=0.0):
    """Gehring et al. 2017 (section 3.5): N(0, sqrt((1 - p) / n_in)) keeps variance through GLU + dropout."""
    m = nn.Linear(i, o)
    nn.init.normal_(m.weight, 0, math.sqrt((1 - dropout) / i))
    nn.init.zeros_(m.bias)
    return m


def conv_weight(i, o, k, dropout):
    """Gehring et al. 2017: N(0, sqrt(4 (1 - p) / (k n_in))) for a convolution feeding a GLU."""
    w = nn.Parameter(torch.empty(o, i, k))
    nn.init.normal_(w, 0, math.sqrt(4 * (1 - dropout) / (k * i)))
    return w


def tied_logits(h, embedding):
    """Output logits with the tied embedding. In ONNX an einsum, not a matmul with .t(): the exporter
    would otherwise store a transposed second copy of the embedding (a tied weight is exported twice
    otherwise); in training F.linear, whose matrix product is ~2x faster than einsum's batched one on a CPU."""
    if torch.onnx.is_in_onnx_export():
        return torch.einsum("bte,ve->btv", h, embedding)
    return F.linear(h, embedding)


class GatedConv(nn.Module):
    """A convolution to 2C channels followed by a GLU (Dauphin et al. 2017, Eq. 1: h = (X*W + b) ⊗ σ(X*V + c)).

    Causal: the input at step t is the window [state (k-1 earlier inputs); x_t]; the state starts at
    zeros, which equals left zero-padding by k-1 during training. forward returns the new state
    (the last k-1 inputs), so generation can go one token at a time."""

    def __init__(self, channels, kernel, dropout, causal):
        super().__init__()
        self.kernel, self.causal = kernel, causal
        self.weight = conv_weight(channels, 2 * channels, kernel, dropout)
        self.bias = nn.Parameter(torch.zeros(2 * channels))

    def forward(self, x, state=None):
        """x [B,T,C]; state [B,k-1,C] (causal only) -> (GLU output [B,T,C], new state)."""
        if self.causal:
            window = torch.cat([state, x], dim=1)
            y = F.conv1d(window.transpose(1, 2), self.weight, self.bias)
            new_state = window[:, window.shape[1] - (self.kernel - 1) :]
        else:
            y = F.conv1d(x.transpose(1, 2), self.weight, self.bias, padding=self.kernel // 2)
            new_state = None
        return F.glu(y.transpose(1, 2), dim=-1), new_state


class ConvEncoder(nn.Module):
    """Gehring et al. 2017 section 3.2: e = word + position embedding; gated convolutions with
    residual connections scaled by sqrt(0.5); output z (attention keys) and z + e (values)."""

    def __init__(self, c: StoryConfig):
        super().__init__()
        self.pos = nn.Embedding(c.max_source_positions, c.embed_dim)
        nn.init.normal_(self.pos.weight, 0, 0.1)
        self.inp = linear(c.embed_dim, c.hidden, c.dropout)
        self.convs = nn.ModuleList(
            [GatedConv(c.hidden, c.encoder_kernel, c.dropout, causal=False) for _ in range(c.encoder_layers)]
        )
        self.out = linear(c.hidden, c.embed_dim)
        self.drop = nn.Dropout(c.dropout)

    def forward(self, src, mask, embed):
        """src, mask [B,S] -> keys z [B,S,E], values (z + e) sqrt(0.5) [B,S,E]."""
        pos = torch.arange(src.shape[1], device=src.device)[None]
        e = self.drop(embed(src) + self.pos(pos))
        keep = mask.unsqueeze(-1).to(e.dtype)
        x = self.inp(e)
        for conv in self.convs:
            residual = x
            x = x * keep  # padding must not leak into the neighbours' windows
            x, _ = conv(self.drop(x))
            x = (x + residual) * SQRT_HALF  # residual scaled by sqrt(0.5) (Gehring et al. 3.5)
        z = self.out(x) * keep
        return z, (z + e) * SQRT_HALF * keep


class EncoderAttention(nn.Module):
    """Gehring et al. 2017 section 3.3, in every decoder layer: d = (W h + b + g) sqrt(0.5) with g the
    target embedding; a = softmax(d · z); c = Σ a (z + e), scaled by m sqrt(1/m) for m source tokens."""

    def __init__(self, c: StoryConfig):
        super().__init__()
        self.inp = linear(c.hidden, c.embed_dim)
        self.out = linear(c.embed_dim, c.hidden)

    def forward(self, x, target_embedding, keys, values, mask):
        d = (self.inp(x) + target_embedding) * SQRT_HALF
        scores = torch.matmul(d, keys.transpose(1, 2)) + (1.0 - mask.to(d.dtype))[:, None, :] * NEG
        a = torch.softmax(scores, dim=-1)
        ctx = torch.matmul(a, values) * torch.sqrt(mask.to(d.dtype).sum(-1))[:, None, None]
        return (x + self.out(ctx)) * SQRT_HALF, a


class GatedNet(nn.Module):
    """The small GLU-gated network that makes a query, key or value (section 3.3)."""

    def __init__(self, i, o):
        super().__init__()
        self.l1 = nn.Linear(i, 2 * o)
        self.l2 = nn.Linear(o, 2 * o)

    def forward(self, x):
        return F.glu(self.l2(F.glu(self.l1(x), dim=-1)), dim=-1)


class GatedMultiScaleSelfAttention(nn.Module):
    """Section 3.3. Several heads; head h attends over the EARLIER positions downsampled by factor
    s_h = h: at step t it sees t - s_h, t - 2 s_h, ... (never t itself). Queries, keys and values come
    from GLU-gated networks. A zero key/value pair is always present, so a head may attend to
    nothing (and the first step, which has no past, is defined). Output: LayerNorm(x + W o)."""

    def __init__(self, c: StoryConfig):
        super().__init__()
        self.h, self.dh = c.attention_heads, c.attention_dim // c.attention_heads
        self.attend_zero = c.attend_zero
        make = (
            (lambda: GatedNet(c.hidden, c.attention_dim))
            if c.gated_attention
            else (lambda: nn.Linear(c.hidden, c.attention_dim))
        )
        self.q, self.k, self.v = make(), make(), make()
        self.out = nn.Linear(c.attention_dim, c.hidden)
        self.ln = nn.LayerNorm(c.hidden)
        self.drop = nn.Dropout(c.dropout)
        self.register_buffer("factors", torch.tensor(c.downsampling(), dtype=torch.long), persistent=False)

    def split(self, x):  # [B,T,A] -> [B,H,T,dh]
        b, t, _ = x.shape
        return x.view(b, t, self.h, self.dh).transpose(1, 2)

    def visibility(self, p, t, device):
        """Additive bias [H,T,P+T] for T queries after P earlier positions: 0 where head h may look
        (strictly earlier, at a distance that is a multiple of s_h), -1e9 elsewhere; and whether a
        query sees any position at all [H,T,1]. Computed once per decoder call, shared by its layers."""
        qpos = torch.arange(t, device=device) + p  # absolute positions of the queries
        kpos = torch.arange(p + t, device=device)  # ... and of the keys
        dist = (qpos[:, None] - kpos[None, :])[None]  # [1,T,P+T]
        visible = (dist > 0) & (torch.remainder(dist, self.factors[:, None, None]) == 0)
        return (~visible).float() * NEG, visible.any(-1, keepdim=True).float()

    def forward(self, x, past, visibility):
        """x [B,T,C]; past [2,B,H,P,dh] (keys, values of the P earlier positions); visibility from
        visibility(P, T) -> (y [B,T,C], present [2,B,H,P+T,dh])."""
        bias, any_visible = visibility
        q, k, v = self.split(self.q(x)), self.split(self.k(x)), self.split(self.v(x))
        k = torch.cat([past[0], k], dim=2)
        v = torch.cat([past[1], v], dim=2)
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.dh) + bias
        if self.attend_zero:
            zero = torch.zeros_like(scores[..., :1])  # q · 0 = 0: the "no attention" slot
            w = torch.softmax(torch.cat([zero, scores], dim=-1), dim=-1)[..., 1:]
        else:
            w = torch.softmax(scores, dim=-1) * any_visible
        # (No dropout on the attention weights: on one CPU thread it cost a tenth of a training step.)
        o = torch.matmul(w, v)  # the zero slot's value is 0: adds nothing
        b, t = x.shape[0], x.shape[1]
        o = o.transpose(1, 2).reshape(b, t, self.h * self.dh)
        return self.ln(x + self.drop(self.out(o))), torch.stack([k, v])


class GatedConvDecoder(nn.Module):
    """Causal gated convolutions; per layer: conv + GLU, encoder attention (when there is an encoder),
    gated multi-scale self-attention (where configured), residual scaled by sqrt(0.5)."""

    def __init__(self, c: StoryConfig):
        super().__init__()
        self.c = c
        self.embed = nn.Embedding(c.vocab_size, c.embed_dim, padding_idx=c.pad_id)
        nn.init.normal_(self.embed.weight, 0, 0.1)
        with torch.no_grad():
            self.embed.weight[c.pad_id].zero_()
        self.pos = nn.Embedding(c.max_target_positions, c.embed_dim)
        nn.init.normal_(self.pos.weight, 0, 0.1)
        self.inp = linear(c.embed_dim, c.hidden, c.dropout)
        self.convs = nn.ModuleList(
            [GatedConv(c.hidden, c.decoder_kernel, c.dropout, causal=True) for _ in range(c.decoder_layers)]
        )
        self.enc_attn = (
            nn.ModuleList([EncoderAttention(c) for _ in range(c.decoder_layers)]) if c.encoder_attention else None
        )
        flags = c.self_attention_flags()
        self.self_attn = nn.ModuleDict({str(i): GatedMultiScaleSelfAttention(c) for i, f in enumerate(flags) if f})
        self.out = linear(c.hidden, c.embed_dim)
        self.drop = nn.Dropout(c.dropout)

    @property
    def n_self_attn(self):
        return len(self.self_attn)

    def initial_state(self, batch, device=None):
        """(conv [L,B,k-1,C], self-attention [Ls,2,B,H,0,dh]): the state before the first token."""
        c = self.c
        conv = torch.zeros(c.decoder_layers, batch, c.decoder_kernel - 1, c.hidden, device=device)
        kv = torch.zeros(
            self.n_self_attn, 2, batch, c.attention_heads, 0, c.attention_dim // c.attention_heads, device=device
        )
        return conv, kv

    def forward(self, tokens, position, encoder_out=None, state=None):
        """tokens [B,T] at absolute positions position..position+T-1 (position: an int or a 0-d/[1]
        tensor); encoder_out (keys, values, mask) or None; state from initial_state() or a previous call.
        Returns the final hidden states [B,T,C], the new state and the last layer's encoder attention."""
        b, t = tokens.shape
        if state is None:
            state = self.initial_state(b, tokens.device)
        conv_state, kv_state = state
        pos = torch.arange(t, device=tokens.device)[None] + position
        g = self.drop(self.embed(tokens) + self.pos(pos))  # target embedding, also used by attention
        x = self.inp(g)
        new_conv, new_kv, attn, j = [], [], None, 0
        vis = None
        if self.n_self_attn:
            vis = next(iter(self.self_attn.values())).visibility(kv_state.shape[4], t, tokens.device)
        for i, conv in enumerate(self.convs):
            residual = x
            x, s = conv(self.drop(x), conv_state[i])
            new_conv.append(s)
            if self.enc_attn is not None:
                x, attn = self.enc_attn[i](x, g, *encoder_out)
            if str(i) in self.self_attn:
                x, kv = self.self_attn[str(i)](x, kv_state[j], vis)
                new_kv.append(kv)
                j += 1
            x = (x + residual) * SQRT_HALF
        kv_out = torch.stack(new_kv) if new_kv else kv_state
        return x, (torch.stack(new_conv), kv_out), attn

    def logits(self, hidden):
        return tied_logits(self.out(self.drop(hidden)), self.embed.weight)


class StoryLM(nn.Module):
    """GCNN language model + self-attention (the premise model; the "LM" row of Table 2)."""

    kind = "lm"

    def __init__(self, c: StoryConfig):
        super().__init__()
        assert not c.encoder_attention
        self.c = c
        self.decoder = GatedConvDecoder(c)

    def decode(self, tokens, position=0, state=None):
        h, state, _ = self.decoder(tokens, position, None, state)
        return torch.log_softmax(self.decoder.logits(h), dim=-1), state

    def forward(self, tokens):
        return self.decode(tokens)[0]


class ConvSeq2seq(nn.Module):
    """Convolutional seq2seq (section 3.2) with the decoder's gated multi-scale self-attention (3.3).
    The source is the prompt followed by </s>."""

    kind = "seq2seq"

    def __init__(self, c: StoryConfig):
        super().__init__()
        assert c.encoder_attention
        self.c = c
        self.encoder = ConvEncoder(c)
        self.decoder = GatedConvDecoder(c)  # owns the embedding the encoder also reads

    def encode(self, src, mask):
        z, v = self.encoder(src, mask, self.decoder.embed)
        return z, v, mask

    def hidden(self, tokens, position, encoder_out, state=None):
        return self.decoder(tokens, position, encoder_out, state)

    def decode(self, tokens, position, encoder_out, state=None):
        h, state, attn = self.hidden(tokens, position, encoder_out, state)
        return torch.log_softmax(self.decoder.logits(h), dim=-1), state, None

    def forward(self, src, mask, tokens):
        return self.decode(tokens, 0, self.encode(src, mask))[0]


class FusedStoryModel(nn.Module):
    """Model fusion (section 3.4, after Cold Fusion, Sriram et al. 2017): a second ConvSeq2seq is
    trained while a pretrained one is frozen. At each step the two decoders' final hidden states are
    concatenated, h = [h_trained; h_pretrained]; a learned projection gives gates g = σ(W h + b),
    one per channel; g ⊙ h goes through fully connected layers with GLU and layer normalisation to
    the output softmax. The gates' means over the trained and the pretrained half are exposed per
    step (the paper's Figure 8: which words lean on the pretrained model)."""

    kind = "fusion"

    def __init__(self, c: StoryConfig, pretrained: ConvSeq2seq):
        super().__init__()
        self.c = c
        self.pretrained = pretrained
        for p in self.pretrained.parameters():
            p.requires_grad_(False)
        self.trained = ConvSeq2seq(c)
        both = c.hidden + pretrained.c.hidden
        self.gate = nn.Linear(both, both)
        self.joining = nn.Sequential(
            nn.Linear(both, 2 * c.hidden),
            nn.LayerNorm(2 * c.hidden),
            nn.GLU(),
            nn.Linear(c.hidden, 2 * c.hidden),
            nn.LayerNorm(2 * c.hidden),
            nn.GLU(),
        )
        self.out = linear(c.hidden, c.embed_dim)
        self.drop = nn.Dropout(c.dropout)

    def train(self, mode=True):
        super().train(mode)
        self.pretrained.eval()  # frozen: no dropout in the pretrained model either
        return self

    def encode(self, src, mask):
        return self.trained.encode(src, mask), self.pretrained.encode(src, mask)

    def initial_state(self, batch, device=None):
        return self.trained.decoder.initial_state(batch, device), self.pretrained.decoder.initial_state(batch, device)

    def decode(self, tokens, position, encoder_out, state=None):
        enc_tr, enc_pre = encoder_out
        st_tr, st_pre = state if state is not None else (None, None)
        with torch.no_grad():
            h_pre, st_pre, _ = self.pretrained.hidden(tokens, position, enc_pre, st_pre)
        h_tr, st_tr, _ = self.trained.hidden(tokens, position, enc_tr, st_tr)
        h = torch.cat([h_tr, h_pre], dim=-1)
        g = torch.sigmoid(self.gate(h))
        f = self.joining(self.drop(g * h))
        logits = tied_logits(self.out(self.drop(f)), self.trained.decoder.embed.weight)
        n = self.c.hidden
        gates = torch.stack([g[..., :n].mean(-1), g[..., n:].mean(-1)], dim=-1)  # [B,T,2]: trained, pretrained
        return torch.log_softmax(logits, dim=-1), (st_tr, st_pre), gates

    def forward(self, src, mask, tokens):
        return self.decode(tokens, 0, self.encode(src, mask))[0]


class BackboneConfig:
    """The backbone's shape as FusedStoryModel reads it (hidden) and a checkpoint saves it; reads_prompt:
    whether the prompt goes before the story (the decoder-only seq2seq) or the backbone sees the story alone."""

    def __init__(self, gpt2, reads_prompt=False):
        self.gpt2 = gpt2  # causal_lm.GPT2Config as a dict
        self.hidden = gpt2["n_embd"]
        self.reads_prompt = reads_prompt

    def to_dict(self):
        return {"backbone": self.gpt2, "reads_prompt": self.reads_prompt}


class BackboneStoryLM(nn.Module):
    """The shared backbone (a GPT-2, causal_lm.py) as a story model, in two forms:
    - reads_prompt=False: model fusion's frozen model in Cold Fusion's form (Sriram et al. 2017, whom Fan
      et al. follow): a language model of the story alone; encode gives nothing.
    - reads_prompt=True: a decoder-only seq2seq: the prompt (ending in </s>), then <s> and the story, in
      one sequence. Fine-tuned on the story pairs it is Fan et al.'s pretrained seq2seq (section 3.4: the
      frozen model is trained on the task first) grown from the backbone; frozen, fusion's other half.
    Prompts of a batch are left-aligned to their end (padding first, masked), so every story token sits
    at the same column; positions count from each prompt's first token. The state is the key/value cache
    with its attention mask. Its hidden state is the final LayerNorm's output, what the tied output layer reads."""

    kind = "backbone"

    def __init__(self, gpt2_config: dict, reads_prompt=False):
        super().__init__()
        from .causal_lm import GPT2, GPT2Config

        self.c = BackboneConfig(gpt2_config, reads_prompt)
        self.lm = GPT2(GPT2Config(**gpt2_config))

    @property
    def decoder(self):  # FusedStoryModel asks pretrained.decoder for the initial state (not a submodule)
        return self

    def initial_state(self, batch, device=None):
        return None  # the state encode made (or an empty cache)

    def encode(self, src, mask):
        """The prompt read into the cache: (cache, its attention mask [B,S]); no prompt: (None, [B,0])."""
        if not self.c.reads_prompt:
            return None, mask.new_zeros(mask.shape[0], 0)
        n, S = mask.sum(1, keepdim=True), src.shape[1]
        # right-aligned: column j holds the prompt's token j - (S - n); a negative index is padding
        idx = torch.arange(S, device=src.device).unsqueeze(0) - (S - n)
        keep = idx >= 0
        left = torch.where(keep, src.gather(1, idx.clamp(min=0)), torch.zeros_like(src))
        _, cache = self.lm.hidden_states(left, attention_mask=keep.long(), position_ids=idx.clamp(min=0))
        return cache, keep.long()

    def hidden(self, tokens, position, encoder_out=None, state=None):
        cache, seen = state if state is not None else encoder_out
        B, S = tokens.shape
        positions = seen.sum(1, keepdim=True) + torch.arange(S, device=tokens.device).unsqueeze(0)
        assert (
            int(positions.max()) < self.lm.config.n_positions
        ), f"the backbone reads at most {self.lm.config.n_positions} tokens of prompt and story"
        mask = torch.cat([seen, seen.new_ones(B, S)], 1)
        h, cache = self.lm.hidden_states(tokens, attention_mask=mask, position_ids=positions, past=cache)
        return h, (cache, mask), None

    def decode(self, tokens, position, encoder_out, state=None):
        h, state, _ = self.hidden(tokens, position, encoder_out, state)
        return torch.log_softmax(h @ self.lm.transformer["wte"].weight.t(), dim=-1), state, None

    def forward(self, src, mask, tokens):
        return self.decode(tokens, 0, self.encode(src, mask))[0]


def count_parameters(model, trainable_only=False):
    return sum(p.numel() for p in model.parameters() if p.requires_grad or not trainable_only)


def self_test(seed=0):
    """Properties the step-wise export relies on, on random weights (python3 -m draftsmith_train.gconv):
    one token at a time == the whole target at once (fusion gates too); source padding changes
    nothing; no position sees a later one; self-attention's head h sees exactly the positions
    t - h, t - 2h, ... (never t itself)."""
    torch.manual_seed(seed)
    c = StoryConfig()
    out = {}
    src = torch.randint(5, c.vocab_size, (2, 9))
    mask = torch.ones_like(src)
    src[1, 6:], mask[1, 6:] = c.pad_id, 0
    tgt = torch.randint(5, c.vocab_size, (2, 12))
    with torch.no_grad():
        for name, m in (
            ("seq2seq", ConvSeq2seq(c)),
            ("fusion", FusedStoryModel(c, ConvSeq2seq(c))),
            ("lm", StoryLM(StoryConfig(encoder_attention=False))),
        ):
            m.eval()
            run = (
                (lambda t, p, s: m.decode(t, p, s)[:2] + (None,))
                if name == "lm"
                else (lambda t, p, s, e=m.encode(src, mask): m.decode(t, p, e, s))
            )
            full, _, g = run(tgt, 0, None)
            st, steps, gates = None, [], []
            for t in range(tgt.shape[1]):
                lp, st, gg = run(tgt[:, t : t + 1], torch.tensor([t]), st)
                steps.append(lp)
                gates.append(gg)
            out[f"{name}: step vs full"] = float((torch.cat(steps, 1) - full).abs().max())
            if g is not None:
                out[f"{name}: gates step vs full"] = float((torch.cat(gates, 1) - g).abs().max())
            t2 = tgt.clone()
            t2[:, 7] = 5
            out[f"{name}: earlier positions after changing a later token"] = float(
                (run(t2, 0, None)[0][:, :7] - full[:, :7]).abs().max()
            )
        m = ConvSeq2seq(c).eval()
        a = m.decode(tgt[1:], 0, m.encode(src[1:, :6], mask[1:, :6]))[0]
        b = m.decode(tgt, 0, m.encode(src, mask))[0][1:]
        out["seq2seq: padded vs unpadded source"] = float((a - b).abs().max())
        # Head h sees exactly t - s_h, t - 2 s_h, ... >= 0 (never t, never later), also after a past of 5.
        attn = m.decoder.self_attn["0"]
        for p in (0, 5):
            bias, _ = attn.visibility(p, 7, torch.device("cpu"))
            seen = bias == 0
            want = torch.zeros_like(seen)
            for h, f in enumerate(c.downsampling()):
                for i in range(7):
                    for j in range(p + i - f, -1, -f):
                        want[h, i, j] = True
            out[f"self-attention: visibility differs (past {p})"] = float((seen != want).sum())
    for k, v in out.items():
        print(f"{k}: {v:.2e}")
    bad = {k: v for k, v in out.items() if v > 1e-4}
    assert not bad, bad
    print("ok")


if __name__ == "__main__":
    torch.set_num_threads(1)
    self_test()
