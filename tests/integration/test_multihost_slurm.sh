#!/usr/bin/env bash
# The Slurm recipe of docs/multihost.md on a one-node cluster (Debian's
# slurm-wlm: slurmctld and slurmd on this machine, private config, ports and
# state under the test's directory, auth/none): a "training job" holds the
# node, and the recorder runs beside it as an overlapping job step,
#   srun --jobid JOB --ntasks-per-node=1 --overlap fabtrace record -o job-%h.ftr -d 2s
# The capture must be named by its host, carry that host's identity and
# clock pairs, and merge.  (One node: the cross-host alignment itself is
# tested by test_multihost_straggler and test_multihost_network.)
source "$(dirname "$0")/lib.sh"
need_root
need_cmd slurmctld
need_cmd slurmd
need_cmd srun
need_cmd sbatch
lab_start 1
H1=$(lab_ns "$LAB" 1)
node=$(hostname -s)
port=$((20000 + RANDOM % 20000))
SD=$TMPD/slurm
mkdir -p "$SD/state" "$SD/spool" "$SD/log"
cat >"$SD/slurm.conf" <<CONF
ClusterName=ft$LAB
SlurmctldHost=localhost
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/none
CredType=cred/none
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$SD/state
SlurmdSpoolDir=$SD/spool
SlurmctldPidFile=$SD/slurmctld.pid
SlurmdPidFile=$SD/slurmd.pid
SlurmctldLogFile=$SD/log/slurmctld.log
SlurmdLogFile=$SD/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
NodeName=$node NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=ft Nodes=$node Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF
export SLURM_CONF=$SD/slurm.conf
SPIDS=()
slurm_cleanup() {
	local p i
	if [[ -n ${JOB:-} ]]; then # the job first: slurmd waits for its steps
		scancel "$JOB" 2>/dev/null
		for ((i = 0; i < 50; i++)); do
			[[ -z $(squeue -h -j "$JOB" -o %T 2>/dev/null) ]] && break
			sleep 0.2
		done
	fi
	for p in "${SPIDS[@]}"; do kill "$p" 2>/dev/null; done
	for ((i = 0; i < 25; i++)); do
		kill -0 "${SPIDS[@]}" 2>/dev/null || break
		sleep 0.2
	done
	for p in "${SPIDS[@]}"; do kill -9 "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	cleanup
}
trap slurm_cleanup EXIT
slurmctld -D -f "$SLURM_CONF" >"$SD/log/ctld.out" 2>&1 &
SPIDS+=($!)
slurmd -D -f "$SLURM_CONF" -N "$node" >"$SD/log/d.out" 2>&1 &
SPIDS+=($!)
for ((i = 0; i < 100; i++)); do
	[[ $(sinfo -h -n "$node" -o %t 2>/dev/null) == idle* ]] && break
	sleep 0.2
done
check "one-node Slurm cluster up ($(sinfo -h -o '%P %t %N' 2>&1 | head -n1))" \
	test "$(sinfo -h -n "$node" -o %t 2>/dev/null)" = idle

# the job: something running in lab host 1 that holds the node
JOB=$(cd "$TMPD" && sbatch --parsable -N1 -n1 -o "$TMPD/job.out" \
	--wrap "ip netns exec $H1 ping -q -i 0.05 -c 160 $(lab_addr 1)" 2>"$TMPD/sbatch.err")
check "sbatch submitted the job ($JOB $(cat "$TMPD/sbatch.err"))" test -n "$JOB"
for ((i = 0; i < 100; i++)); do
	[[ $(squeue -h -j "$JOB" -o %T 2>/dev/null) == RUNNING ]] && break
	sleep 0.2
done
check "the job runs" test "$(squeue -h -j "$JOB" -o %T 2>/dev/null)" = RUNNING

# beside it: the recipe
(cd "$TMPD" && srun --jobid "$JOB" --ntasks-per-node=1 --overlap \
	"$FT" record -q -o "$TMPD/job-%h.ftr" --netns "$H1" -d 2s) >"$TMPD/srun.out" 2>&1
rc=$?
check "srun --overlap fabtrace record exits 0 ($(tail -n1 "$TMPD/srun.out"))" test $rc = 0
f=$TMPD/job-$node.ftr
check "the capture is named by its host (job-$node.ftr)" test -f "$f"
"$FT" info --json "$f" >"$TMPD/info.json" || bad "info"
check "it carries the host's identity" \
	test "$(jget "$TMPD/info.json" '(j["host_id"]["hostname"], j["host_id"]["netns_name"])')" = "('$(hostname)', '$H1')"
check "and clock pairs at start, every second and stop (>= 3)" \
	test "$(jget "$TMPD/info.json" 'j["clock"]["pairs"] >= 3')" = True
check "the job's traffic was recorded in its namespace" \
	test "$(jget "$TMPD/info.json" 'j["records"]["by_type"].get("iface_bin", 0) > 0')" = True
"$FT" merge -q -o "$TMPD/merged.ftr" "$f" || bad "merge of the Slurm capture"
check "it merges" test -f "$TMPD/merged.ftr"
finish
