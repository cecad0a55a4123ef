"""Hierarchical story generation with fusion (Fan, Lewis & Dauphin 2018): the recipe.

  python3 -m draftsmith_train.story prepare  --data .data
  python3 -m draftsmith_train.story premise  --data .data --corpus lm --out runs/story-lm-pretrain.pt
        (the GCNN LM on all the text)
  python3 -m draftsmith_train.story premise  --data .data --init runs/story-lm-pretrain.pt --out runs/story-premise.pt
  python3 -m draftsmith_train.story premise  --data .data --corpus stories --init runs/story-lm-pretrain.pt
        --out runs/story-lm.pt
  python3 -m draftsmith_train.story seq2seq  --data .data --init-decoder runs/story-lm-pretrain.pt
        --out runs/story-seq2seq.pt
        [--no-self-attention | --no-gating | --no-multiscale | --no-zero-attention]    (Tables 2-3 rows)
  python3 -m draftsmith_train.story fusion   --data .data --pretrained runs/story-seq2seq.pt --out runs/story-fusion.pt
  python3 -m draftsmith_train.story fusion   --data .data/everyday --pretrained-backbone BACKBONE.pt
        --out runs/story-fusion-bb.pt
        (fused with the shared backbone, gconv.BackboneStoryLM; the data folder needs the backbone's tokenizer:
        story prepare --corpus simple --data .data/everyday, after roundtrip prepare --corpus everyday there)
  python3 -m draftsmith_train.story seq2seq  --data .data/everyday --backbone BACKBONE.pt --max-src 48 --max-tgt 208
        --out runs/story-s2s-bb.pt
  python3 -m draftsmith_train.story fusion   --data .data/everyday --pretrained runs/story-s2s-bb.pt
        --max-src 48 --max-tgt 208 ...
        (the backbone fine-tuned as the pretrained seq2seq, reading "prompt </s> <s> story" as one sequence;
        prompt and story share its 256 positions)
  python3 -m draftsmith_train.story eval     --data .data --model LM=runs/story-lm.pt --model "Conv seq2seq=..." ...
  python3 -m draftsmith_train.story sample   --data .data --ckpt runs/story-fusion.pt
        --premise-ckpt runs/story-premise.pt [--prompt "..."]

`premise` trains the GCNN + self-attention language model on one of three corpora: "premise" (the
prompts, <s> premise </s>: the premise model), "lm" (all the English text: pretraining), "stories"
(the training stories without their prompts: the LM baseline of Table 2). Every model is budgeted by
--steps and --minutes (whichever comes first) and runs on a CUDA GPU when one is present
(--device auto), otherwise on one CPU thread; the sizes are flags, so the same commands scale up.
premise, seq2seq and fusion take --resume: they go on from --out where it exists (training.train_loop).
"""
import argparse
import json
import math
import os
import random
import re
import time
from dataclasses import asdict
from collections import Counter, defaultdict

import numpy as np
import torch

from . import data as D
from . import tokenizer as T
from .batching import token_batches
from .causal_lm import load as load_gpt2
from .gconv import BackboneStoryLM, ConvSeq2seq, FusedStoryModel, StoryConfig, StoryLM, count_parameters
from .modules import label_smoothed_nll
from .story_data import (
    encode_source,
    load_pairs,
    lm_ids,
    lm_windows,
    premise_sequences,
    prepare_simple_story,
    prepare_story,
    read_jsonl,
)
from .story_model import (
    check_room,
    generate,
    generate_premise,
    load_model,
    perplexity,
    save,
    story_nll,
)
from .training import (
    add_resume_arg,
    embeddings_from_backbone,
    log,
    nll_and_ppl,
    pad,
    pick_device,
    resume_checkpoint,
    train_loop,
)


# ---------------------------------------------------------------------------------------------
# Data (read by story_data.py)
# ---------------------------------------------------------------------------------------------
def lm_corpus(sp, args, part):
    if args.corpus == "premise":
        return premise_sequences(sp, args.data, part, args.max_tgt)
    if args.corpus == "stories":
        return [p[1] for p in load_pairs(sp, args.data, part, args.max_src, args.max_tgt)]
    ids, starts = lm_ids(sp, args.data, part, args.lm_lines if part == "train" else 0)
    return lm_windows(ids, starts, args.max_tgt)


