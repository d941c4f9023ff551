// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The phase probes' processes (phaseprobe_state.h): the followed set
 * (not system-wide), what /proc tells of a process (ppid, comm, netns,
 * thread group) and its FT_REC_PROC and launcher-rank records, walking
 * /proc, following -p PIDs and their descendants.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "phase.skel.h"
#include "bpf/phase.h"
#include "probes/cfg_rec.h"
#include "probes/procenv.h"
#include "probes/phaseprobe_state.h"
#include "lib/util.h"

/* ---- followed processes ---- */

bool ph_pid_followed(const struct phaseprobe *p, pid_t pid)
{
	for (size_t i = 0; i < p->npids; i++)
		if (p->pids[i] == pid)
			return true;
	return false;
}

void ph_pid_add(struct phaseprobe *p, pid_t pid)
{
	if (ph_pid_followed(p, pid) || grow((void **)&p->pids, &p->cappids, p->npids, sizeof(pid_t)) ||
	    grow((void **)&p->seen, &p->capseen, p->npids, sizeof(*p->seen)))
		return;
	p->seen[p->npids] = (struct ph_maps_seen){ 0 };
	p->pids[p->npids++] = pid;
}

void ph_pid_del(struct phaseprobe *p, pid_t pid)
{
	for (size_t i = 0; i < p->npids; i++)
		if (p->pids[i] == pid) {
			p->npids--;
			p->pids[i] = p->pids[p->npids];
			p->seen[i] = p->seen[p->npids];
			return;
		}
}

/* ---- /proc helpers ---- */

/* ppid, comm and netns inode of PID; 0 or -errno. */
static int proc_info(pid_t pid, pid_t *ppid, char comm[16], uint32_t *netns)
{
	char buf[512];
	const char *fields;
	ssize_t n = proc_stat_read(pid, buf, sizeof(buf));

	if (n < 0)
		return (int)n;
	/* "pid (comm) S ppid ...": the ppid after the state letter */
	fields = proc_stat_fields(buf);
	if (!fields || !fields[1] || !fields[2])
		return -EINVAL;
	{
		char *end;
		long v = strtol(fields + 2, &end, 10);

		if (end == fields + 2 || v < 0 || v > INT_MAX)
			return -EINVAL;
		*ppid = (pid_t)v;
	}
	if (comm) {
		const char *lp = strchr(buf, '('), *rp = fields - 2; /* comm's closing ')' */
		size_t len = lp && rp > lp ? (size_t)(rp - lp - 1) : 0;

		memset(comm, 0, 16);
		memcpy(comm, lp ? lp + 1 : "", len < 15 ? len : 15);
	}
	if (netns) {
		char path[64];
		struct stat st;

		snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)pid);
		*netns = stat(path, &st) ? 0 : (uint32_t)st.st_ino;
	}
	return 0;
}

/* The process a thread id belongs to (a -p of a TID means its process). */
pid_t ph_tgid_of(pid_t pid)
{
	char buf[1024]; /* Tgid is the fourth line */
	const char *at;
	long v;

	if (proc_status_read(pid, buf, sizeof(buf)) < 0 || !(at = proc_status_field(buf, "Tgid:")))
		return pid;
	v = strtol(at, NULL, 10);
	return v > 0 && v <= INT_MAX ? (pid_t)v : pid;
}

struct env_cfg {
	struct phaseprobe *p;
	struct ft_config proto;
};

static int emit_env_var(void *ctx, const char *key, const char *value, int err)
{
	struct env_cfg *e = ctx;
	uint64_t buf[CFGREC_MAX / 8 + 1];

	(void)err; /* the environment gives values only */
	return ph_emit(e->p, &cfgrec__build(buf, &e->proto, key, value)->hdr);
}

/*
 * The collectives' settings in the process's environment (NCCL_*, GLOO_*,
 * ...) as FT_CFG_RANK records, and "env_vars" = how many: what a rank ran
 * under.  Written for a process with a rank or any such variable.
 */
