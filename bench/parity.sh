#!/bin/sh
# bench/parity.sh OLD_BIN NEW_BIN [POLICIES]: run each policy with both
# binaries on the built-in Philly trace (its 2000 rounds; and in exact timing
# with the llama3 failure preset, seed 1) and on the 82k-job
# synthesised Philly trace on paper-10240 (--rounds 4000), write the results
# directories and compare every file byte for byte (cmp). Build both binaries
# without -ldflags (go build -o BIN ./cmd/arena) so that the revision they
# record is the same. Compared: every results file but the lock and the
# file manifest (.arena*), and summary.json without its wall-clock lines
# (run_s, decision_*_s). Exit status 1 if any differs.
set -u
old=$1 new=$2
pols=${3:-"fcfs tiresias srtf gavel sia elasticflow-ls arena ftf gavel-fair"}
dir=${PARITY_DIR:-/tmp/arena-parity}
mkdir -p "$dir"
big=$dir/philly-arena.csv
[ -f "$big" ] || "$old" trace synth --recipe arena --from philly-pollux --seed 1 -o "$big" >/dev/null 2>&1
here=$(dirname "$0")/..
fail=0
for p in $pols; do
  for run in philly faults big; do
    for b in old new; do
      bin=$old; [ $b = new ] && bin=$new
      rm -rf "$dir/$b-$run-$p"
      if [ $run = philly ]; then
        "$bin" simulate --trace philly --policy "$p" --quiet --no-reference --out "$dir/$b-$run-$p" >/dev/null 2>"$dir/$b-$run-$p.err"
      elif [ $run = faults ]; then
        "$bin" simulate --trace philly --policy "$p" --timing exact --faults llama3 --seed 1 --quiet --no-reference \
          --out "$dir/$b-$run-$p" >/dev/null 2>"$dir/$b-$run-$p.err"
      else
        "$bin" simulate --trace "$big" --cluster "$here/examples/scale/paper-10240.yaml" --policy "$p" --timing exact \
          --rounds 4000 --quiet --no-reference --out "$dir/$b-$run-$p" >/dev/null 2>"$dir/$b-$run-$p.err"
      fi
    done
    for b in old new; do
      find "$dir/$b-$run-$p" -name '.arena*' -delete
      for s in "$dir/$b-$run-$p"/*/summary.json; do
        grep -Ev '"(run_s|decision_[a-z0-9_]*_s)":' "$s" >"$s.t" && mv "$s.t" "$s"
      done
    done
    n=$(find "$dir/old-$run-$p" -type f | wc -l)
    if diff -r "$dir/old-$run-$p" "$dir/new-$run-$p" >/dev/null; then
      echo "same      $run $p ($n files)"
    else
      echo "DIFFERENT $run $p"; diff -rq "$dir/old-$run-$p" "$dir/new-$run-$p"; fail=1
    fi
  done
done
exit $fail
