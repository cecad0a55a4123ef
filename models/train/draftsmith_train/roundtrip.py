"""Round-Trip Paragraph: the hierarchical LSTM paragraph autoencoder (Li, Luong & Jurafsky 2015).

  python3 -m draftsmith_train.roundtrip prepare --data .data
  python3 -m draftsmith_train.roundtrip train   --data .data --model hier-attn --minutes 30
        --out runs/roundtrip-hier-attn.pt
  python3 -m draftsmith_train.roundtrip eval    --data .data --ckpt runs/roundtrip-hier-attn.pt --limit 200
  python3 -m draftsmith_train.roundtrip export  --data .data --ckpt runs/roundtrip-hier-attn.pt --out ../roundtrip

Three models sharing their parts (WordEncoder, SentenceEncoder, WordDecoder, SentenceDecoder):
  standard   one LSTM encoder over the whole paragraph as one token sequence, one LSTM decoder (Sec. 3.1)
  hier       word LSTM -> sentence vectors; sentence LSTM -> paragraph state; the decoder mirrors it:
             a sentence-level LSTM step whose state initialises a word-level LSTM that writes tokens
             up to </s>; its last top-layer output is the next sentence step's input (Sec. 3.2).
             The sentence level decides the end of the paragraph with an end flag (sigmoid) per step,
             the paper's end-of-document token ending_D written as a binary decision.
  hier-attn  hier, plus attention at each sentence step over the encoder's sentence-level outputs
             (Eqs. 10-15): v_i = Uᵀ tanh(W1 h_{t-1} + W2 h_i^s), a = softmax(v), m_t = Σ a_i h_i^s, and the
             sentence step reads [e_{t-1}; m_t].
As in the paper: inputs reversed (tokens within each sentence, and the order of the sentences), stacked
LSTMs (here 2 layers x 256, embeddings 256; the paper used 4 x 1000), uniform init in [-0.08, 0.08],
gradient-norm clipping at 5, greedy decoding, output at most 1.5x the input's length. Adam (lr 1e-3)
instead of the paper's plain SGD, for short runs. Runs on CUDA when present (--device auto).
"""
import argparse
import math
import os
import random
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

from . import data as D
from . import tokenizer as T
from .batching import token_batches
from .roundtrip_data import load as load_rows, prepare_everyday, prepare_general, prepare_roundtrip, prepare_simple
from . import training as R
from .training import log, nll_and_ppl, pick_device

MODELS = ("standard", "hier", "hier-attn")


class Config:
    def __init__(self, model="hier-attn", vocab_size=8000, embed=256, hidden=256, layers=2, dropout=0.2):
        self.model, self.vocab_size, self.embed, self.hidden, self.layers, self.dropout = (
            model,
            vocab_size,
            embed,
            hidden,
            layers,
            dropout,
        )

    def to_dict(self):
        return dict(self.__dict__)


# ---------------------------------------------------------------------------------------------
# Parts
# ---------------------------------------------------------------------------------------------
class WordEncoder(nn.Module):
    """Word-level LSTM over (reversed) token ids [N, T] -> top-layer outputs [N, T, H] and the vector
    at each sequence's last real position [N, H] (the sentence vector e^s)."""

    def __init__(self, c, embedding):
        super().__init__()
        self.embedding = embedding
        self.lstm = nn.LSTM(c.embed, c.hidden, c.layers, batch_first=True, dropout=c.dropout)

    def forward(self, ids, lengths):
        out, state = self.lstm(self.embedding(ids))
        idx = (lengths - 1).clamp(min=0).view(-1, 1, 1).expand(-1, 1, out.size(-1))
        return out, out.gather(1, idx).squeeze(1), state


class SentenceEncoder(nn.Module):
    """Sentence-level LSTM over sentence vectors [B, S, H] -> outputs [B, S, H] and the final (h, c)
    of every layer at each paragraph's last sentence (the paragraph state)."""

    def __init__(self, c):
        super().__init__()
        self.lstm = nn.LSTM(c.hidden, c.hidden, c.layers, batch_first=True, dropout=c.dropout)

    def forward(self, vectors, counts=None):
        if counts is None:  # one paragraph, or all of one length (the exported graph)
            return self.lstm(vectors)
        packed = nn.utils.rnn.pack_padded_sequence(vectors, counts.cpu(), batch_first=True, enforce_sorted=False)
        out, state = self.lstm(packed)
        out, _ = nn.utils.rnn.pad_packed_sequence(out, batch_first=True, total_length=vectors.size(1))
        return out, state