static int ph_emit_env_config(struct phaseprobe *p, pid_t pid)
{
	struct env_cfg e = { .p = p };
	pid_t ppid;
	char n[16];
	bool ranked;
	int found;

	if (proc_info(pid, &ppid, e.proto.object, NULL))
		return 0; /* gone meanwhile */
	e.proto.ts_ns = mono_ns();
	e.proto.scope = FT_CFG_RANK;
	e.proto.id = (uint32_t)pid;
	found = procenv__config(pid, emit_env_var, &e, &ranked);
	if (found < 0) /* best effort: only a failed write stops the caller */
		return found == -EIO ? found : 0;
	if (!found && !ranked)
		return 0;
	snprintf(n, sizeof(n), "%d", found);
	return emit_env_var(&e, "env_vars", n, 0);
}

/*
 * The launcher's rank in the process's environment, as a comm_info of
 * FT_COMM_ENV: all there is of its rank when the job ran before we attached;
 * then the collectives' settings there (ph_emit_env_config()).
 */
int ph_emit_env_rank(struct phaseprobe *p, pid_t pid)
{
	struct ft_comm_info ci = { .hdr = { FT_REC_COMM_INFO, sizeof(ci), 0 } };
	uint64_t job;
	int ret = 0;

	if (procenv__read(pid, &ci.rank, &ci.size, &job))
		return ph_emit_env_config(p, pid); /* neither rank nor job: its settings still count */
	ci.ts_ns = mono_ns();
	ci.pid = (uint32_t)pid;
	if (ci.rank >= 0) {
		ci.comm = FT_COMM_ENV;
		ci.slot = FT_SLOT_ENV;
		ret = ph_emit(p, &ci.hdr);
	}
	if (!ret && job) {
		/* the job, so that two jobs traced system-wide are not matched together */
		ci.comm = job;
		ci.rank = ci.size = -1;
		ci.slot = FT_SLOT_JOB;
		ret = ph_emit(p, &ci.hdr);
	}
	return ret ? ret : ph_emit_env_config(p, pid);
}

int ph_emit_proc(struct phaseprobe *p, pid_t pid, uint32_t event)
{
	struct ft_proc r = { .hdr = { FT_REC_PROC, sizeof(r), 0 } };
	pid_t ppid = 0;
	int ret;

	if (proc_info(pid, &ppid, r.comm, &r.netns))
		return 0; /* gone meanwhile */
	r.ts_ns = mono_ns();
	r.pid = (uint32_t)pid;
	r.ppid = (uint32_t)ppid;
	r.event = event;
	ret = ph_emit(p, &r.hdr);
	return !ret && event != FT_PROC_EXIT ? ph_emit_env_rank(p, pid) : ret;
}

typedef int (*pid_fn)(struct phaseprobe *p, pid_t pid, pid_t ppid, void *arg);

/* Every process in /proc (threads are not listed there); its parent read
 * from /proc/PID/stat only WITH_PPID (else 0): the system-wide scan, once a
 * second, does not need it. */
int ph_for_each_pid(struct phaseprobe *p, bool with_ppid, ph_pid_fn fn, void *arg)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int ret = 0;

	if (!d)
		return -errno;
	while (!ret && (de = readdir(d)) != NULL) {
		char *end;
		long v = strtol(de->d_name, &end, 10);
		pid_t ppid = 0;

		if (*end || v <= 0 || v > INT_MAX)
			continue;
		if (!with_ppid || proc_info((pid_t)v, &ppid, NULL, NULL) == 0)
			ret = fn(p, (pid_t)v, ppid, arg);
	}
	closedir(d);
	return ret;
}

/* ---- following processes ---- */

int ph_follow(struct phaseprobe *p, pid_t pid)
{
	__u32 key = (__u32)pid, one = 1;

	if (bpf_map_update_elem(bpf_map__fd(p->skel->maps.traced), &key, &one, BPF_ANY))
		return -errno;
	ph_pid_add(p, pid);
	return 0;
}

/* /proc pass: follow the children of followed processes; *arg counts the new ones. */
int ph_add_descendant(struct phaseprobe *p, pid_t pid, pid_t ppid, void *arg)
{
	if (pid == getpid() || ph_pid_followed(p, pid) || !ph_pid_followed(p, ppid))
		return 0; /* never fabtrace itself (-p of an ancestor) */
	if (ph_follow(p, pid))
		return 0;
	(*(int *)arg)++;
	return ph_emit_proc(p, pid, FT_PROC_EXISTING);
}