# ---------------------------------------------------------------------------------------------
# Models: construction, checkpoints
# ---------------------------------------------------------------------------------------------
def config_from_args(args, vocab, encoder_attention):
    return StoryConfig(
        vocab_size=vocab,
        embed_dim=args.embed_dim,
        hidden=args.hidden,
        encoder_layers=args.encoder_layers,
        decoder_layers=args.decoder_layers,
        encoder_kernel=args.encoder_kernel,
        decoder_kernel=args.decoder_kernel,
        encoder_attention=encoder_attention,
        self_attention=not args.no_self_attention,
        self_attention_layers=args.self_attention_layers,
        attention_heads=args.heads,
        attention_dim=args.attention_dim,
        gated_attention=not args.no_gating,
        multiscale=not args.no_multiscale,
        attend_zero=not args.no_zero_attention,
        max_source_positions=max(args.max_src, 256),
        max_target_positions=max(args.max_tgt + 1, 512),
        dropout=args.dropout,
    )


def init_decoder_from(model_decoder, path):
    """Start a decoder from a trained GCNN LM (story-lm-pretrain): same names under decoder.;
    what the LM lacks (encoder attention) starts fresh."""
    ck = torch.load(path, map_location="cpu")
    src = {k[len("decoder.") :]: v for k, v in ck["state"].items() if k.startswith("decoder.")}
    own = model_decoder.state_dict()
    usable = {k: v for k, v in src.items() if k in own and own[k].shape == v.shape}
    model_decoder.load_state_dict(usable, strict=False)
    fresh = sorted(set(k.split(".")[0] for k in own if k not in usable))
    log(f"decoder: {len(usable)} tensors from {path}; fresh: {fresh}")


# ---------------------------------------------------------------------------------------------
# Training
# ---------------------------------------------------------------------------------------------
def seq2seq_loss(model, batch, device, eps):
    src = pad([x[0] for x in batch]).to(device)
    tgt = pad([x[1] for x in batch]).to(device)
    logp = model(src, (src != T.PAD).long(), tgt[:, :-1])
    loss, nll = label_smoothed_nll(logp, tgt[:, 1:], eps, T.PAD)
    return loss, nll, int((tgt[:, 1:] != T.PAD).sum())


def lm_loss(model, batch, device, eps):
    seq = pad([[int(t) for t in x] for x in batch]).to(device)
    logp = model(seq[:, :-1])
    loss, nll = label_smoothed_nll(logp, seq[:, 1:], eps, T.PAD)
    return loss, nll, int((seq[:, 1:] != T.PAD).sum())


def run_training(model, train, val, args, device, loss_fn, length, meta):
    """meta: the stage's own fields of the checkpoint the loop saves to --out (at every validation and at the end)."""
    rng = random.Random(D.SEED)
    batches = token_batches(train, length, args.batch_tokens, rng, 10)
    val = val[: args.val_limit]

    def validate():
        tot, n = 0.0, 0
        with torch.no_grad():
            for i in range(0, len(val), 16):
                _, nll, k = loss_fn(model, val[i : i + 16], device, 0.0)
                tot += nll.item() * k
                n += k
        return nll_and_ppl(tot / n)

    def step(b):
        loss, _, n = loss_fn(model, b, device, args.label_smoothing)
        return loss, n

    groups = [{"params": [p for p in model.parameters() if p.requires_grad]}]
    # keep_best: a GPU run passes over these few thousand pairs many times; <out>.best.pt keeps its best
    return train_loop(
        model,
        batches,
        args,
        device,
        step,
        validate,
        groups,
        meta=meta,
        save=lambda path, m: save(path, model, m),
        keep_best=True,
    )


def cmd_premise(args):
    device = pick_device(args.device)
    torch.manual_seed(D.SEED)
    sp = T.load(os.path.join(args.data, "spm.model"))
    init = resume_checkpoint(args) or args.init
    if init:
        model, _ = load_model(init)
        assert model.kind == "lm", "--init needs a language-model checkpoint"
    else:
        model = StoryLM(config_from_args(args, sp.get_piece_size(), encoder_attention=False))
    model.to(device)
    train, val = lm_corpus(sp, args, "train"), lm_corpus(sp, args, "val")
    log(
        f"GCNN LM ({args.corpus}): {count_parameters(model) / 1e6:.2f}M params, {len(train)} train / {len(val)} val"
        f" sequences, self-attention {model.c.self_attention_flags()}"
    )
    run_training(model, train, val, args, device, lm_loss, len, {"stage": f"lm-{args.corpus}", "init": args.init})