class WordDecoder(nn.Module):
    """Word-level LSTM decoder: tokens [N, T] from state (h, c) [L, N, H] -> log-probs and new state."""

    def __init__(self, c, embedding):
        super().__init__()
        self.embedding = embedding
        self.lstm = nn.LSTM(c.embed, c.hidden, c.layers, batch_first=True, dropout=c.dropout)
        self.drop = nn.Dropout(c.dropout)
        self.out = nn.Linear(c.hidden, c.vocab_size)

    def forward(self, ids, state):
        h, state = self.lstm(self.embedding(ids), state)
        return F.log_softmax(self.out(self.drop(h)), -1), h, state


class SentenceAttention(nn.Module):
    """Eqs. 10-15: v_i = Uᵀ tanh(W1 h_{t-1} + W2 h_i^s); a = softmax(v); m_t = Σ a_i h_i^s."""

    def __init__(self, c):
        super().__init__()
        self.w1 = nn.Linear(c.hidden, c.hidden, bias=False)
        self.w2 = nn.Linear(c.hidden, c.hidden)
        self.u = nn.Linear(c.hidden, 1, bias=False)

    def forward(self, query, memory, memory_mask):
        v = self.u(torch.tanh(self.w1(query).unsqueeze(1) + self.w2(memory))).squeeze(-1)
        v = v.masked_fill(memory_mask == 0, -1e9)
        a = torch.softmax(v, -1)
        return (a.unsqueeze(-1) * memory).sum(1), a


class SentenceDecoder(nn.Module):
    """One sentence-level step: the previous sentence's vector e_{t-1} (and, with attention, m_t)
    and the state -> new state (which initialises the word decoder) and the end-of-paragraph logit."""

    def __init__(self, c, attention):
        super().__init__()
        self.attention = SentenceAttention(c) if attention else None
        self.lstm = nn.LSTM(c.hidden * (2 if attention else 1), c.hidden, c.layers, dropout=c.dropout)
        self.end = nn.Linear(c.hidden, 1)
        self.start = nn.Parameter(torch.zeros(c.hidden))

    def forward(self, prev, state, memory=None, memory_mask=None):
        attn = None
        if self.attention is not None:
            m, attn = self.attention(state[0][-1], memory, memory_mask)
            prev = torch.cat([prev, m], -1)
        out, state = self.lstm(prev.unsqueeze(0), state)
        return state, self.end(out[0]).squeeze(-1), attn


# ---------------------------------------------------------------------------------------------
# Models
# ---------------------------------------------------------------------------------------------
def reverse_tokens(sent):
    return list(reversed(sent))


def pad(seqs, value=T.PAD):
    n = max(1, max(len(s) for s in seqs))
    return torch.tensor([s + [value] * (n - len(s)) for s in seqs], dtype=torch.long)


