#!/usr/bin/env bash
# Starts a throwaway Slurm for the cluster/slurm tests and prints three
# lines: slurmrestd's URL, a JWT for it (for FITBOT_TEST_SLURM_URL and
# FITBOT_TEST_SLURM_TOKEN), and its folder; `.ci/slurm.sh stop FOLDER`
# stops it and deletes the folder.
#
# Debian's packages (bookworm: Slurm 22.05): munge, slurmctld, slurmd,
# slurmrestd and the JWT plugin. Run as root (slurmctld and slurmd run as
# root; slurmrestd refuses root and runs as "nobody"). Everything lives in
# one folder: the configuration, munge's key and socket, the state and the
# logs. One node, fitbot-node1, declares 8 H100s whose device files are
# placeholders in the folder (22.05's slurmd drops a GPU line with no
# File=); slurmctld takes munge and, as an alternative, JWTs signed with a
# key in the folder; slurmrestd is started with SLURM_JWT=daemon and only
# the OpenAPI plugins that need no slurmdbd. Ports: 46817 (slurmctld),
# 46818 (slurmd), ${SLURMRESTD_PORT:-46820} (slurmrestd), on 127.0.0.1.
set -euo pipefail
if [ "${1:-}" = stop ]; then
  dir=$2
  for p in slurmrestd slurmd slurmctld munged; do
    if [ -f "$dir/$p.pid" ]; then
      kill "$(cat "$dir/$p.pid")" 2>/dev/null || true
    fi
  done
  sleep 1
  rm -rf "$dir"
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "slurm.sh: run as root (slurmctld and slurmd need it)" >&2
  exit 1
fi
for b in munged slurmctld slurmd slurmrestd scontrol; do
  if ! command -v "$b" >/dev/null; then
    echo "slurm.sh: no $b; install: apt-get install -y slurm-wlm slurmrestd slurm-wlm-jwt-plugin munge" >&2
    exit 1
  fi
done
port=${SLURMRESTD_PORT:-46820}
# A Slurm an earlier run left (killed before it could stop it) holds the
# ports: stop it first.
for old in /tmp/fitbot-slurm.*; do
  if [ -d "$old" ]; then
    "$0" stop "$old"
  fi
done
dir=$(mktemp -d /tmp/fitbot-slurm.XXXXXX)
chmod 755 "$dir"
fail() {
  echo "slurm.sh: $1; logs in $dir:" >&2
  tail -n 20 "$dir"/*.log "$dir"/munge/*.log >&2 2>/dev/null || true
  "$0" stop "$dir"
  exit 1
}
mkdir -p "$dir/munge" "$dir/state" "$dir/spool" "$dir/dev"
for i in 0 1 2 3 4 5 6 7; do : >"$dir/dev/nvidia$i"; done

# munge, with its own key and socket.
dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
chown -R munge: "$dir/munge"
chmod 700 "$dir/munge"
chmod 400 "$dir/munge/munge.key"
runuser -u munge -- munged --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.sock" \
  --pid-file="$dir/munge/munged.pid" --log-file="$dir/munge/munged.log" --seed-file="$dir/munge/seed" --force \
  || fail "munged did not start"
cp "$dir/munge/munged.pid" "$dir/munged.pid"
# slurmrestd (as nobody) reaches munge's socket through the folder.
chmod 711 "$dir/munge"

# The JWT key slurmctld signs and checks tokens with.
dd if=/dev/urandom of="$dir/jwt.key" bs=32 count=1 status=none
chmod 600 "$dir/jwt.key"

host=$(hostname -s)
cat >"$dir/slurm.conf" <<EOF
ClusterName=fitbot-ci
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=46817
SlurmdPort=46818
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.sock
AuthAltTypes=auth/jwt
AuthAltParameters=jwt_key=$dir/jwt.key
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=1,sched_interval=1
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
GresTypes=gpu
ReturnToService=2
MpiDefault=none
NodeName=fitbot-node1 NodeHostname=$host NodeAddr=127.0.0.1 CPUs=2 RealMemory=1000 Gres=gpu:h100:8 State=UNKNOWN
PartitionName=gpu Nodes=fitbot-node1 Default=YES MaxTime=INFINITE State=UP
EOF
cat >"$dir/gres.conf" <<EOF
NodeName=fitbot-node1 Name=gpu Type=h100 File=$dir/dev/nvidia[0-7]
EOF
chmod 644 "$dir/slurm.conf" "$dir/gres.conf"
export SLURM_CONF=$dir/slurm.conf

slurmctld -i -f "$SLURM_CONF" || fail "slurmctld did not start"
slurmd -N fitbot-node1 -f "$SLURM_CONF" || fail "slurmd did not start"
up=""
for _ in $(seq 1 60); do
  if scontrol show node fitbot-node1 2>/dev/null | grep -q 'State=IDLE'; then
    up=1
    break
  fi
  sleep 0.5
done
[ -n "$up" ] || fail "fitbot-node1 did not come up idle"

# slurmrestd as an unprivileged user, forwarding each request's JWT to slurmctld.
runuser -u nobody -- env SLURM_CONF="$SLURM_CONF" SLURM_JWT=daemon \
  slurmrestd -a rest_auth/jwt -s openapi/v0.0.36,openapi/v0.0.37,openapi/v0.0.38 "127.0.0.1:$port" \
  >"$dir/slurmrestd.log" 2>&1 &
echo $! >"$dir/slurmrestd.pid"
token=$(scontrol token username=root lifespan=7200 | sed -n 's/^SLURM_JWT=//p')
[ -n "$token" ] || fail "scontrol token gave no token"
up=""
for _ in $(seq 1 60); do
  if curl -fsS -o /dev/null -H "X-SLURM-USER-NAME: root" -H "X-SLURM-USER-TOKEN: $token" \
    "http://127.0.0.1:$port/slurm/v0.0.38/ping"; then
    up=1
    break
  fi
  sleep 0.5
done
[ -n "$up" ] || fail "slurmrestd did not answer"
echo "http://127.0.0.1:$port"
echo "$token"
echo "$dir"