def backbone_from(path, sp, args, reads_prompt):
    """A BackboneStoryLM with the backbone checkpoint's weights, checked against the data's tokenizer and
    the lengths it must read (the prompt first when reads_prompt, then <s> and max_tgt - 1 story tokens)."""
    lm, _ = load_gpt2(path)
    if lm.config.vocab_size != sp.get_piece_size():
        raise SystemExit(f"{args.data}/spm.model is not the backbone's tokenizer (backbone.py prepare)")
    check_room(lm.config.n_positions, args, reads_prompt)
    model = BackboneStoryLM(asdict(lm.config), reads_prompt)
    model.lm.load_state_dict(lm.state_dict())
    return model


def cmd_seq2seq(args):
    device = pick_device(args.device)
    torch.manual_seed(D.SEED)
    sp = T.load(os.path.join(args.data, "spm.model"))
    resume = resume_checkpoint(args)
    if args.backbone:  # the pretrained seq2seq grown from the backbone: it reads the prompt, then the story
        model = load_model(resume)[0] if resume else backbone_from(args.backbone, sp, args, reads_prompt=True)
        model.train()
        shape = f"the backbone's {model.lm.config.n_layer} layers x {model.lm.config.n_embd}, the prompt first"
    else:
        model = ConvSeq2seq(config_from_args(args, sp.get_piece_size(), encoder_attention=True))
        if args.init_decoder and not resume:  # resumed: train_loop loads every weight
            init_decoder_from(model.decoder, args.init_decoder)
        shape = f"self-attention {model.c.self_attention_flags()} heads x factors {model.c.downsampling()}"
    model.to(device)
    train = load_pairs(sp, args.data, "train", args.max_src, args.max_tgt)
    val = load_pairs(sp, args.data, "val", args.max_src, args.max_tgt)
    log(f"{model.kind} seq2seq: {count_parameters(model) / 1e6:.2f}M params, {len(train)} pairs, {shape}")
    run_training(
        model,
        train,
        val,
        args,
        device,
        seq2seq_loss,
        lambda x: len(x[1]),
        {"stage": "seq2seq", "init": args.backbone or args.init_decoder},
    )


def cmd_fusion(args):
    device = pick_device(args.device)
    torch.manual_seed(D.SEED)
    sp = T.load(os.path.join(args.data, "spm.model"))
    resume = resume_checkpoint(args)
    if resume:  # the frozen model is in the checkpoint too: --pretrained and --init-decoder are not read
        model, _ = load_model(resume)
        pretrained = model.pretrained
    elif args.pretrained_backbone:
        pretrained = backbone_from(args.pretrained_backbone, sp, args, reads_prompt=False)
        model = FusedStoryModel(config_from_args(args, sp.get_piece_size(), encoder_attention=True), pretrained)
    else:
        pretrained, _ = load_model(args.pretrained)
        assert pretrained.kind in ("seq2seq", "backbone"), "--pretrained needs a seq2seq checkpoint"
        if pretrained.kind == "backbone":
            check_room(pretrained.lm.config.n_positions, args, pretrained.c.reads_prompt)
        model = FusedStoryModel(config_from_args(args, sp.get_piece_size(), encoder_attention=True), pretrained)
        if args.init_decoder:
            init_decoder_from(model.trained.decoder, args.init_decoder)
    if args.init_embeddings and not resume:  # the trained half's word embeddings (and tied output) from the backbone's
        embeddings_from_backbone(model.trained.decoder.embed, args.init_embeddings)
    model.to(device)
    train = load_pairs(sp, args.data, "train", args.max_src, args.max_tgt)
    val = load_pairs(sp, args.data, "val", args.max_src, args.max_tgt)
    log(
        f"fusion: {count_parameters(model, True) / 1e6:.2f}M trainable + {count_parameters(pretrained) / 1e6:.2f}M"
        " frozen params"
    )
    run_training(
        model,
        train,
        val,
        args,
        device,
        seq2seq_loss,
        lambda x: len(x[1]),
        {"stage": "fusion", "pretrained": args.pretrained or args.pretrained_backbone},
    )


# ---------------------------------------------------------------------------------------------
# Generation: top-k random sampling (section 5.3: k = 10) with a temperature, incremental state
# ---------------------------------------------------------------------------------------------