class RoundTrip(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.c = c
        self.embedding = nn.Embedding(c.vocab_size, c.embed, padding_idx=T.PAD)
        self.word_encoder = WordEncoder(c, self.embedding)
        self.word_decoder = WordDecoder(c, self.embedding)
        if c.model != "standard":
            self.sentence_encoder = SentenceEncoder(c)
            self.sentence_decoder = SentenceDecoder(c, c.model == "hier-attn")
        for p in self.parameters():
            nn.init.uniform_(p, -0.08, 0.08)

    # ---- encoding -------------------------------------------------------------------------------
    def encode_standard(self, paragraphs, device):
        """Whole paragraph as one sequence, reversed -> (h, c) [L, B, H]."""
        seqs = [reverse_tokens([t for s in p for t in s]) for p in paragraphs]
        lengths = torch.tensor([len(s) for s in seqs])
        packed = nn.utils.rnn.pack_padded_sequence(
            self.embedding(pad(seqs).to(device)), lengths, batch_first=True, enforce_sorted=False
        )
        _, state = self.word_encoder.lstm(packed)
        return state

    def encode_sentences(self, ids, lengths):
        """ids [N, T] (each sentence's tokens reversed), lengths [N] -> sentence vectors [N, H]."""
        return self.word_encoder(ids, lengths)[1]

    def encode_hier(self, paragraphs, device):
        """-> encoder sentence-level outputs [B, S, H], their mask [B, S], paragraph state (h, c) [L, B, H]."""
        flat = [reverse_tokens(s) for p in paragraphs for s in reversed(p)]  # sentence order reversed too
        vecs = self.encode_sentences(pad(flat).to(device), torch.tensor([len(s) for s in flat], device=device))
        counts = torch.tensor([len(p) for p in paragraphs])
        S = int(counts.max())
        grid = vecs.new_zeros(len(paragraphs), S, vecs.size(-1))
        k = 0
        for b, p in enumerate(paragraphs):
            grid[b, : len(p)] = vecs[k : k + len(p)]
            k += len(p)
        mask = (torch.arange(S).unsqueeze(0) < counts.unsqueeze(1)).long().to(device)
        out, state = self.sentence_encoder(grid, counts)
        return out, mask, state

    # ---- training loss --------------------------------------------------------------------------
    def loss(self, paragraphs, device):
        """-> (token NLL + end-flag BCE, token NLL, tokens)."""
        if self.c.model == "standard":
            state = self.encode_standard(paragraphs, device)
            tgt = pad([[T.BOS] + [t for s in p for t in s] + [T.EOS] for p in paragraphs]).to(device)
            logp, _, _ = self.word_decoder(tgt[:, :-1], state)
            nll = F.nll_loss(
                logp.reshape(-1, logp.size(-1)), tgt[:, 1:].reshape(-1), ignore_index=T.PAD, reduction="sum"
            )
            n = int((tgt[:, 1:] != T.PAD).sum())
            return nll / n, nll / n, n
        memory, mmask, state = self.encode_hier(paragraphs, device)
        B, H = len(paragraphs), self.c.hidden
        prev = self.sentence_decoder.start.unsqueeze(0).expand(B, H)
        counts = [len(p) for p in paragraphs]
        nll, n, end_loss, end_n = 0.0, 0, 0.0, 0
        for t in range(max(counts) + 1):
            active = torch.tensor([t <= c for c in counts], device=device)
            state_new, end_logit, _ = self.sentence_decoder(prev, state, memory, mmask)
            end_target = torch.tensor([float(t == c) for c in counts], device=device)
            end_loss = (
                end_loss + (F.binary_cross_entropy_with_logits(end_logit, end_target, reduction="none") * active).sum()
            )
            end_n += int(active.sum())
            keep = active.view(1, -1, 1).float()
            state = tuple(keep * s_new + (1 - keep) * s for s_new, s in zip(state_new, state))
            writing = [b for b, c in enumerate(counts) if t < c]
            if not writing:
                break
            sents = [paragraphs[b][t] for b in writing]
            idx = torch.tensor(writing, device=device)
            tgt = pad([[T.BOS] + s + [T.EOS] for s in sents]).to(device)
            logp, h, _ = self.word_decoder(tgt[:, :-1], (state[0][:, idx], state[1][:, idx]))
            nll = nll + F.nll_loss(
                logp.reshape(-1, logp.size(-1)), tgt[:, 1:].reshape(-1), ignore_index=T.PAD, reduction="sum"
            )
            n += int((tgt[:, 1:] != T.PAD).sum())
            # e_t: the word decoder's top-layer output where it predicted </s> (after the last word)
            last = torch.tensor([len(s) for s in sents], device=device).view(-1, 1, 1).expand(-1, 1, H)
            e = h.gather(1, last).squeeze(1)
            prev = prev.clone()
            prev[idx] = e
        tok = nll / n
        return tok + end_loss / end_n, tok, n

    # ---- greedy decoding ------------------------------------------------------------------------
    @torch.no_grad()
    def greedy(self, paragraph, device, with_attention=False):
        """One paragraph ([[ids]] per sentence) -> [[ids]] per output sentence (standard: one list).
        At most 1.5x the input's tokens in all, and (hierarchical) 1.5x its sentences, each sentence at
        most 1.5x the input's longest sentence."""
        total = sum(len(s) for s in paragraph)
        budget = int(math.ceil(1.5 * total))
        if self.c.model == "standard":
            state = self.encode_standard([paragraph], device)
            out, tok = [], T.BOS
            for _ in range(budget):
                logp, _, state = self.word_decoder(torch.tensor([[tok]], device=device), state)
                tok = int(logp[0, -1].argmax())
                if tok == T.EOS:
                    break
                out.append(tok)
            return [out], None
        memory, mmask, state = self.encode_hier([paragraph], device)
        prev = self.sentence_decoder.start.unsqueeze(0)
        per_sentence = int(math.ceil(1.5 * max(len(s) for s in paragraph)))
        sentences, attns, used = [], [], 0
        for _ in range(int(math.ceil(1.5 * len(paragraph)))):
            state, end_logit, attn = self.sentence_decoder(prev, state, memory, mmask)
            if float(end_logit[0]) > 0 or used >= budget:  # sigmoid > 0.5: the paragraph ends
                break
            if attn is not None:
                attns.append(attn[0].tolist())
            ws, tok, words = state, T.BOS, []
            e = None
            for _ in range(min(per_sentence, budget - used) + 1):
                logp, h, ws = self.word_decoder(torch.tensor([[tok]], device=device), ws)
                e = h[:, -1]
                tok = int(logp[0, -1].argmax())
                if tok == T.EOS or len(words) >= min(per_sentence, budget - used):
                    break
                words.append(tok)
            used += len(words)
            sentences.append(words)
            prev = e
        return sentences, attns


# ---------------------------------------------------------------------------------------------
# Training
# ---------------------------------------------------------------------------------------------
def load_model(path):
    return R.load_checkpoint(path, lambda config: RoundTrip(Config(**config)))


def init_embeddings(model, path):
    """The word embeddings (shared by the word encoder and decoder) from the backbone LM's token
    embeddings: the paper starts from pretrained word vectors too; the rest stays uniform."""
    R.embeddings_from_backbone(model.embedding, path)


def cmd_train(args):
    device = pick_device(args.device)
    torch.manual_seed(D.SEED)
    sp = T.load(os.path.join(args.data, "spm.model"))
    model = RoundTrip(Config(args.model, sp.get_piece_size(), args.embed, args.hidden, args.layers, args.dropout)).to(
        device
    )
    if args.init_embeddings and not R.resume_checkpoint(args):  # resumed: train_loop loads every weight
        init_embeddings(model, args.init_embeddings)
    train = load_rows(os.path.join(args.data, "roundtrip.train.jsonl"), sp, args.max_train)
    val = load_rows(os.path.join(args.data, "roundtrip.val.jsonl"), sp, args.max_val)
    params = sum(p.numel() for p in model.parameters())
    log(
        f"roundtrip {args.model}: {params / 1e6:.2f}M params, {len(train)} train / {len(val)} val paragraphs, device"
        f" {device}"
    )
    rng = random.Random(D.SEED)  # a resumed run skips the batches it trained on (training.train_loop)
    batches = token_batches(train, lambda x: sum(len(s) + 2 for s in x[0]), args.batch_tokens, rng, 20)

    def validate():
        model.eval()
        with torch.no_grad():
            tot, n = 0.0, 0
            for i in range(0, len(val), 16):
                _, nll, k = model.loss([x[0] for x in val[i : i + 16]], device)
                tot += float(nll) * k
                n += k
        model.train()
        return nll_and_ppl(tot / n)

    R.train_loop(
        model,
        batches,
        args,
        device,
        lambda batch: model.loss([x[0] for x in batch], device),
        validate,
        meta={"model": args.model, "params": params},
        optimizer=lambda params, lr: torch.optim.Adam(params, lr=lr),
        schedule=R.halving(args.lr, args.halve_after, args.halve_every),
        clip=5.0,
        keep_best=True,
        find_unused=None,
        others_leave=False,
    )  # both papers: plain Adam, gradients clipped at norm 5


# ---------------------------------------------------------------------------------------------
# Evaluation (a Python approximation; the card's numbers will come from the TypeScript metrics)
# ---------------------------------------------------------------------------------------------
def cmd_eval(args):
    from .roundtrip_metrics import score_all

    device = pick_device(args.device)
    sp = T.load(os.path.join(args.data, "spm.model"))
    rows = load_rows(os.path.join(args.data, f"roundtrip.{args.split}.jsonl"), sp, args.limit)
    results = []
    for ck in args.ckpt:
        model, meta = load_model(ck)
        model.to(device).eval()
        refs, hyps, t0 = [], [], time.time()
        for sents, r in rows:
            out, _ = model.greedy(sents, device)
            hyp = [sp.decode(s) for s in out if s]
            refs.append(r["sentences"])
            hyps.append(hyp)
        secs = (time.time() - t0) / max(1, len(rows))
        scores = score_all(refs, hyps, split_standard=model.c.model == "standard")
        results.append((model.c.model, meta.get("steps"), scores, secs))
        if args.show:
            for ref, hyp in list(zip(refs, hyps))[: args.show]:
                print("IN :", " ".join(ref), "\nOUT:", " ".join(hyp), "\n")
    print(f"\n{len(rows)} {args.split} paragraphs (Python approximation of the metrics; see roundtrip_metrics.py)\n")
    print("| model | steps | BLEU | ROUGE-1 | ROUGE-2 | ROUGE-W | coherence L | s/paragraph |")
    print("|---|---|---|---|---|---|---|---|")
    for name, steps, s, secs in results:
        L = "n/a" if s["L"] is None else f"{s['L']:.2f}"
        print(
            f"| {name} | {steps} | {s['bleu']:.2f} | {s['rouge1']:.3f} | {s['rouge2']:.3f} | {s['rougeW']:.3f} | {L} |"
            f" {secs:.3f} |"
        )


def main():
    p = argparse.ArgumentParser()
    p.add_argument("cmd", choices=["prepare", "train", "eval", "export"])
    p.add_argument("--data", default=".data")
    p.add_argument("--model", choices=MODELS, default="hier-attn")
    p.add_argument("--ckpt", nargs="+")
    p.add_argument("--layers", type=int, default=2)
    R.add_rnn_train_args(p, embed=256, hidden=256, dropout=0.2, batch_tokens=3000, max_val=300, log_every=10)
    p.add_argument("--split", default="test")
    p.add_argument("--limit", type=int, default=200)
    p.add_argument("--show", type=int, default=0)
    p.add_argument("--fixture", default=None)
    p.add_argument(
        "--corpus",
        choices=["mixed", "simple", "general", "everyday"],
        default="mixed",
        help=(
            "prepare: mixed = news, tech, wiki, fairy tales (the shared tokenizer); simple = ROCStories and TinyStories"
            " (own tokenizer); general = a test split only, everyday paragraphs (OneStopEnglish, elementary); everyday"
            " = the simple stories, WikiText-2 and CNN news in the backbone's tokenizer (--backbone-data)"
        ),
    )
    p.add_argument(
        "--backbone-data", default="../../.data/backbone", help="prepare --corpus everyday: the backbone's folder"
    )
    p.add_argument(
        "--halve-after", type=int, default=None, help="train: halve the rate at this step (default: never) ..."
    )
    p.add_argument("--halve-every", type=int, default=500, help="train: ... and again every this many steps")
    p.add_argument(
        "--init-embeddings",
        default=None,
        help=(
            "train: a backbone checkpoint (backbone.py) whose token embeddings start the model's (same tokenizer, same"
            " size)"
        ),
    )
    p.add_argument(
        "--weights",
        choices=["int8", "float32"],
        default=os.environ.get("WEIGHTS", "int8"),
        help="export: weight storage (weight_storage.py)",
    )
    args = p.parse_args()
    if args.cmd == "prepare":
        if args.corpus == "everyday":
            prepare_everyday(args.data, args.backbone_data)
        else:
            {"simple": prepare_simple, "general": prepare_general}.get(args.corpus, prepare_roundtrip)(args.data)
    elif args.cmd == "train":
        args.out = args.out or f"runs/roundtrip-{args.model}.pt"
        cmd_train(args)
    elif args.cmd == "eval":
        cmd_eval(args)
    else:
        from .export_roundtrip import export

        export(args.ckpt[0], args.out or "../roundtrip", args.data, args.fixture, args.weights)


if __name__ == "__main__":
    main()
