"""The learned scorer of Summarize Document's extractive mode (extension/engine/systems/extractiveFeatures.ts).

A logistic regression over each sentence's features (the attention's rank, a prior per position, centrality,
the title's share, length, quoted share, whether it points back, whether it is a caption), fitted on CNN's
training split with each sentence's membership in the greedy ROUGE oracle as the label (SummaRuNNer's labels,
Nallapati et al. 2017, section 4: sentences are added while they raise ROUGE-1 + ROUGE-2 F1 of the set against
the highlights). The features are computed by the engine itself, so fitting and the editor see the same
numbers:

    node dist/cli.js eval summarize --mode extractive --split train --domain news --limit 3000 \
      --features .data/extractive-features.train.jsonl
    python3 -m draftsmith_train.extractive_scorer fit --train ../../.data/extractive-features.train.jsonl \
      --out ../summarize/extractive.json

CNN articles have no title line, so the title's weight cannot be learned there: it is set to the fitted
centrality weight (the hand-set scorer's ratio, title 1 : centrality 1). Settings are then compared with
`eval summarize --split val --scorer ../summarize/extractive.json` (validation splits only).
"""

import argparse
import json
import re
import time

import numpy as np

FEATURES = [
    "attention rank",
    "inverse position",
    "first",
    "second",
    "third",
    "fourth",
    "fifth",
    "sixth to tenth",
    "relative position",
    "centrality",
    "title share",
    "length",
    "short",
    "quote share",
    "points back",
    "caption",
]
TOKEN = re.compile(r"[a-z0-9]+")


def tokens(text):
    return TOKEN.findall(text.lower())


def ngrams(toks, n):
    out = {}
    for i in range(len(toks) - n + 1):
        g = tuple(toks[i : i + n])
        out[g] = out.get(g, 0) + 1
    return out


def f1(pred, ref):
    """ROUGE-N F1 of two n-gram count dicts (clipped overlap)."""
    if not pred or not ref:
        return 0.0
    hit = sum(min(c, ref.get(g, 0)) for g, c in pred.items())
    if hit == 0:
        return 0.0
    p, r = hit / sum(pred.values()), hit / sum(ref.values())
    return 2 * p * r / (p + r)


def oracle(sentences, reference, max_sentences=5):
    """Greedy ROUGE oracle: indices of the sentences that, added one at a time, raise R-1 + R-2 F1."""
    ref = tokens(reference)
    r1, r2 = ngrams(ref, 1), ngrams(ref, 2)
    toks = [tokens(s) for s in sentences]
    chosen, best = [], 0.0
    while len(chosen) < max_sentences:
        pick = None
        for i in range(len(sentences)):
            if i in chosen:
                continue
            t = [w for j in sorted(chosen + [i]) for w in toks[j]]
            s = f1(ngrams(t, 1), r1) + f1(ngrams(t, 2), r2)
            if s > best:
                best, pick = s, i
        if pick is None:
            break
        chosen.append(pick)
    return set(chosen)


def load(path):
    X, y, docs = [], [], 0
    for line in open(path):
        d = json.loads(line)
        sents = d["sentences"]
        if not sents:
            continue
        gold = oracle([s["text"] for s in sents], d["references"][0])
        for k, s in enumerate(sents):
            X.append(s["x"])
            y.append(1.0 if k in gold else 0.0)
        docs += 1
    return np.array(X, dtype=np.float64), np.array(y), docs


def fit(X, y, l2, iters=50):
    """L2-regularised logistic regression by Newton's method (IRLS); the intercept is not penalised."""
    A = np.hstack([X, np.ones((len(X), 1))])
    w = np.zeros(A.shape[1])
    reg = np.full(A.shape[1], l2)
    reg[-1] = 0.0
    for _ in range(iters):
        p = 1 / (1 + np.exp(-(A @ w)))
        g = A.T @ (p - y) + reg * w
        H = (A * (p * (1 - p))[:, None]).T @ A + np.diag(reg)
        step = np.linalg.solve(H, g)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    p = 1 / (1 + np.exp(-(A @ w)))
    loss = float(-np.mean(y * np.log(p + 1e-12) + (1 - y) * np.log(1 - p + 1e-12)))
    return w[:-1], float(w[-1]), loss


def cmd_fit(args):
    t0 = time.process_time()
    X, y, docs = load(args.train)
    assert X.shape[1] == len(FEATURES), f"{X.shape[1]} features in {args.train}, {len(FEATURES)} expected"
    fixed = {}
    # A feature left out is fitted as absent (its column 0), so the others take up what it carried.
    for name in args.drop:
        X[:, FEATURES.index(name)] = 0.0
        fixed[name] = "0 (left out)"
    w, b, loss = fit(X, y, args.l2)
    # CNN has no title lines: the title share is 0 there and its weight is not learned.
    t, c = FEATURES.index("title share"), FEATURES.index("centrality")
    w[t] = w[c]
    fixed["title share"] = "set to the centrality weight (no title lines in CNN)"
    cpu = time.process_time() - t0
    out = {
        "features": FEATURES,
        "weights": [round(float(x), 6) for x in w],
        "training": {
            "data": "CNN training split (eval summarize --mode extractive --split train --domain news --limit 1200 "
            f"--features), first {docs} articles ({len(y)} sentences, {int(y.sum())} in the oracle)",
            "label": "membership in the greedy ROUGE-1 + ROUGE-2 oracle (at most 5 sentences)",
            "model": "logistic regression, Newton's method",
            "l2": args.l2,
            "intercept": round(b, 6),
            "log loss": round(loss, 4),
            "fixed": fixed,
            "cpu seconds (this run)": round(cpu, 1),
        },
    }
    with open(args.out, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    for name, x in zip(FEATURES, out["weights"]):
        print(f"{name:18s} {x:+.3f}")
    print(f"{docs} documents, {len(y)} sentences, {int(y.sum())} oracle; log loss {loss:.4f}; wrote {args.out}")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("cmd", choices=["fit"])
    p.add_argument("--train", required=True, help="the engine's feature file of CNN's training split")
    p.add_argument("--out", required=True)
    p.add_argument("--l2", type=float, default=1.0)
    p.add_argument("--drop", nargs="*", default=[], help="features whose weight is set to 0")
    cmd_fit(p.parse_args())


if __name__ == "__main__":
    main()
