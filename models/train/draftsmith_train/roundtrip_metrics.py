"""Python approximations of the Round-Trip metrics, for the recipe's own eval table.

The model card's numbers come from the TypeScript metrics (extension/engine/metrics: bleu.ts matches
sacreBLEU, rouge.ts matches rouge-score and ROUGE-1.5.5's ROUGE-W, coherence.ts follows Eq. 18 with
wink-nlp parts of speech). Here:
  BLEU      corpus BLEU-4 (0-100), brevity penalty, no smoothing, on lowercased word/punctuation
            tokens (close to, not exactly, sacreBLEU's 13a tokenizer)
  ROUGE-N   F1 of clipped n-gram overlap, rouge-score's tokens (lowercase, [a-z0-9]+), no stemming;
            mean over paragraphs
  ROUGE-W   F of the weighted LCS, f(k) = k^1.2 (Lin 2004, Eqs. 10-12); mean over paragraphs
  L         Eq. 18 with content words = lowercased alphabetic tokens that are not stop words (no
            part-of-speech tagger in Python here: coherence.ts uses nouns and verbs); alignment by
            set F1, the earliest input sentence on a tie, unaligned with no overlap; mean over
            paragraphs where it is defined (>= 2 aligned output sentences)
"""
import math
import re
from collections import Counter

from .data import STOP
from .roundtrip_data import split_sentences

TOK = re.compile(r"[a-z0-9]+")
BLEU_TOK = re.compile(r"\w+|[^\w\s]")
W = 1.2


def rouge_tokens(text):
    return TOK.findall(text.lower())


def ngrams(toks, n):
    return Counter(tuple(toks[i : i + n]) for i in range(len(toks) - n + 1))


def f1(overlap, p_total, r_total):
    if overlap == 0 or p_total == 0 or r_total == 0:
        return 0.0
    p, r = overlap / p_total, overlap / r_total
    return 2 * p * r / (p + r)


def rouge_n(hyp, ref, n):
    h, r = ngrams(hyp, n), ngrams(ref, n)
    return f1(sum((h & r).values()), sum(h.values()), sum(r.values()))


def rouge_w(hyp, ref, w=W):
    m, n = len(ref), len(hyp)
    if m == 0 or n == 0:
        return 0.0
    c = [[0.0] * (n + 1) for _ in range(m + 1)]
    k = [[0] * (n + 1) for _ in range(m + 1)]
    for i in range(1, m + 1):
        for j in range(1, n + 1):
            if ref[i - 1] == hyp[j - 1]:
                run = k[i - 1][j - 1]
                c[i][j] = c[i - 1][j - 1] + (run + 1) ** w - run**w
                k[i][j] = run + 1
            elif c[i - 1][j] > c[i][j - 1]:
                c[i][j] = c[i - 1][j]
            else:
                c[i][j] = c[i][j - 1]
    score = c[m][n]
    p, r = (score / n**w) ** (1 / w), (score / m**w) ** (1 / w)
    return 0.0 if p + r == 0 else 2 * p * r / (p + r)


def corpus_bleu(hyps, refs):
    match, total, hl, rl = [0] * 4, [0] * 4, 0, 0
    for h, r in zip(hyps, refs):
        h, r = BLEU_TOK.findall(h.lower()), BLEU_TOK.findall(r.lower())
        hl, rl = hl + len(h), rl + len(r)
        for n in range(1, 5):
            hn, rn = ngrams(h, n), ngrams(r, n)
            match[n - 1] += sum((hn & rn).values())
            total[n - 1] += max(0, len(h) - n + 1)
    if hl == 0 or min(match) == 0:
        return 0.0
    logp = sum(math.log(m / t) for m, t in zip(match, total)) / 4
    bp = 1.0 if hl >= rl else math.exp(1 - rl / hl)
    return 100 * bp * math.exp(logp)


def content_words(sentence):
    return {t for t in re.findall(r"[a-z]+", sentence.lower()) if t not in STOP and len(t) > 1}


def coherence_l(inp, out):
    """Eq. 18 over sentence lists; None when fewer than two output sentences align."""
    sets = [content_words(s) for s in inp]
    aligned = []
    for o, s in enumerate(out):
        words, best, best_f1 = content_words(s), None, 0.0
        for i, ref in enumerate(sets):
            f = 0.0 if not words or not ref else 2 * len(words & ref) / (len(words) + len(ref))
            if f > best_f1:
                best, best_f1 = i, f
        if best is not None:
            aligned.append((o, best))
    pairs = [(a, b) for x, a in enumerate(aligned) for b in aligned[x + 1 :]]
    if not pairs:
        return None
    return sum(abs((b[1] - a[1]) - (b[0] - a[0])) for a, b in pairs) / len(pairs)


def score_all(refs, hyps, split_standard=False):
    """refs, hyps: lists of sentence lists (a standard model's output is one string: re-split)."""
    if split_standard:
        hyps = [split_sentences(" ".join(h)) for h in hyps]
    ref_text, hyp_text = [" ".join(r) for r in refs], [" ".join(h) for h in hyps]
    r1 = [rouge_n(rouge_tokens(h), rouge_tokens(r), 1) for h, r in zip(hyp_text, ref_text)]
    r2 = [rouge_n(rouge_tokens(h), rouge_tokens(r), 2) for h, r in zip(hyp_text, ref_text)]
    rw = [rouge_w(rouge_tokens(h), rouge_tokens(r)) for h, r in zip(hyp_text, ref_text)]
    ls = [x for x in (coherence_l(r, h) for r, h in zip(refs, hyps)) if x is not None]
    return {
        "bleu": corpus_bleu(hyp_text, ref_text),
        "rouge1": sum(r1) / len(r1),
        "rouge2": sum(r2) / len(r2),
        "rougeW": sum(rw) / len(rw),
        "L": sum(ls) / len(ls) if ls else None,
        "L_defined": len(ls),
    }
