#!/usr/bin/env bash
# make test-slurm (second part): arena replay --on slurm on an emulated
# Slurm cluster of testbed-64's 32 nodes, started and stopped by arena.
#
#  1. Both modes, fcfs and srtf, the testbed trace's first 60 jobs at 600×
#     (about 2 minutes): every policy-mode placement must be arena's, every
#     start must report its times, and the calibrated mean-JCT error must be
#     within ±15 % for each policy (policy mode) and for fcfs, the model of
#     Slurm's FCFS-per-type scheduler (native mode) — measured on a loaded
#     2-core machine: −3.5 … +4.3 % (policy) and −6.1 … +6.8 % (native, 60
#     jobs) (docs/replay.md). The band is wide because hand-off time is the
#     machine's; the tight bound is the deterministic run's (2.).
#  2. The deterministic option (stand-ins end at their simulated ends), fcfs,
#     policy mode: mean-JCT error within ±2 % (measured +0.3 %).
#  3. Ctrl-C in the middle of a replay: arena exits 130 and no process of the
#     emulated cluster (any process carrying its SLURM_CONF) is left.
# After each run no daemon, slurmstepd or stand-in of the cluster may remain.
#
# Without root or apt-get (and without Slurm and MUNGE installed) it cannot
# run: it says so loudly and exits 0 — unless ARENA_SLURM_REQUIRED=1 (CI sets
# it), when that is a failure. ARENA_SLURM_KEEP=1 keeps the work directory.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
T0=$SECONDS

TEST=test-slurm-replay
. .ci/slurm-lib.sh

# --- packages ----------------------------------------------------------------
need_packages srun=slurm-client sbatch=slurm-client slurmctld=slurmctld slurmd=slurmd munged=munge munge=munge
[ "$(id -u)" = 0 ] || skip "the emulated cluster's daemons need root (SlurmUser=root); run as root"

# --- work directory, cleanup ---------------------------------------------------
WORK=$(mktemp -d "${TMPDIR:-/tmp}/arena-replay-test.XXXXXX")
chmod 755 "$WORK"

# leftovers DIR: pids of processes carrying the emulated cluster DIR's SLURM_CONF.
leftovers() {
  local f pid
  for f in /proc/[0-9]*/environ; do
    pid=${f#/proc/}; pid=${pid%/environ}
    grep -qzxF "SLURM_CONF=$1/slurm.conf" "$f" 2>/dev/null && echo "$pid"
  done
  return 0
}

cleanup() {
  local rc=$? d p
  trap - EXIT INT TERM
  set +e
  # arena stops its own cluster; whatever a failed run left is killed here, by pid.
  for d in "$WORK"/cluster-* "$WORK"/cluster-*/*; do
    [ -d "$d" ] || continue
    for p in $(leftovers "$d"); do kill -KILL "$p" 2>/dev/null; done
  done
  if [ $rc -ne 0 ]; then
    for f in "$WORK"/*.log "$WORK"/cluster-*/log/slurmctld.log "$WORK"/cluster-*/*/log/slurmctld.log; do
      [ -f "$f" ] && { echo "== $f"; tail -n 20 "$f"; }
    done >&2
  fi
  if [ "${ARENA_SLURM_KEEP:-}" = 1 ] || [ $rc -ne 0 ]; then
    say "work directory kept: $WORK"
  else
    rm -rf "$WORK"
  fi
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

check_clean() {
  local left
  left=$(leftovers "$1" | tr '\n' ' ')
  [ -z "$left" ] || die "processes of the emulated cluster $1 left after arena exited: $left($(ps -o pid,cmd -p ${left// /,} | tail -n +2))"
}

go build -o "$WORK/arena" ./cmd/arena
ARENA=$WORK/arena

# --- 1. both modes, two policies ------------------------------------------------
say "1. both modes, fcfs and srtf, 60 testbed jobs at 600x on testbed-64"
"$ARENA" replay --on slurm --cluster testbed-64 --trace testbed --policy fcfs,srtf --mode both \
  --speed 600 --jobs 60 --max-error 15 --workdir "$WORK/cluster-both" --out "$WORK/out" \
  >"$WORK/both.md" 2>"$WORK/both.log" || { cat "$WORK/both.md" >&2; die "arena replay (both modes) failed: $(tail -n 5 "$WORK/both.log")"; }
cat "$WORK/both.md" >&2
check_clean "$WORK/cluster-both/policy"
check_clean "$WORK/cluster-both/native"
for f in replay.json jobs.csv REPORT.md; do [ -s "$WORK/out/$f" ] || die "no $f in the results directory"; done
grep -q '^| policy | fcfs |' "$WORK/out/REPORT.md" || die "REPORT.md has no policy-mode fcfs row"
grep -q '^| native | fcfs |' "$WORK/out/REPORT.md" || die "REPORT.md has no native-mode fcfs row"
grep -q '^Ranking by mean JCT' "$WORK/out/REPORT.md" || die "REPORT.md has no ranking line"

# --- 2. deterministic --------------------------------------------------------------
say "2. policy mode, fcfs, --deterministic: error within ±2 %"
"$ARENA" replay --on slurm --cluster testbed-64 --trace testbed --policy fcfs --mode policy --deterministic \
  --speed 600 --jobs 60 --max-error 2 --workdir "$WORK/cluster-det" \
  >"$WORK/det.md" 2>"$WORK/det.log" || { cat "$WORK/det.md" >&2; die "arena replay --deterministic failed: $(tail -n 5 "$WORK/det.log")"; }
grep '^| policy' "$WORK/det.md" >&2
check_clean "$WORK/cluster-det"

# --- 3. Ctrl-C -----------------------------------------------------------------------
say "3. SIGINT in the middle of a replay"
"$ARENA" replay --on slurm --cluster testbed-64 --trace testbed --policy fcfs --mode policy \
  --speed 600 --jobs 60 --workdir "$WORK/cluster-int" >"$WORK/int.md" 2>"$WORK/int.log" &
APID=$!
end=$((SECONDS + 60))
until grep -q "starts done" "$WORK/int.log"; do
  [ $SECONDS -lt $end ] || die "the interrupted replay did not get going within 60 s"
  kill -0 $APID 2>/dev/null || die "the replay to interrupt exited early: $(tail -n 3 "$WORK/int.log")"
  sleep 0.5
done
[ -n "$(leftovers "$WORK/cluster-int")" ] || die "no process of the running cluster found (the check would prove nothing)"
kill -INT $APID
rc=0
wait $APID || rc=$?
[ $rc = 130 ] || die "arena exited $rc after SIGINT, want 130"
check_clean "$WORK/cluster-int"

say "PASS in $((SECONDS - T0))s: placements identical, calibrated errors within the bands, nothing left behind"
