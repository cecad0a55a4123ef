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
import os
import random
import time

import torch

from . import data as D
from . import tokenizer as T
from .batching import token_batches
from .roundtrip_model import MODELS, Config, RoundTrip, load_model
from .roundtrip_data import load as load_rows, prepare_everyday, prepare_general, prepare_roundtrip, prepare_simple
from . import training as R
from .training import log, nll_and_ppl, pick_device

# ---------------------------------------------------------------------------------------------
# Training
# ---------------------------------------------------------------------------------------------


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
