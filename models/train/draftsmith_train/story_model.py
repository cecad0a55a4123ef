"""The story models as the recipe keeps and runs them (story.py trains them, export_story.py exports
them): checkpoints, top-k random sampling (section 5.3: k = 10) with a temperature, and the NLL and
perplexity of Tables 2-3. The modules themselves are gconv.py's.
"""
import math
import os
import time
from collections import defaultdict

import torch

from . import tokenizer as T
from .gconv import BackboneStoryLM, ConvSeq2seq, FusedStoryModel, StoryConfig, StoryLM
from .training import pad


def save(path, model, meta):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    ck = {"kind": model.kind, "config": model.c.to_dict(), "state": model.state_dict(), "meta": meta}
    if model.kind == "fusion":
        ck["pretrained_config"] = model.pretrained.c.to_dict()
    torch.save(ck, path)


def backbone_story(config):
    """A BackboneStoryLM from its saved config ({"backbone": GPT2Config, "reads_prompt": ...})."""
    return BackboneStoryLM(config["backbone"], config.get("reads_prompt", False))


def load_model(path, ck=None):
    """(model, meta) from a story checkpoint; ck: the checkpoint already read from path."""
    ck = ck if ck is not None else torch.load(path, map_location="cpu")
    if ck["kind"] == "backbone":  # the decoder-only seq2seq grown from the backbone (story seq2seq --backbone)
        m = backbone_story(ck["config"])
        m.load_state_dict(ck["state"])
        return m.eval(), ck.get("meta", {})
    c = StoryConfig(**ck["config"])
    if ck["kind"] == "lm":
        m = StoryLM(c)
    elif ck["kind"] == "seq2seq":
        m = ConvSeq2seq(c)
    elif "backbone" in ck["pretrained_config"]:  # fused with the shared backbone (BackboneStoryLM)
        m = FusedStoryModel(c, backbone_story(ck["pretrained_config"]))
    else:
        m = FusedStoryModel(c, ConvSeq2seq(StoryConfig(**ck["pretrained_config"])))
    m.load_state_dict(ck["state"])
    return m.eval(), ck.get("meta", {})


def check_room(n_positions, args, reads_prompt):
    """The backbone reads <s> and max_tgt - 1 story tokens, after the prompt's max_src when it reads the prompt."""
    if args.max_tgt + (args.max_src if reads_prompt else 0) > n_positions:
        raise SystemExit(
            f"--max-tgt {args.max_tgt}{f' + --max-src {args.max_src}' if reads_prompt else ''}: "
            f"the backbone reads at most {n_positions} tokens"
        )


NEVER = (T.PAD, T.UNK, T.BOS, T.MASK)  # never sampled (the issue: never an unknown-word token)


def sample_step(logp, k, temperature, gen):
    logp = logp.clone()
    logp[..., list(NEVER)] = -float("inf")
    top = torch.topk(logp / temperature, k, dim=-1)
    choice = torch.multinomial(torch.softmax(top.values, dim=-1), 1, generator=gen)
    return top.indices.gather(-1, choice)


def generate(model, src_ids, max_tokens, k=10, temperature=0.8, seed=0, greedy=False):
    """One story for one prompt (ids ending in </s>): (ids, per-step fusion gates or None, seconds)."""
    gen = torch.Generator().manual_seed(seed)
    t0 = time.time()
    with torch.no_grad():
        src = torch.tensor([src_ids])
        enc = model.encode(src, torch.ones_like(src))
        tok, state, out, gates = torch.tensor([[T.BOS]]), None, [], []
        for t in range(max_tokens):
            logp, state, g = model.decode(tok, torch.tensor([t]), enc, state)
            tok = logp[:, -1].argmax(-1, keepdim=True) if greedy else sample_step(logp[:, -1], k, temperature, gen)
            if g is not None:
                gates.append([round(float(x), 4) for x in g[0, -1]])
            if int(tok) == T.EOS:
                break
            out.append(int(tok))
    return out, (gates or None), time.time() - t0


def generate_premise(lm, max_tokens=60, k=10, temperature=0.8, seed=0):
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        tok, state, out = torch.tensor([[T.BOS]]), None, []
        for t in range(max_tokens):
            logp, state = lm.decode(tok, t, state)
            tok = sample_step(logp[:, -1], k, temperature, gen)
            if int(tok) == T.EOS:  # the end-of-prompt token
                break
            out.append(int(tok))
    return out


def story_nll(model, src_batch, tgt_batch, device):
    """Summed NLL of each target (its story + </s>), [B]."""
    tgt = pad(tgt_batch).to(device)
    if model.kind == "lm":
        logp = model(tgt[:, :-1])
    else:
        src = pad(src_batch).to(device)
        logp = model(src, (src != T.PAD).long(), tgt[:, :-1])
    y = tgt[:, 1:]
    nll = -logp.gather(-1, y.unsqueeze(-1)).squeeze(-1) * (y != T.PAD).float()
    return nll.sum(-1)


def perplexity(model, pairs, device, batch=16):
    by_domain = defaultdict(lambda: [0.0, 0, 0])  # nll, tokens, words
    with torch.no_grad():
        for i in range(0, len(pairs), batch):
            b = pairs[i : i + batch]
            nll = story_nll(model, [x[0] for x in b], [x[1] for x in b], device)
            for x, v in zip(b, nll.tolist()):
                for d in (x[2]["domain"], "all"):
                    by_domain[d][0] += v
                    by_domain[d][1] += len(x[1]) - 1
                    by_domain[d][2] += len(x[2]["story"].split()) + 1  # + the end of the story
    return {
        d: {"token_ppl": math.exp(n / t), "word_ppl": math.exp(n / w), "tokens": t}
        for d, (n, t, w) in by_domain.items()
    }
