#!/bin/sh
# The known-word list of every shipped model (models/<system>/words.txt, named in its model.json as
# files.knownWords): the words its training text holds at least twice, for the vocabulary guard
# (extension/engine/decode/guards.ts). Needs the prepared data (each train_*.sh prepares its own).
#   sh wordlists.sh                                  # all five: summarize and reply from ../../.data, the models of
#                                                    # simple stories (essay, story, roundtrip) from ../../.data/simple
#   ROUNDTRIP_DATA=../../.data sh wordlists.sh roundtrip   # one system, another data folder
# (ESSAY_DATA, STORY_DATA too)
# The story list reads the story model's own task text (prompt -> story pairs and premises), not the
# mixed-domain language-model corpus its decoder was pretrained on: the guard keeps it to story words.
set -e
cd "$(dirname "$0")"
PY=${PY:-python3}
DATA=${DATA:-../../.data}
MODELS=${MODELS:-..}
SIMPLE=${SIMPLE:-$DATA/simple}   # where prepare --corpus simple wrote the shipped essay, story and round-trip pairs
first() { for f in "$@"; do [ -f "$f" ] && { echo "$f"; return; }; done; echo "missing: $*" >&2; exit 1; }
wl() {
  system=$1
  shift
  $PY -m draftsmith_train.wordlist --data "$@" --out "$MODELS/$system/words.txt" --manifest "$MODELS/$system/model.json"
}
ONLY="$*"
for system in summarize essay story roundtrip reply; do
  [ -z "$ONLY" ] || case " $ONLY " in *" $system "*) ;; *) continue;; esac
  case $system in
    summarize) wl summarize "$(first "$DATA/summarize.train.jsonl")" ;;
    essay) wl essay "$(first "${ESSAY_DATA:-$SIMPLE}/essay.train.jsonl")" ;;
    story)
      D=${STORY_DATA:-$SIMPLE}
      wl story "$(first "$D/story.train.jsonl")" "$(first "$D/story_premise.train.txt")" ;;
    roundtrip) wl roundtrip "$(first "${ROUNDTRIP_DATA:-$SIMPLE}/roundtrip.train.jsonl")" ;;
    reply) wl reply "$(first "$DATA/reply/reply.train.jsonl" "$DATA/reply.train.jsonl")" ;;
  esac
done