def cmd_sample(args):
    torch.set_num_threads(1)
    sp = T.load(os.path.join(args.data, "spm.model"))
    model, _ = load_model(args.ckpt)
    prompt = args.prompt
    if not prompt.strip():
        lm, _ = load_model(args.premise_ckpt)
        prompt = sp.decode(generate_premise(lm, seed=args.seed))
        print("premise:", prompt)
    ids, gates, secs = generate(
        model, encode_source(sp, prompt, args.max_src), args.max_tgt, args.topk, args.temperature, args.seed
    )
    print(sp.decode(ids))
    print(f"{len(ids)} tokens in {secs:.2f}s ({len(ids) / max(secs, 1e-9):.0f} tokens/s)")
    if gates:
        print("fusion gates (trained, pretrained) per token:", list(zip(sp.id_to_piece(ids), gates))[:20])


# ---------------------------------------------------------------------------------------------
# Evaluation (Tables 2-3): perplexity, prompt ranking, copying (section 7.1)
# ---------------------------------------------------------------------------------------------


def prompt_ranking(model, pairs, pool, device, limit, seed=D.SEED):
    """For each test story: its own prompt and 9 random other prompts of the same domain (from the
    whole split, `pool`); the model ranks them by the story's likelihood. Accuracy: the share where
    the true prompt scores best (ties count as misses). Same-domain distractors: otherwise style
    alone (a fairy-tale prompt for a fairy-tale window) would give the answer away."""
    rng = random.Random(seed)
    by_domain = defaultdict(dict)
    for p in pool:
        by_domain[p[2]["domain"]][p[2]["prompt"]] = p[0]
    chosen = list(pairs)
    rng.shuffle(chosen)
    chosen = chosen[:limit] if limit else chosen
    hits, per = 0, Counter()
    totals = Counter()
    with torch.no_grad():
        for src, tgt, r in chosen:
            others = [ids for prompt, ids in by_domain[r["domain"]].items() if prompt != r["prompt"]]
            cands = [src] + rng.sample(others, 9)
            nll = story_nll(model, cands, [tgt] * 10, device)
            ok = int(nll.argmin()) == 0 and float(nll[0]) < float(nll[1:].min())
            hits += ok
            per[r["domain"]] += ok
            totals[r["domain"]] += 1
    return hits / max(1, len(chosen)), {d: per[d] / totals[d] for d in totals}, len(chosen)


WORDS = re.compile(r"[a-z0-9']+")


def lcs(a, b):
    """Longest common subsequence length of two token lists (O(len a x len b))."""
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b):
            cur.append(prev[j] + 1 if x == y else max(prev[j + 1], cur[j]))
        prev = cur
    return prev[-1]


class NearestStories:
    """TF-IDF cosine over word counts, to find the closest training stories before the exact LCS."""

    def __init__(self, stories):
        self.docs = [WORDS.findall(s.lower()) for s in stories]
        df = Counter(w for d in self.docs for w in set(d))
        n = len(self.docs)
        self.idf = {w: math.log(n / c) for w, c in df.items()}
        self.vecs = [self.vec(d) for d in self.docs]
        self.index = defaultdict(list)
        for i, v in enumerate(self.vecs):
            for w in v:
                self.index[w].append(i)

    def vec(self, words):
        tf = Counter(words)
        v = {w: c * self.idf.get(w, 0.0) for w, c in tf.items()}
        norm = math.sqrt(sum(x * x for x in v.values())) or 1.0
        return {w: x / norm for w, x in v.items()}

    def nearest(self, words, k):
        q = self.vec(words)
        score = Counter()
        for w, x in q.items():
            for i in self.index.get(w, ()):
                score[i] += x * self.vecs[i][w]
        return [i for i, _ in score.most_common(k)]


def copying(texts, nearest, k=5):
    """Section 7.1: the average (over stories) longest common subsequence, in words, between a story and
    the closest training stories (the most similar k by TF-IDF, the longest LCS among them)."""
    vals = []
    for t in texts:
        words = WORDS.findall(t.lower())
        vals.append(max((lcs(words, nearest.docs[i]) for i in nearest.nearest(words, k)), default=0))
    return float(np.mean(vals)) if vals else 0.0, vals


