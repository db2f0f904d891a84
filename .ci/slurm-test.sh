#!/usr/bin/env bash
# make test-slurm: run a sweep on a real, private, single-node Slurm cluster
# and check it equals the same sweep run locally.
#
# It installs Slurm, MUNGE and (for sacct) slurmdbd + MariaDB from Debian
# packages when absent, then starts every service itself from a temporary
# directory, on loopback addresses and random ports, with its own MUNGE key
# and socket: munged, mariadbd, slurmdbd, slurmctld, slurmd. It submits the
# script `arena sweep SPEC --emit slurm --shards 4` writes (with bash, so the
# array and its dependent merge job are both submitted), cancels one array
# task once it has finished some runs and requeues it, waits for the merge
# job, and compares OUT with a local `arena sweep SPEC` (`arena sweep
# --compare`: every run's files byte for byte, summary.parquet row for row,
# wall-clock fields aside). A second array with every run failing must show
# in sacct as FAILED with a non-zero exit code. Whatever happens, the trap
# cancels the jobs and stops the daemons it started, by their pids.
#
# Without root or apt-get (and without Slurm installed) it cannot run: it
# says so loudly and exits 0 — unless ARENA_SLURM_REQUIRED=1 (CI sets it),
# when that is a failure. ARENA_SLURM_KEEP=1 keeps the work directory.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
T0=$SECONDS

TEST=test-slurm
. .ci/slurm-lib.sh

# --- 1. packages -----------------------------------------------------------
# command → Debian package; slurmdbd and mariadb give sacct its database.
need_packages sbatch=slurm-client slurmctld=slurmctld slurmd=slurmd munged=munge slurmdbd=slurmdbd mariadbd=mariadb-server mariadb-install-db=mariadb-server
[ "$(id -u)" = 0 ] || skip "Slurm's daemons need root here (SlurmUser=root); run as root"

# --- 2. work directory, cleanup --------------------------------------------
WORK=$(mktemp -d "${TMPDIR:-/tmp}/arena-slurm.XXXXXX")
chmod 755 "$WORK"
mkdir -p "$WORK"/{log,munge,db,ctld,spool,bin}
chmod 711 "$WORK/munge"
declare -a PIDS=() NAMES=()
JOBS=""

started() { PIDS+=("$1"); NAMES+=("$2"); }

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  set +e
  if [ -n "$JOBS" ] && command -v scancel >/dev/null; then
    scancel $JOBS 2>/dev/null
    for _ in $(seq 50); do
      [ -z "$(timeout 5 squeue -h -j "${JOBS// /,}" 2>/dev/null)" ] && break
      sleep 0.2
    done
  fi
  if [ $rc -ne 0 ]; then
    say "logs (last lines) in $WORK/log:"
    for f in "$WORK"/log/*.log "$WORK"/out/slurm-logs/*.log; do
      [ -f "$f" ] && { echo "== $f"; tail -n 15 "$f"; }
    done >&2
  fi
  # Stop the daemons in reverse order of starting, each by its pid.
  for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do
    kill -TERM "${PIDS[i]}" 2>/dev/null
    for _ in $(seq 50); do kill -0 "${PIDS[i]}" 2>/dev/null || break; sleep 0.2; done
    if kill -0 "${PIDS[i]}" 2>/dev/null; then
      say "${NAMES[i]} (pid ${PIDS[i]}) ignored SIGTERM for 10 s: SIGKILL"
      kill -KILL "${PIDS[i]}" 2>/dev/null
    fi
    wait "${PIDS[i]}" 2>/dev/null
  done
  [ ${#PIDS[@]} -gt 0 ] && say "stopped ${NAMES[*]}"
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

# wait_for SECONDS DESCRIPTION COMMAND...: poll COMMAND every 0.2 s.
wait_for() {
  local limit=$1 what=$2
  shift 2
  local end=$((SECONDS + limit))
  until "$@" >/dev/null 2>&1; do
    [ $SECONDS -lt $end ] || die "$what: not within ${limit}s"
    sleep 0.2
  done
}

# Ports: a random free block of four on loopback.
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
for _ in $(seq 20); do
  BASE=$((20000 + RANDOM % 30000))
  port_free $BASE && port_free $((BASE + 1)) && port_free $((BASE + 2)) && port_free $((BASE + 3)) && break
done
DB_PORT=$BASE DBD_PORT=$((BASE + 1)) CTLD_PORT=$((BASE + 2)) SLURMD_PORT=$((BASE + 3))

# --- 3. MUNGE ---------------------------------------------------------------
MUNGE_SOCK=$WORK/munge/munge.socket
dd if=/dev/urandom of="$WORK/munge/munge.key" bs=1024 count=1 status=none
chmod 600 "$WORK/munge/munge.key"
munged --foreground --force --socket="$MUNGE_SOCK" --key-file="$WORK/munge/munge.key" \
  --pid-file="$WORK/munge/munged.pid" --log-file="$WORK/log/munged.log" \
  --seed-file="$WORK/munge/munged.seed" >>"$WORK/log/munged.log" 2>&1 &
started $! munged
wait_for 20 "munged answering" bash -c "munge -S '$MUNGE_SOCK' -n | unmunge -S '$MUNGE_SOCK'"

# --- 4. MariaDB for slurmdbd (sacct needs the accounting database) ----------
mariadb-install-db --no-defaults --datadir="$WORK/db" --user=root --auth-root-authentication-method=normal \
  --skip-test-db >"$WORK/log/mariadb-install.log" 2>&1 || die "mariadb-install-db failed (see $WORK/log/mariadb-install.log)"
mariadbd --no-defaults --user=root --datadir="$WORK/db" --socket="$WORK/mariadb.sock" \
  --port=$DB_PORT --bind-address=127.0.0.1 --skip-name-resolve --skip-log-bin \
  --innodb-buffer-pool-size=32M --pid-file="$WORK/mariadb.pid" --log-error="$WORK/log/mariadb.log" \
  >>"$WORK/log/mariadb.log" 2>&1 &
started $! mariadbd
wait_for 60 "mariadbd answering" mariadb-admin --no-defaults --socket="$WORK/mariadb.sock" -uroot ping
mariadb --no-defaults --socket="$WORK/mariadb.sock" -uroot -e \
  "CREATE USER 'slurm'@'127.0.0.1' IDENTIFIED BY 'arena'; GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';"

# --- 5. Slurm configuration ---------------------------------------------------
CPUS=$(nproc)
MEM=$(awk '/MemTotal/ { printf "%d", $2 / 1024 / 2 }' /proc/meminfo)
export SLURM_CONF=$WORK/slurm.conf
cat >"$WORK/slurmdbd.conf" <<EOF
AuthType=auth/munge
AuthInfo=socket=$MUNGE_SOCK
DbdHost=localhost
DbdAddr=127.0.0.1
DbdPort=$DBD_PORT
SlurmUser=root
LogFile=$WORK/log/slurmdbd.log
PidFile=$WORK/slurmdbd.pid
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$DB_PORT
StorageUser=slurm
StoragePass=arena
StorageLoc=slurm_acct_db
EOF
chmod 600 "$WORK/slurmdbd.conf"
: >"$WORK/plugstack.conf"
cat >"$SLURM_CONF" <<EOF
# One node, this machine's $CPUS CPUs; every address on loopback.
ClusterName=arenatest
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
# A requeued job waits until its credential expires (default 120 s): 10 s.
AuthInfo=socket=$MUNGE_SOCK,cred_expire=10
CredType=cred/munge
StateSaveLocation=$WORK/ctld
SlurmdSpoolDir=$WORK/spool
SlurmctldPidFile=$WORK/slurmctld.pid
SlurmdPidFile=$WORK/slurmd.pid
SlurmctldLogFile=$WORK/log/slurmctld.log
SlurmdLogFile=$WORK/log/slurmd.log
PlugStackConfig=$WORK/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/linux
# Accounting through slurmdbd; AccountingStoragePass names its MUNGE socket.
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=localhost
AccountingStoragePort=$DBD_PORT
AccountingStoragePass=$MUNGE_SOCK
JobCompType=jobcomp/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
ReturnToService=2
MpiDefault=none
MailProg=/bin/true
MinJobAge=600
NodeName=arena0 NodeAddr=127.0.0.1 NodeHostname=localhost CPUs=$CPUS RealMemory=$MEM State=UNKNOWN
PartitionName=arena Nodes=arena0 Default=YES MaxTime=INFINITE State=UP
EOF

# --- 6. slurmdbd, slurmctld, slurmd ------------------------------------------
slurmdbd -D >>"$WORK/log/slurmdbd.log" 2>&1 &
started $! slurmdbd
wait_for 60 "slurmdbd answering" timeout 10 sacctmgr -n list cluster
timeout 20 sacctmgr -i add cluster arenatest >/dev/null
slurmctld -D -i >>"$WORK/log/slurmctld.log" 2>&1 &
started $! slurmctld
wait_for 60 "slurmctld answering" timeout 10 scontrol ping
slurmd -D -N arena0 >>"$WORK/log/slurmd.log" 2>&1 &
started $! slurmd
node_idle() { [ "$(timeout 10 sinfo -h -n arena0 -o %T)" = idle ]; }
wait_for 90 "node arena0 idle in sinfo" node_idle
say "Slurm up in $((SECONDS - T0))s: $(sinfo -h -o '%P %D node, %c CPUs, %T')"
if [ "${ARENA_SLURM_PAUSE:-}" = 1 ]; then
  # For debugging: a private cluster to try commands on, until $WORK/stop exists.
  say "paused: export SLURM_CONF=$SLURM_CONF; touch $WORK/stop to end"
  until [ -e "$WORK/stop" ]; do sleep 1; done
  exit 0
fi

# --- 7. the sweep ---------------------------------------------------------------
go build -o "$WORK/bin/arena" ./cmd/arena
ARENA=$WORK/bin/arena
mkdir -p "$WORK/spec"
cp "$ROOT/experiments/testdata/slurm/e2e.yaml" "$WORK/spec/e2e.yaml"
SPEC=$WORK/spec/e2e.yaml
OUT=$WORK/out
RUNS=$("$ARENA" sweep "$SPEC" --list | wc -l)
"$ARENA" sweep "$SPEC" --out "$OUT" --emit slurm --shards 4 --parallel 1 \
  --partition arena --time 15:00 --mem 500M >"$WORK/e2e.sbatch"
bash -n "$WORK/e2e.sbatch"

# state JOB: the job's (or array task's) state in sacct, e.g. COMPLETED.
state() { timeout 10 sacct -n -X -P -j "$1" -o State 2>/dev/null | tail -n 1 | cut -d' ' -f1; }
# done_in SHARD: how many of the shard's runs are complete.
done_in() {
  local n=0 k
  for k in $("$ARENA" sweep "$SPEC" --shard "$1" --list); do
    [ -f "$OUT/runs/$k/summary.json" ] && n=$((n + 1))
  done
  echo $n
}

submitted=$(cd "$WORK" && bash "$WORK/e2e.sbatch")
say "$submitted"
read -r ARRAY MERGE < <(sed -n 's/^array job \([0-9]*\) .* merge job \([0-9]*\) .*/\1 \2/p' <<<"$submitted")
[ -n "$ARRAY" ] && [ -n "$MERGE" ] || die "could not read the job ids from: $submitted"
JOBS="$ARRAY $MERGE"

# Cancel task 1 once some, not all, of its runs are complete; requeue it.
# The poll must be quicker than a run: a sacct call or an 'arena sweep
# --list' (which synthesises the trace) takes longer than some runs do, so
# the shard's run keys are listed once and the loop only tests files.
SHARD1_KEYS=$("$ARENA" sweep "$SPEC" --shard 1/4 --list)
SHARD1=$(wc -l <<<"$SHARD1_KEYS")
first_done() {
  local k
  for k in $SHARD1_KEYS; do [ -f "$OUT/runs/$k/summary.json" ] && return 0; done
  return 1
}
end=$((SECONDS + 180))
until first_done; do
  [ $SECONDS -lt $end ] || die "task ${ARRAY}_1 did not start and finish a run within 180 s (state $(state "${ARRAY}_1"))"
  sleep 0.02
done
scancel "${ARRAY}_1"
before=$(done_in 1/4)
[ "$before" -lt "$SHARD1" ] || die "task 1 finished all $SHARD1 runs before the cancel; make experiments/testdata/slurm/e2e.yaml longer"
wait_for 60 "task ${ARRAY}_1 cancelled" bash -c "[ \"\$(sacct -n -X -P -j ${ARRAY}_1 -o State | tail -n 1 | cut -d' ' -f1)\" = CANCELLED ]"
say "cancelled task ${ARRAY}_1 with $before of its $SHARD1 runs complete; merge job: $(squeue -h -j "$MERGE" -o '%T %r')"
scontrol requeue "${ARRAY}_1"
end=$((SECONDS + 180))
until [ "$(state "${ARRAY}_1")" = COMPLETED ]; do
  [ $SECONDS -lt $end ] || die "requeued task ${ARRAY}_1 not COMPLETED within 180 s (state $(state "${ARRAY}_1"))"
  sleep 0.5
done
# All four tasks have now completed. The cancel made the merge job's
# afterok dependency on the array "never satisfied", and Slurm does not
# revisit that after a requeue: release it, as docs/experiments.md tells a
# user who cancels and requeues a task to do (the merge itself refuses to
# write summary.parquet if a run is missing).
for i in 0 2 3; do
  wait_for 180 "task ${ARRAY}_$i COMPLETED" bash -c "[ \"\$(sacct -n -X -P -j ${ARRAY}_$i -o State | tail -n 1 | cut -d' ' -f1)\" = COMPLETED ]"
done
say "requeued task ${ARRAY}_1 completed; merge job $MERGE: $(squeue -h -j "$MERGE" -o '%T %r')"

# Wait for the merge job. slurmctld marks the dependency "never satisfied"
# on its own schedule — seen both before and some seconds after the requeued
# task completed — so the release is checked on every poll, not once.
end=$((SECONDS + 300))
released=""
until [ "$(state "$MERGE")" = COMPLETED ]; do
  if [ -z "$released" ] && [ "$(timeout 10 squeue -h -j "$MERGE" -o %r 2>/dev/null)" = DependencyNeverSatisfied ]; then
    scontrol update JobId="$MERGE" Dependency=
    released=1
    say "released: scontrol update JobId=$MERGE Dependency="
  fi
  s=$(state "$MERGE")
  case $s in FAILED | CANCELLED* | TIMEOUT | OUT_OF_ME* | NODE_FAIL) die "merge job $MERGE: $s" ;; esac
  [ $SECONDS -lt $end ] || die "merge job $MERGE not COMPLETED within 300 s (state ${s:-none}: $(squeue -h -j "$MERGE" -o '%T %r'))"
  sleep 0.5
done
say "array and merge done in $((SECONDS - T0))s; sacct:"
sacct -X -j "$ARRAY,$MERGE" -o JobID,JobName%22,State,ExitCode,Elapsed >&2
for i in 0 1 2 3; do
  s=$(state "${ARRAY}_$i")
  [ "$s" = COMPLETED ] || die "task ${ARRAY}_$i: $s, want COMPLETED"
  grep -q "runs done" "$OUT/slurm-logs/"*"_$i.log" || die "no progress lines in task $i's log"
done
log1=$(ls "$OUT/slurm-logs/"*"_1.log")
grep -q "$before already complete" "$log1" || die "the requeued task 1 did not resume from its $before complete runs (log $log1)"
[ -f "$OUT/summary.parquet" ] || die "the merge job wrote no summary.parquet"

# The same sweep, locally, with the same binary; then compare.
"$ARENA" sweep "$SPEC" --out "$WORK/local" --quiet >/dev/null
"$ARENA" sweep "$SPEC" --out "$OUT" --compare "$WORK/local" >&2 || die "the Slurm sweep differs from the local one"

# --- 8. a failing array: sacct must show non-zero exits -------------------------
FOUT=$WORK/fail
"$ARENA" sweep "$SPEC" --out "$FOUT" --emit slurm --shards 2 --parallel 1 --run-timeout 1ns >"$WORK/fail.sbatch"
submitted=$(cd "$WORK" && bash "$WORK/fail.sbatch")
read -r FARRAY FMERGE < <(sed -n 's/^array job \([0-9]*\) .* merge job \([0-9]*\) .*/\1 \2/p' <<<"$submitted")
JOBS="$JOBS $FARRAY $FMERGE"
for i in 0 1; do
  wait_for 120 "failing task ${FARRAY}_$i ended" bash -c "[ \"\$(sacct -n -X -P -j ${FARRAY}_$i -o State | tail -n 1 | cut -d' ' -f1)\" = FAILED ]"
  code=$(sacct -n -X -P -j "${FARRAY}_$i" -o ExitCode | tail -n 1)
  [ "${code%%:*}" != 0 ] || die "failed task ${FARRAY}_$i has exit code $code in sacct"
done
# slurmctld re-evaluates dependencies on its own schedule: poll for the reason.
merge_held() { [ "$(timeout 10 squeue -h -j "$FMERGE" -o %r)" = DependencyNeverSatisfied ]; }
end=$((SECONDS + 120))
until merge_held; do
  [ $SECONDS -lt $end ] || die "the failing array's merge job: reason '$(squeue -h -j "$FMERGE" -o %r)' after 120 s, want DependencyNeverSatisfied"
  sleep 0.5
done
reason=DependencyNeverSatisfied
sacct -X -j "$FARRAY,$FMERGE" -o JobID,JobName%22,State,ExitCode >&2
say "failing array: tasks FAILED with non-zero exits in sacct, merge job held ($reason)"

say "PASS in $((SECONDS - T0))s: $RUNS runs in 4 Slurm array tasks (task 1 cancelled with $before of its $SHARD1 runs complete, then requeued) equal the local sweep"