def cmd_eval(args):
    device = pick_device(args.device)
    sp = T.load(os.path.join(args.data, "spm.model"))
    test = load_pairs(sp, args.data, args.split, args.max_src, args.max_tgt)
    if args.domains:
        test = [p for p in test if p[2]["domain"] in args.domains.split(",")]
    pool = test
    if args.limit:
        test = test[: args.limit]
    train_rows = read_jsonl(os.path.join(args.data, "story.train.jsonl"))
    nearest = NearestStories([r["story"] for r in train_rows])
    rng = random.Random(D.SEED)
    gen_prompts = rng.sample(test, min(args.generate, len(test)))
    human_lcs, _ = copying([p[2]["story"] for p in gen_prompts], nearest)
    rows, report = [], {"split": args.split, "stories": len(test), "human_lcs": human_lcs, "models": {}}
    for spec in args.model:
        name, path = spec.split("=", 1)
        model, meta = load_model(path)
        model.to(device)
        t0 = time.time()
        ppl = perplexity(model, test, device)
        r = {
            "kind": model.kind,
            "params": count_parameters(model),
            "ppl": ppl,
            "train": {k: meta.get(k) for k in ("steps", "tokens", "val")},
        }
        if model.kind != "lm":
            acc, acc_dom, n = prompt_ranking(model, test, pool, device, args.rank_limit)
            r.update(ranking=acc, ranking_by_domain=acc_dom, ranking_n=n)
            model.cpu()
            texts, toks, secs = [], 0, 0.0
            for i, (src, _, _) in enumerate(gen_prompts):
                ids, _, s = generate(model, src, args.gen_tokens, args.topk, args.temperature, seed=i)
                texts.append(sp.decode(ids))
                toks += len(ids)
                secs += s
            r["lcs"], _ = copying(texts, nearest)
            r["sampling_tokens_per_s"] = toks / max(secs, 1e-9)
            r["samples"] = texts[:3]
        r["eval_seconds"] = round(time.time() - t0)
        report["models"][name] = r
        log(
            f"{name}: ppl {r['ppl']['all']['token_ppl']:.1f}/token {r['ppl']['all']['word_ppl']:.1f}/word"
            + (
                f", ranking {r['ranking']:.3f}, LCS {r['lcs']:.1f}, {r['sampling_tokens_per_s']:.0f} tokens/s"
                if "ranking" in r
                else ""
            )
            + f" ({r['eval_seconds']}s)"
        )
    domains = sorted({d for r in report["models"].values() for d in r["ppl"] if d != "all"})
    head = (
        ["model", "params", "test ppl (tokens)", "test ppl (words)"]
        + [f"{d} ppl (words)" for d in domains]
        + ["prompt ranking", "copying LCS (words)", "sampling tokens/s (PyTorch, 1 thread)"]
    )
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, r in report["models"].items():
        cells = [
            name,
            f"{r['params'] / 1e6:.2f}M",
            f"{r['ppl']['all']['token_ppl']:.1f}",
            f"{r['ppl']['all']['word_ppl']:.1f}",
        ]
        cells += [f"{r['ppl'][d]['word_ppl']:.1f}" if d in r["ppl"] else "" for d in domains]
        cells += [
            f"{100 * r['ranking']:.1f}% (n={r['ranking_n']})" if "ranking" in r else "–",
            f"{r['lcs']:.1f}" if "lcs" in r else "–",
            f"{r['sampling_tokens_per_s']:.0f}" if "sampling_tokens_per_s" in r else "–",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    lines.append(f"| human test stories | | | | " + " | " * len(domains) + f"10.0% (chance) | {human_lcs:.1f} | |")
    table = "\n".join(lines)
    print(table)
    if args.report:
        os.makedirs(os.path.dirname(args.report) or ".", exist_ok=True)
        json.dump({**report, "table": table}, open(args.report, "w"), indent=1)


# ---------------------------------------------------------------------------------------------
def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("cmd", choices=["prepare", "premise", "seq2seq", "fusion", "eval", "sample", "export"])
    p.add_argument("--data", default=".data")
    p.add_argument("--device", default="auto")
    p.add_argument("--out", default="runs/story.pt")
    p.add_argument("--init", help="premise: go on from this language-model checkpoint")
    p.add_argument("--init-decoder", help="seq2seq/fusion: start the decoder from this language model")
    p.add_argument(
        "--pretrained", help="fusion: the frozen pretrained seq2seq (a Conv seq2seq or seq2seq --backbone's)"
    )
    p.add_argument("--backbone", help="seq2seq: grow it from the shared backbone (backbone.py), the prompt read first")
    p.add_argument(
        "--init-embeddings",
        help=(
            "fusion: the trained half's word embeddings from a backbone checkpoint (same tokenizer, --embed-dim its"
            " width)"
        ),
    )
    p.add_argument("--pretrained-backbone", help="fusion: fuse with the shared backbone (backbone.py) instead, frozen")
    p.add_argument(
        "--corpus",
        choices=["premise", "lm", "stories", "simple"],
        default="premise",
        help="training: what the language model reads; prepare --corpus simple: the simple-stories pairs",
    )
    p.add_argument("--lm-lines", type=int, default=0, help="read only this many lines of the LM text (0: all)")
    # budget and optimisation
    p.add_argument("--minutes", type=float, default=30)
    p.add_argument("--steps", type=int, default=10**9)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--warmup", type=int, default=200)
    p.add_argument("--batch-tokens", type=int, default=4000)
    p.add_argument("--label-smoothing", type=float, default=0.1)
    p.add_argument("--dropout", type=float, default=0.1)
    p.add_argument("--log-every", type=int, default=25)
    p.add_argument("--val-every", type=int, default=500)
    p.add_argument("--val-limit", type=int, default=400)
    add_resume_arg(p)
    # sizes
    p.add_argument("--embed-dim", type=int, default=128)
    p.add_argument("--hidden", type=int, default=192)
    p.add_argument("--encoder-layers", type=int, default=3)
    p.add_argument("--decoder-layers", type=int, default=4)
    p.add_argument("--encoder-kernel", type=int, default=3)
    p.add_argument("--decoder-kernel", type=int, default=4)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--attention-dim", type=int, default=128)
    p.add_argument("--self-attention-layers", type=int, default=0, help="0: every decoder layer")
    p.add_argument("--max-src", type=int, default=128)
    p.add_argument("--max-tgt", type=int, default=256)
    # ablations (Tables 2-3)
    p.add_argument("--no-self-attention", action="store_true", help="the plain Conv seq2seq (or GCNN LM)")
    p.add_argument("--no-gating", action="store_true", help="queries/keys/values by one linear map")
    p.add_argument("--no-multiscale", action="store_true", help="every head sees every earlier position")
    p.add_argument("--no-zero-attention", action="store_true", help="no zero key/value to attend to")
    # eval / sample
    p.add_argument("--model", action="append", default=[], help="eval: NAME=checkpoint (repeat)")
    p.add_argument("--split", default="test")
    p.add_argument("--domains", default="", help="eval: only these domains (comma-separated)")
    p.add_argument("--limit", type=int, default=0, help="eval: the first N test stories (0: all)")
    p.add_argument("--rank-limit", type=int, default=300, help="eval: stories for prompt ranking (0: all)")
    p.add_argument("--generate", type=int, default=30, help="eval: stories generated for the copying check")
    p.add_argument("--gen-tokens", type=int, default=200)
    p.add_argument("--topk", type=int, default=10)
    p.add_argument("--temperature", type=float, default=0.8)
    p.add_argument("--report", help="eval: also write the numbers as JSON here")
    p.add_argument("--ckpt")
    p.add_argument("--premise-ckpt")
    p.add_argument("--prompt", default="")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--fixture", help="export: where the parity fixture goes (default test/fixtures/story-parity.json)")
    p.add_argument("--bench", help="export: a folder for the recompute-every-step graph and PyTorch references")
    p.add_argument(
        "--weights",
        choices=["int8", "float32"],
        default="int8",
        help="export: weight matrices as int8 + a scale per row (4x smaller; weight_storage.py) or float32",
    )
    args = p.parse_args()
    if args.cmd == "prepare":
        prepare_simple_story(args.data) if args.corpus == "simple" else prepare_story(args.data)
    elif args.cmd == "export":
        from .export_story import export

        export(args.ckpt, args.premise_ckpt, args.out, args.data, args.fixture, args.bench, args.weights)
    else:
        {"premise": cmd_premise, "seq2seq": cmd_seq2seq, "fusion": cmd_fusion, "eval": cmd_eval, "sample": cmd_sample}[
            args.cmd
        ](args)


if __name__ == "__main__":
    main()
