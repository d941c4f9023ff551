// SPDX-License-Identifier: GPL-2.0-or-later
/* Load, attach and drain the phase probes (see phaseprobe.h). */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pthread.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "phase.skel.h"
#include "bpf/phase.h"
#include "probes/catalog.h"
#include "probes/elfsyms.h"
#include "probes/libfind.h"
#include "probes/bpflog.h"
#include "probes/procenv.h"
#include "probes/netprobe.h"
#include "probes/phaseprobe.h"
#include "probes/base/util.h"

/* Libraries looked for in the loader cache (soname prefixes). */
static const char *const cache_prefixes[] = {
	"libmpi", "libnccl", "libgloo", "libfabtrace_marker",
};

static const struct ph_hook {
	const char *name;
	const char *tracepoint;
	const char *progs[2];
	const char *kinds[2];
} hooks[PH_HOOK_MAX] = {
	[PH_HOOK_FORK] = { "proc_fork", "sched_process_fork",
			   { "proc_fork_btf", "proc_fork_raw" }, { "tp_btf", "raw_tp" } },
	[PH_HOOK_EXEC] = { "proc_exec", "sched_process_exec",
			   { "proc_exec_btf", "proc_exec_raw" }, { "tp_btf", "raw_tp" } },
	[PH_HOOK_EXIT] = { "proc_exit", "sched_process_exit",
			   { "proc_exit_btf", "proc_exit_raw" }, { "tp_btf", "raw_tp" } },
	[PH_HOOK_SEND] = { "sock_send", "sock_send_length",
			   { "sock_send_btf", "sock_send_raw" }, { "tp_btf", "raw_tp" } },
	[PH_HOOK_RECV] = { "sock_recv", "sock_recv_length",
			   { "sock_recv_btf", "sock_recv_raw" }, { "tp_btf", "raw_tp" } },
};

/* A library file looked at (by identity), whether or not it had anything to trace. */
struct ph_lib {
	char *path;
	unsigned long long dev, ino;
	unsigned npoints;
	uint8_t kind;               /* enum ft_lib_kind of its first point */
};

struct ph_spec {
	struct phase_spec spec;
	char path[PATH_MAX];
	unsigned long long dev, ino;
};

struct ph_exit {
	pid_t pid;
	uint64_t ts;
};

struct phaseprobe {
	struct phase_bpf *skel;
	struct ring_buffer *rb;
	phaseprobe_fn fn;
	void *ctx;
	int ncpus;
	bool systemwide, verbose;
	int chosen[PH_HOOK_MAX];
	struct bpf_link *hook_links[PH_HOOK_MAX];
	struct phase_feature st[PH_FEAT_MAX];
	/* slots: links (entry, return) and the layout (for OPEN records) */
	bool multi;                 /* uprobe_multi links (else perf uprobes, 2 links per slot) */
	struct bpf_link **links;    /* perf: [2 * slot] entry, [2 * slot + 1] return */
	int *mfds;                  /* uprobe_multi link fds */
	size_t nmfds, capmfds;
	struct ph_slot_cfg *cfgs;
	unsigned nslots, attach_failed;
	bool full_warned;
	/* libraries looked at, executables whose closure was resolved */
	struct ph_lib *libs;
	size_t nlibs, caplibs;
	unsigned long long (*exes)[2];
	size_t nexes, capexes;
	struct ph_spec *specs;
	int nspecs;
	/* followed processes (not system-wide) */
	pid_t *pids;
	size_t npids, cappids;
	/* work for after the ring-buffer callback */
	pid_t *execs;
	size_t nexecs, capexecs;
	struct ph_exit *exits;
	size_t nexits, capexits;
	/* records before start */
	char *pending;
	size_t plen, pcap;
	bool started;
	int cb_err;
	unsigned ticks;
};

/* ---- small growable arrays ---- */

static int grow(void **arr, size_t *cap, size_t n, size_t elem)
{
	size_t c;
	void *p;

	if (n < *cap)
		return 0;
	c = *cap ? *cap * 2 : 16;
	p = realloc(*arr, c * elem);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = c;
	return 0;
}

static bool pid_followed(const struct phaseprobe *p, pid_t pid)
{
	for (size_t i = 0; i < p->npids; i++)
		if (p->pids[i] == pid)
			return true;
	return false;
}

static void pid_add(struct phaseprobe *p, pid_t pid)
{
	if (pid_followed(p, pid) || grow((void **)&p->pids, &p->cappids, p->npids, sizeof(pid_t)))
		return;
	p->pids[p->npids++] = pid;
}

static void pid_del(struct phaseprobe *p, pid_t pid)
{
	for (size_t i = 0; i < p->npids; i++)
		if (p->pids[i] == pid) {
			p->pids[i] = p->pids[--p->npids];
			return;
		}
}

/* ---- records: kept until start, then handed on ---- */

static int emit(struct phaseprobe *p, const struct ft_rec_hdr *h)
{
	if (p->started)
		return p->fn(p->ctx, h) < 0 ? -EIO : 0;
	if (p->plen + h->size > p->pcap) {
		size_t cap = p->pcap ? p->pcap * 2 : 8192;
		char *n;

		while (cap < p->plen + h->size)
			cap *= 2;
		n = realloc(p->pending, cap);
		if (!n)
			return -ENOMEM;
		p->pending = n;
		p->pcap = cap;
	}
	memcpy(p->pending + p->plen, h, h->size);
	p->plen += h->size;
	return 0;
}

/* ---- /proc helpers ---- */

/* ppid, comm and netns inode of PID; 0 or -errno. */
static int proc_info(pid_t pid, pid_t *ppid, char comm[16], uint32_t *netns)
{
	char path[64], buf[512], *rp;
	struct stat st;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	/* "pid (comm) S ppid ...": comm may hold spaces and parentheses */
	rp = strrchr(buf, ')');
	if (!rp || strlen(rp) < 5)
		return -EINVAL;
	{
		char *end;
		long v = strtol(rp + 4, &end, 10);

		if (end == rp + 4 || v < 0 || v > INT_MAX)
			return -EINVAL;
		*ppid = (pid_t)v;
	}
	if (comm) {
		char *lp = strchr(buf, '(');
		size_t len = lp && rp > lp ? (size_t)(rp - lp - 1) : 0;

		memset(comm, 0, 16);
		memcpy(comm, lp ? lp + 1 : "", len < 15 ? len : 15);
	}
	if (netns) {
		snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)pid);
		*netns = stat(path, &st) ? 0 : (uint32_t)st.st_ino;
	}
	return 0;
}

/* The process a thread id belongs to (a -p of a TID means its process). */
static pid_t tgid_of(pid_t pid)
{
	char path[64], line[128];
	pid_t tgid = pid;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return pid;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "Tgid:", 5) == 0) {
			long v = strtol(line + 5, NULL, 10);

			if (v > 0 && v <= INT_MAX)
				tgid = (pid_t)v;
			break;
		}
	}
	fclose(f);
	return tgid;
}

/*
 * The launcher's rank in the process's environment, as a comm_info of
 * FT_COMM_ENV: all there is of its rank when the job ran before we attached.
 */
static int emit_env_rank(struct phaseprobe *p, pid_t pid)
{
	struct ft_comm_info ci = { .hdr = { FT_REC_COMM_INFO, sizeof(ci), 0 } };
	uint64_t job;
	int ret = 0;

	if (procenv__read(pid, &ci.rank, &ci.size, &job))
		return 0;
	ci.ts_ns = mono_ns();
	ci.pid = (uint32_t)pid;
	if (ci.rank >= 0) {
		ci.comm = FT_COMM_ENV;
		ci.slot = FT_SLOT_ENV;
		ret = emit(p, &ci.hdr);
	}
	if (!ret && job) {
		/* the job, so that two jobs traced system-wide are not matched together */
		ci.comm = job;
		ci.rank = ci.size = -1;
		ci.slot = FT_SLOT_JOB;
		ret = emit(p, &ci.hdr);
	}
	return ret;
}

static int emit_proc(struct phaseprobe *p, pid_t pid, uint32_t event)
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
	ret = emit(p, &r.hdr);
	return !ret && event != FT_PROC_EXIT ? emit_env_rank(p, pid) : ret;
}

typedef int (*pid_fn)(struct phaseprobe *p, pid_t pid, pid_t ppid, void *arg);

/* Every process in /proc (threads are not listed there). */
static int for_each_pid(struct phaseprobe *p, pid_fn fn, void *arg)
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
		if (proc_info((pid_t)v, &ppid, NULL, NULL) == 0)
			ret = fn(p, (pid_t)v, ppid, arg);
	}
	closedir(d);
	return ret;
}

/* ---- following processes ---- */

static int follow(struct phaseprobe *p, pid_t pid)
{
	__u32 key = (__u32)pid, one = 1;

	if (bpf_map_update_elem(bpf_map__fd(p->skel->maps.traced), &key, &one, BPF_ANY))
		return -errno;
	pid_add(p, pid);
	return 0;
}

/* /proc pass: follow the children of followed processes; *arg counts the new ones. */
static int add_descendant(struct phaseprobe *p, pid_t pid, pid_t ppid, void *arg)
{
	if (pid == getpid() || pid_followed(p, pid) || !pid_followed(p, ppid))
		return 0; /* never fabtrace itself (-p of an ancestor) */
	if (follow(p, pid))
		return 0;
	(*(int *)arg)++;
	return emit_proc(p, pid, FT_PROC_EXISTING);
}

/* ---- libraries ---- */

static struct ph_lib *lib_known(struct phaseprobe *p, unsigned long long dev, unsigned long long ino)
{
	for (size_t i = 0; i < p->nlibs; i++)
		if (p->libs[i].dev == dev && p->libs[i].ino == ino)
			return &p->libs[i];
	return NULL;
}

/* The path as the slot record shows it: cut from the left if too long. */
static void copy_left(char *dst, size_t len, const char *src)
{
	size_t n = strlen(src);

	str_copy(dst, n < len ? src : src + (n - len + 1), len);
}

/* ---- attaching: uprobe_multi links (one per library and direction), else perf uprobes ---- */

/*
 * BPF_LINK_CREATE of an uprobe_multi link (kernel 6.6+).  Neither this
 * libbpf (1.1) nor the installed UAPI header know it yet, so the attr is
 * spelled out here as the kernel defines it.
 */
#define PH_BPF_TRACE_UPROBE_MULTI    48
#define PH_BPF_F_UPROBE_MULTI_RETURN 1u

struct ph_link_create_uprobe_multi {
	__u32 prog_fd;
	__u32 target_fd;
	__u32 attach_type;
	__u32 flags;
	__u64 path;
	__u64 offsets;
	__u64 ref_ctr_offsets;
	__u64 cookies;
	__u32 cnt;
	__u32 um_flags;
	__u32 pid;
	__u32 pad;
};

static int multi_attach(const struct bpf_program *prog, const char *path, const uint64_t *offs,
			const uint64_t *cookies, uint32_t n, bool ret)
{
	struct ph_link_create_uprobe_multi a;
	long fd;

	memset(&a, 0, sizeof(a));
	a.prog_fd = (__u32)bpf_program__fd(prog);
	a.attach_type = PH_BPF_TRACE_UPROBE_MULTI;
	a.path = (uintptr_t)path;
	a.offsets = (uintptr_t)offs;
	a.cookies = (uintptr_t)cookies;
	a.cnt = n;
	a.um_flags = ret ? PH_BPF_F_UPROBE_MULTI_RETURN : 0;
	fd = syscall(__NR_bpf, BPF_LINK_CREATE, &a, sizeof(a));
	return fd < 0 ? -errno : (int)fd;
}

static int keep_fd(struct phaseprobe *p, int fd)
{
	if (grow((void **)&p->mfds, &p->capmfds, p->nmfds, sizeof(int))) {
		close(fd);
		return -ENOMEM;
	}
	p->mfds[p->nmfds++] = fd;
	return 0;
}

/*
 * Entry and return probes of points [0, n) of PTS with cookies SLOT0 + i,
 * as two uprobe_multi links.  0 or -errno (nothing attached).
 */
static int attach_multi(struct phaseprobe *p, const char *path, const struct cat_point *pts,
			size_t n, __u32 slot0)
{
	uint64_t *offs = calloc(2 * n, sizeof(*offs)), *cookies = calloc(2 * n, sizeof(*cookies));
	uint32_t ne = 0, nr = 0;
	int efd = -1, rfd = -1, ret = -ENOMEM;

	if (!offs || !cookies)
		goto out;
	for (size_t i = 0; i < n; i++) {
		offs[ne] = pts[i].offset;
		cookies[ne++] = slot0 + i;
		if (pts[i].cfg.kind != PH_K_MARK && pts[i].cfg.kind != PH_K_PLUGIN) {
			offs[n + nr] = pts[i].offset;
			cookies[n + nr++] = slot0 + i;
		}
	}
	/* the return probes first: a call entered between the two leaves no stale entry */
	if (nr) {
		rfd = multi_attach(p->skel->progs.phase_exit, path, offs + n, cookies + n, nr, true);
		if (rfd < 0) {
			ret = rfd;
			goto out;
		}
	}
	efd = multi_attach(p->skel->progs.phase_entry, path, offs, cookies, ne, false);
	if (efd < 0) {
		ret = efd;
		if (rfd >= 0)
			close(rfd);
		goto out;
	}
	ret = keep_fd(p, efd);
	if (!ret && rfd >= 0)
		ret = keep_fd(p, rfd);
out:
	free(offs);
	free(cookies);
	return ret;
}

/* One point through two perf-event uprobes (kernels without uprobe_multi). */
static int attach_perf(struct phaseprobe *p, const char *path, const struct cat_point *pt, __u32 slot)
{
	LIBBPF_OPTS(bpf_uprobe_opts, uo);
	struct bpf_link *ent, *ret = NULL;

	uo.bpf_cookie = slot;
	if (pt->cfg.kind != PH_K_MARK && pt->cfg.kind != PH_K_PLUGIN) {
		uo.retprobe = true;
		ret = bpf_program__attach_uprobe_opts(p->skel->progs.phase_exit, -1, path,
						      (size_t)pt->offset, &uo);
		if (!ret)
			return -errno;
	}
	uo.retprobe = false;
	ent = bpf_program__attach_uprobe_opts(p->skel->progs.phase_entry, -1, path,
					      (size_t)pt->offset, &uo);
	if (!ent) {
		int err = -errno;

		bpf_link__destroy(ret);
		return err;
	}
	p->links[(size_t)2 * slot] = ent;
	p->links[(size_t)2 * slot + 1] = ret;
	return 0;
}

static int emit_slot(struct phaseprobe *p, struct ph_lib *lib, const struct cat_point *pt, __u32 slot)
{
	struct ft_phase_slot r = { .hdr = { FT_REC_PHASE_SLOT, sizeof(r), 0 } };

	if (!lib->npoints++)
		lib->kind = pt->lib;
	r.slot = slot;
	r.lib_kind = pt->lib;
	r.op = pt->op;
	r.flags = pt->slot_flags;
	r.offset = pt->offset;
	copy_left(r.lib, sizeof(r.lib), lib->path);
	str_copy(r.symbol, pt->symbol, sizeof(r.symbol));
	str_copy(r.name, pt->name, sizeof(r.name));
	return emit(p, &r.hdr);
}

static void attach_failed(struct phaseprobe *p, const struct ph_lib *lib, const struct cat_point *pt,
			  int err)
{
	p->attach_failed++;
	if (p->verbose)
		ft_warn("record: cannot attach to %s in %s: %s%s%s", pt->symbol, lib->path,
			strerror(-err), bpflog__sep(), bpflog__last());
}

/*
 * Attach every point of a library: slots first (their layouts in the
 * `slots` map), then the probes, then a FT_REC_PHASE_SLOT per attached
 * point.  A point that cannot be attached is skipped (its slot unused).
 */
static int attach_plan(struct phaseprobe *p, struct ph_lib *lib, const struct cat_plan *plan)
{
	int fd = bpf_map__fd(p->skel->maps.slots);
	size_t n = plan->n;
	__u32 slot0 = p->nslots;
	bool *ok;
	int ret = 0;

	if (!n)
		return 0;
	if (slot0 + n > PH_MAX_SLOTS) {
		if (!p->full_warned)
			ft_warn("record: more than %d traced functions; %s is not traced "
				"(nor libraries found after it)", PH_MAX_SLOTS, lib->path);
		p->full_warned = true;
		return 0;
	}
	ok = calloc(n, sizeof(*ok));
	if (!ok)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		__u32 slot = slot0 + (__u32)i;

		p->cfgs[slot] = plan->pts[i].cfg;
		if (bpf_map_update_elem(fd, &slot, &plan->pts[i].cfg, BPF_ANY)) {
			free(ok);
			return -errno;
		}
	}
	p->nslots += (unsigned)n;
	if (p->multi && attach_multi(p, lib->path, plan->pts, n, slot0) == 0) {
		for (size_t i = 0; i < n; i++)
			ok[i] = true;
	} else {
		/* one by one, so one bad offset does not cost the others */
		for (size_t i = 0; i < n; i++) {
			int err = p->multi ? attach_multi(p, lib->path, &plan->pts[i], 1, slot0 + (__u32)i)
					   : attach_perf(p, lib->path, &plan->pts[i], slot0 + (__u32)i);

			ok[i] = err == 0;
			if (err == -ENOMEM) {
				ret = err;
				break;
			}
			if (err)
				attach_failed(p, lib, &plan->pts[i], err);
		}
	}
	for (size_t i = 0; i < n && !ret; i++)
		if (ok[i])
			ret = emit_slot(p, lib, &plan->pts[i], slot0 + (__u32)i);
	free(ok);
	return ret;
}

/* Look at one library (once per file): attach what the catalog and --phase name in it. */
static int examine(struct phaseprobe *p, const char *path, unsigned long long dev,
		   unsigned long long ino)
{
	struct cat_plan plan = {0};
	struct elf_syms *s = NULL;
	struct ph_lib *lib;
	char err[160];
	int ret = 0;

	if (lib_known(p, dev, ino))
		return 0;
	if (grow((void **)&p->libs, &p->caplibs, p->nlibs, sizeof(*p->libs)))
		return -ENOMEM;
	lib = &p->libs[p->nlibs];
	memset(lib, 0, sizeof(*lib));
	lib->path = strdup(path);
	if (!lib->path)
		return -ENOMEM;
	lib->dev = dev;
	lib->ino = ino;
	p->nlibs++;
	if (elf_syms__open(path, &s, err, sizeof(err)))
		return 0; /* not an ELF with symbols: nothing to trace */
	ret = catalog__plan(s, &plan);
	for (int i = 0; !ret && i < p->nspecs; i++)
		if (p->specs[i].dev == dev && p->specs[i].ino == ino)
			ret = catalog__plan_spec(s, &p->specs[i].spec, &plan) < 0 ? -ENOMEM : 0;
	if (!ret)
		ret = attach_plan(p, lib, &plan);
	cat_plan__free(&plan);
	elf_syms__close(s);
	return ret;
}

static int examine_set(struct phaseprobe *p, const struct lib_set *set)
{
	for (size_t i = 0; i < set->n; i++) {
		int ret = examine(p, set->paths[i], set->dev[i], set->ino[i]);

		if (ret == -ENOMEM || ret == -EIO)
			return ret;
	}
	return 0;
}

/* Libraries mapped by PID now. */
static int examine_maps(struct phaseprobe *p, pid_t pid)
{
	struct lib_set set;
	int ret;

	lib_set__init(&set);
	ret = libfind__maps(pid, &set);
	if (ret != -ENOMEM)
		ret = examine_set(p, &set);
	lib_set__free(&set);
	return ret;
}

static bool exe_known(struct phaseprobe *p, unsigned long long dev, unsigned long long ino)
{
	for (size_t i = 0; i < p->nexes; i++)
		if (p->exes[i][0] == dev && p->exes[i][1] == ino)
			return true;
	if (!grow((void **)&p->exes, &p->capexes, p->nexes, sizeof(*p->exes))) {
		p->exes[p->nexes][0] = dev;
		p->exes[p->nexes][1] = ino;
		p->nexes++;
	}
	return false;
}

/*
 * The closure of the command, and of every executable file its arguments
 * name by path ("mpiexec -n 4 ./train", "sh -c '/opt/x/bin/worker --id 1'"):
 * launchers exec those later, and their libraries are then attached before
 * the first call rather than just after the exec.
 */
static void cmd_closures(char *const *cmd, struct lib_set *known)
{
	char why[160];

	libfind__closure(cmd[0], known, why, sizeof(why)); /* a script has none */
	for (int i = 1; cmd[i]; i++) {
		const char *s = cmd[i];

		while (*s) {
			char word[PATH_MAX];
			size_t n = 0;
			struct stat st;

			while (*s && strchr(" \t\n'\"=;&|()<>", *s))
				s++;
			while (*s && !strchr(" \t\n'\"=;&|()<>", *s)) {
				if (n + 1 < sizeof(word))
					word[n++] = *s;
				s++;
			}
			word[n] = '\0';
			if (strchr(word, '/') && !stat(word, &st) && S_ISREG(st.st_mode) && !access(word, X_OK))
				libfind__closure(word, known, why, sizeof(why));
		}
	}
}

/* A process exec'd: the closure of its new executable, then what it maps. */
static int on_exec(struct phaseprobe *p, pid_t pid)
{
	char link[64];
	struct stat st;
	int ret = 0;

	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	if (stat(link, &st))
		return 0; /* gone already */
	if (!exe_known(p, st.st_dev, st.st_ino)) {
		char err[160];
		struct lib_set set;

		lib_set__init(&set);
		/* through /proc/PID/exe: the file itself even in another mount namespace */
		if (libfind__closure(link, &set, err, sizeof(err)) != -ENOMEM)
			ret = examine_set(p, &set);
		lib_set__free(&set);
	}
	if (!ret)
		ret = examine_maps(p, pid);
	/* a followed program's rank from its launcher, in case its init call is not probed */
	if (!ret && !p->systemwide)
		ret = emit_env_rank(p, pid);
	return ret;
}

/* ---- ring buffer ---- */

static void queue_pid(pid_t **arr, size_t *n, size_t *cap, pid_t pid)
{
	for (size_t i = 0; i < *n; i++)
		if ((*arr)[i] == pid)
			return;
	if (!grow((void **)arr, cap, *n, sizeof(pid_t)))
		(*arr)[(*n)++] = pid;
}

static int on_sample(void *ctx, void *data, size_t size)
{
	struct phaseprobe *p = ctx;
	const struct ft_rec_hdr *h = data;

	if (size < sizeof(*h) || h->size != size)
		return 0;
	if (h->type == FT_REC_PROC && size >= sizeof(struct ft_proc)) {
		const struct ft_proc *r = data;
		pid_t pid = (pid_t)r->pid;

		switch (r->event) {
		case FT_PROC_FORK:
			if (!p->systemwide)
				pid_add(p, pid);
			break;
		case FT_PROC_EXEC:
			if (!p->systemwide)
				pid_add(p, pid);
			queue_pid(&p->execs, &p->nexecs, &p->capexecs, pid);
			break;
		case FT_PROC_EXIT:
			pid_del(p, pid);
			if (!grow((void **)&p->exits, &p->capexits, p->nexits, sizeof(*p->exits)))
				p->exits[p->nexits++] = (struct ph_exit){ pid, r->ts_ns };
			break;
		default:
			break;
		}
	}
	if (emit(p, h) < 0) {
		p->cb_err = -EIO;
		return -EIO;
	}
	return 0;
}

/* ---- calls in flight ---- */

static uint64_t exit_ts(const struct phaseprobe *p, pid_t pid)
{
	for (size_t i = 0; i < p->nexits; i++)
		if (p->exits[i].pid == pid)
			return p->exits[i].ts;
	return 0;
}

/*
 * Write calls in flight as OPEN phases and delete them from the map: those
 * of processes that exited (end = the exit), or all of them (end = stop_ns).
 */
static int close_calls(struct phaseprobe *p, uint64_t stop_ns, bool all)
{
	int fd = bpf_map__fd(p->skel->maps.calls);
	size_t n = 0, cap = bpf_map__max_entries(p->skel->maps.calls);
	struct ph_call_key *keys = calloc(cap, sizeof(*keys)), *prev = NULL;
	int ret = 0;

	if (!keys)
		return -ENOMEM;
	/* keys first: deleting while walking restarts the walk */
	while (n < cap && bpf_map_get_next_key(fd, prev, &keys[n]) == 0) {
		prev = &keys[n];
		n++;
	}
	for (size_t i = 0; i < n && !ret; i++) {
		const struct ph_call_key *k = &keys[i];
		pid_t pid = (pid_t)(k->pid_tgid >> 32);
		uint64_t end = exit_ts(p, pid);
		struct ft_phase r = { .hdr = { FT_REC_PHASE, sizeof(r), 0 } };
		struct ph_call c;

		if (!all && !end)
			continue;
		if (bpf_map_lookup_elem(fd, k, &c))
			continue;
		bpf_map_delete_elem(fd, k);
		if (k->slot >= p->nslots || (p->cfgs[k->slot].cfg & PH_CFG_NO_PHASE))
			continue;
		r.start_ns = c.start_ns;
		r.end_ns = end ? end : stop_ns;
		if (r.end_ns < r.start_ns)
			r.end_ns = r.start_ns;
		r.count = c.count;
		r.comm = c.comm;
		r.seq = c.seq;
		r.pid = (uint32_t)pid;
		r.tid = (uint32_t)k->pid_tgid;
		r.netns = c.netns;
		r.slot = k->slot;
		r.dtype_size = c.dtype_size;
		r.peer = c.peer;
		r.flags = c.flags | FT_PHASE_OPEN;
		memcpy(r.name, c.comm_name, sizeof(r.name));
		r.name[sizeof(r.name) - 1] = '\0';
		ret = emit(p, &r.hdr);
	}
	free(keys);
	return ret;
}

/* ---- features ---- */

/* The skeleton, opened (not loaded).  0 or -errno. */
static int skel_open(struct phase_bpf **out)
{
#ifdef __clang_analyzer__
	/*
	 * The generated phase_bpf__create_skeleton() frees its allocations on
	 * error through libbpf, which the analyzer cannot see into; it would
	 * report a leak in build/phase.skel.h.  Analyse our code with a plain
	 * allocation instead.
	 */
	*out = calloc(1, sizeof(**out));
#else
	*out = phase_bpf__open();
#endif
	return *out ? 0 : -errno;
}

/* A function of this program to put a uprobe on (the features self-test). */
__attribute__((noinline, used)) int phaseprobe_selftest_target(uint64_t v);
__attribute__((noinline, used)) int phaseprobe_selftest_target(uint64_t v)
{
	__asm__ volatile("" : : "r"(v) : "memory");
	return (int)(v & 1);
}

/* File and offset of the code at ADDR, from /proc/self/maps. */
static int self_offset(uintptr_t addr, char *path, size_t len, uint64_t *off)
{
	char line[PATH_MAX + 128];
	FILE *f = fopen("/proc/self/maps", "re");
	int ret = -ENOENT;

	if (!f)
		return -errno;
	/* "start-end perms offset dev inode path" */
	while (fgets(line, sizeof(line), f)) {
		char *s = line, *file;
		unsigned long start, end, foff;

		start = strtoul(s, &s, 16);
		if (*s++ != '-')
			continue;
		end = strtoul(s, &s, 16);
		s += strcspn(s, " ");         /* perms */
		s += strspn(s, " ");
		s += strcspn(s, " ");
		foff = strtoul(s, &s, 16);
		file = strchr(s, '/');
		if (addr < start || addr >= end || !file)
			continue;
		file[strcspn(file, "\n")] = 0;
		str_copy(path, file, len);
		*off = addr - start + foff;
		ret = 0;
		break;
	}
	fclose(f);
	return ret;
}

struct selftest {
	int seen;
	uint64_t want;
};

static int selftest_sample(void *ctx, void *data, size_t size)
{
	struct selftest *t = ctx;
	const struct ft_phase *r = data;

	if (size >= sizeof(*r) && r->hdr.type == FT_REC_PHASE && r->slot == 7 && r->count == t->want)
		t->seen |= 1;
	if (size >= sizeof(*r) && r->hdr.type == FT_REC_PHASE && r->slot == 8 && r->end_ns >= r->start_ns)
		t->seen |= 2;
	return 0;
}

/*
 * uprobe + uretprobe with cookies on our own function, as uprobe_multi
 * links (MULTI) or perf uprobes: do the records come back?
 */
static int uprobe_selftest(bool multi, char *why, size_t whylen)
{
	struct ph_slot_cfg mark = {0}, call = {0};
	struct selftest t = { 0, 0xfab7aceull };
	struct bpf_link *l[3] = {0};
	int fds[3] = { -1, -1, -1 };
	struct ring_buffer *rb = NULL;
	struct phase_bpf *s;
	struct bpf_program *prog;
	char path[PATH_MAX];
	uint64_t off = 0, cookie;
	__u32 slot, tgid = (__u32)getpid(), one = 1;
	int err = 0;

	if (self_offset((uintptr_t)phaseprobe_selftest_target, path, sizeof(path), &off)) {
		snprintf(why, whylen, "cannot find this program's code in /proc/self/maps");
		return -ENOENT;
	}
	if (skel_open(&s)) {
		snprintf(why, whylen, "open: %s", strerror(errno));
		return -errno;
	}
	bpf_object__for_each_program(prog, s->obj)
		bpf_program__set_autoload(prog, false);
	bpf_program__set_autoload(s->progs.phase_entry, true);
	bpf_program__set_autoload(s->progs.phase_exit, true);
	if (multi) {
		bpf_program__set_expected_attach_type(s->progs.phase_entry, PH_BPF_TRACE_UPROBE_MULTI);
		bpf_program__set_expected_attach_type(s->progs.phase_exit, PH_BPF_TRACE_UPROBE_MULTI);
	}
	bpf_map__set_max_entries(s->maps.events, 4096 * 4);
	bpflog__clear();
	err = phase_bpf__load(s);
	if (err) {
		snprintf(why, whylen, "load: %s%s%s", strerror(-err), bpflog__sep(), bpflog__last());
		goto out;
	}
	catalog__generic_cfg(&call);
	mark = call;
	mark.kind = PH_K_MARK;
	mark.count = (struct ph_field){ 0, PH_F_64, 0 };
	slot = 7;
	bpf_map_update_elem(bpf_map__fd(s->maps.slots), &slot, &mark, BPF_ANY);
	slot = 8;
	bpf_map_update_elem(bpf_map__fd(s->maps.slots), &slot, &call, BPF_ANY);
	bpf_map_update_elem(bpf_map__fd(s->maps.traced), &tgid, &one, BPF_ANY);
	if (s->bss) /* mmap()ed global data: NULL only if the kernel cannot map it */
		s->bss->armed = true;
	for (int i = 0; i < 3 && !err; i++) {
		bool ret = i == 2;

		cookie = i == 0 ? 7 : 8;
		if (multi) {
			fds[i] = multi_attach(ret ? s->progs.phase_exit : s->progs.phase_entry, path,
					      &off, &cookie, 1, ret);
			err = fds[i] < 0 ? fds[i] : 0;
		} else {
			LIBBPF_OPTS(bpf_uprobe_opts, uo, .bpf_cookie = cookie, .retprobe = ret);

			l[i] = bpf_program__attach_uprobe_opts(ret ? s->progs.phase_exit :
							       s->progs.phase_entry, -1, path, off, &uo);
			err = l[i] ? 0 : -errno;
		}
		if (err)
			snprintf(why, whylen, "%s attach: %s%s%s", ret ? "uretprobe" : "uprobe",
				 strerror(-err), bpflog__sep(), bpflog__last());
	}
	if (err)
		goto out;
	rb = ring_buffer__new(bpf_map__fd(s->maps.events), selftest_sample, &t, NULL);
	if (!rb) {
		err = -errno;
		snprintf(why, whylen, "ring buffer: %s", strerror(-err));
		goto out;
	}
	phaseprobe_selftest_target(t.want);
	ring_buffer__consume(rb);
	if (t.seen != 3) {
		err = -ENOTSUP;
		snprintf(why, whylen, "uprobe attached but no %s came back (bpf cookies unsupported?)",
			 (t.seen & 1) ? "return record" : "entry record");
	}
out:
	ring_buffer__free(rb);
	for (int i = 0; i < 3; i++) {
		bpf_link__destroy(l[i]);
		if (fds[i] >= 0)
			close(fds[i]);
	}
	phase_bpf__destroy(s);
	return err;
}

/* Load and attach one hook variant alone; 0 if it works here. */
static int try_hook(int h, int v, char *why, size_t whylen)
{
	struct bpf_program *prog, *mine = NULL;
	struct phase_bpf *s;
	struct bpf_link *link;
	int err;

	if (skel_open(&s)) {
		snprintf(why, whylen, "open: %s", strerror(errno));
		return -errno;
	}
	bpf_object__for_each_program(prog, s->obj) {
		bool me = strcmp(bpf_program__name(prog), hooks[h].progs[v]) == 0;

		bpf_program__set_autoload(prog, me);
		if (me)
			mine = prog;
	}
	bpf_map__set_max_entries(s->maps.events, 4096 * 4);
	bpflog__clear();
	err = phase_bpf__load(s);
	if (err) {
		snprintf(why, whylen, "%s load: %s%s%s", hooks[h].kinds[v], strerror(-err),
			 bpflog__sep(), bpflog__last());
		goto out;
	}
	link = bpf_program__attach(mine);
	if (!link) {
		err = -errno;
		snprintf(why, whylen, "%s attach: %s%s%s", hooks[h].kinds[v], strerror(-err),
			 bpflog__sep(), bpflog__last());
		goto out;
	}
	bpf_link__destroy(link);
out:
	phase_bpf__destroy(s);
	return err;
}

static void choose_hooks(int *chosen, struct phase_feature *st)
{
	const char *only = getenv("FABTRACE_VARIANTS");

	for (int h = 0; h < PH_HOOK_MAX; h++) {
		struct phase_feature *f = &st[1 + h];

		chosen[h] = -1;
		*f = (struct phase_feature){ .name = hooks[h].name, .hook = hooks[h].tracepoint };
		for (int v = 0; v < 2; v++) {
			char why[160];

			if (only && *only && strcmp(only, hooks[h].kinds[v]) != 0)
				continue;
			if (try_hook(h, v, why, sizeof(why)) == 0) {
				chosen[h] = v;
				f->variant = hooks[h].kinds[v];
				f->why[0] = 0;
				break;
			}
			if (!f->why[0])
				str_copy(f->why, why, sizeof(f->why));
		}
		if (chosen[h] < 0 && !f->why[0])
			snprintf(f->why, sizeof(f->why), "no %s variant (FABTRACE_VARIANTS)", only);
	}
}

int phaseprobe__probe_features(struct phase_feature st[PH_FEAT_MAX], bool verbose)
{
	int chosen[PH_HOOK_MAX];

	bpflog__init(verbose);
	st[0] = (struct phase_feature){ .name = "uprobe", .hook = "uprobe+uretprobe, bpf cookie" };
	if (uprobe_selftest(true, st[0].why, sizeof(st[0].why)) == 0)
		st[0].variant = "uprobe_multi";
	else if (uprobe_selftest(false, st[0].why, sizeof(st[0].why)) == 0)
		st[0].variant = "uprobe";
	choose_hooks(chosen, st);
	return 0;
}

/* ---- open ---- */

/* Load the object with the chosen hook variants and attach the hooks. */
static int load_attach(struct phaseprobe *p, const struct phaseprobe_opts *o, char *err, size_t errlen)
{
	struct bpf_program *prog;
	int ret, fd;

	if (skel_open(&p->skel)) {
		snprintf(err, errlen, "opening the phase BPF object: %s", strerror(errno));
		return -errno;
	}
	bpf_object__for_each_program(prog, p->skel->obj)
		bpf_program__set_autoload(prog, false);
	bpf_program__set_autoload(p->skel->progs.phase_entry, true);
	bpf_program__set_autoload(p->skel->progs.phase_exit, true);
	if (p->multi) {
		bpf_program__set_expected_attach_type(p->skel->progs.phase_entry, PH_BPF_TRACE_UPROBE_MULTI);
		bpf_program__set_expected_attach_type(p->skel->progs.phase_exit, PH_BPF_TRACE_UPROBE_MULTI);
	}
	for (int h = 0; h < PH_HOOK_MAX; h++)
		if (p->chosen[h] >= 0)
			bpf_program__set_autoload(bpf_object__find_program_by_name(
				p->skel->obj, hooks[h].progs[p->chosen[h]]), true);
	p->skel->rodata->targ_follow = !p->systemwide;
	p->skel->rodata->targ_netns = o->netns;
	p->skel->rodata->targ_filter_ifaces = o->n_ifaces > 0;
	/*
	 * the phase probes' ring: twice --ringbuf.  Collectives and markers come
	 * in bursts from every rank at once; at half of it, 32 processes' calls
	 * overflowed it under ASan (test_load), where the recorder drains slower.
	 */
	p->skel->rodata->targ_wake_bytes = (__u32)netprobe__wake_for(o->wake_bytes, 2 * o->ringbuf_bytes);
	bpf_map__set_max_entries(p->skel->maps.events, (__u32)(2 * o->ringbuf_bytes));
	bpflog__clear();
	ret = phase_bpf__load(p->skel);
	if (ret) {
		snprintf(err, errlen, "loading the phase BPF programs: %s%s%s", strerror(-ret),
			 bpflog__sep(), bpflog__last());
		return ret;
	}
	fd = bpf_map__fd(p->skel->maps.targ_iftab);
	ret = netprobe__fill_iftab(fd, o->ifaces, o->n_ifaces, err, errlen);
	if (ret)
		return ret;
	for (int h = 0; h < PH_HOOK_MAX; h++) {
		if (p->chosen[h] < 0)
			continue;
		p->hook_links[h] = bpf_program__attach(bpf_object__find_program_by_name(
			p->skel->obj, hooks[h].progs[p->chosen[h]]));
		if (!p->hook_links[h]) {
			ret = -errno;
			snprintf(err, errlen, "attaching %s to %s: %s", hooks[h].kinds[p->chosen[h]],
				 hooks[h].tracepoint, strerror(-ret));
			return ret;
		}
	}
	p->rb = ring_buffer__new(bpf_map__fd(p->skel->maps.events), on_sample, p, NULL);
	if (!p->rb) {
		ret = -errno;
		snprintf(err, errlen, "phase ring buffer: %s", strerror(-ret));
		return ret;
	}
	return 0;
}

static void unload(struct phaseprobe *p)
{
	phaseprobe__detach(p);
	ring_buffer__free(p->rb);
	p->rb = NULL;
	phase_bpf__destroy(p->skel);
	p->skel = NULL;
}

/* The preferred hook variants in one load, else each hook's first variant that works. */
static int load_all(struct phaseprobe *p, const struct phaseprobe_opts *o, char *err, size_t errlen)
{
	int ret = -1;

	if (!getenv("FABTRACE_VARIANTS")) {
		for (int h = 0; h < PH_HOOK_MAX; h++) {
			p->chosen[h] = 0;
			p->st[1 + h] = (struct phase_feature){ .name = hooks[h].name,
				.hook = hooks[h].tracepoint, .variant = hooks[h].kinds[0] };
		}
		ret = load_attach(p, o, err, errlen);
		if (ret)
			unload(p);
	}
	if (ret) {
		choose_hooks(p->chosen, p->st);
		ret = load_attach(p, o, err, errlen);
		if (ret)
			unload(p);
	}
	return ret;
}

/*
 * Does this kernel have uprobe_multi links?  An attach to the empty path
 * fails early: -EINVAL where the attach type is unknown, -ENOENT (path
 * lookup) where it is known.  Nothing gets attached either way.
 */
static bool multi_supported(struct phaseprobe *p)
{
	uint64_t off = 0, cookie = 0;
	int fd = multi_attach(p->skel->progs.phase_entry, "", &off, &cookie, 1, false);

	if (fd >= 0) {
		close(fd);
		return true;
	}
	return fd != -EINVAL && fd != -EOPNOTSUPP;
}

/* Does a canonical path name the library LIB (a soname or file name)? */
static bool names_lib(const char *path, const char *lib)
{
	const char *base = strrchr(path, '/');
	size_t n = strlen(lib);

	base = base ? base + 1 : path;
	return strcmp(base, lib) == 0 || (strncmp(base, lib, n) == 0 && base[n] == '.');
}

/* Resolve every --phase library to a file, and check its symbol. */
static int resolve_specs(struct phaseprobe *p, const struct lib_set *known, char *err, size_t errlen)
{
	for (int i = 0; i < p->nspecs; i++) {
		struct ph_spec *sp = &p->specs[i];
		const char *lib = sp->spec.lib;
		struct cat_plan plan = {0};
		struct elf_syms *s = NULL;
		char why[160], *rp = NULL;
		struct stat st;
		int n;

		if (strchr(lib, '/')) {
			rp = realpath(lib, NULL);
		} else {
			for (size_t k = 0; !rp && k < known->n; k++)
				if (names_lib(known->paths[k], lib))
					rp = strdup(known->paths[k]);
			if (!rp && libfind__soname(lib, NULL, NULL, sp->path, sizeof(sp->path)) == 0)
				rp = realpath(sp->path, NULL);
		}
		if (!rp || stat(rp, &st)) {
			snprintf(err, errlen, "--phase %s:%s: library '%s' not found%s; give its path "
				 "or a soname the loader knows (ldconfig -p)", lib, sp->spec.symbol, lib,
				 strchr(lib, '/') ? "" : " (searched the command's libraries and the loader cache)");
			free(rp);
			return -EINVAL;
		}
		str_copy(sp->path, rp, sizeof(sp->path));
		free(rp);
		sp->dev = st.st_dev;
		sp->ino = st.st_ino;
		if (elf_syms__open(sp->path, &s, why, sizeof(why))) {
			snprintf(err, errlen, "--phase %s:%s: %s; give an ELF shared library or "
				 "executable", lib, sp->spec.symbol, why);
			return -EINVAL;
		}
		n = catalog__plan_spec(s, &sp->spec, &plan);
		cat_plan__free(&plan);
		elf_syms__close(s);
		if (n == 0) {
			snprintf(err, errlen, "--phase %s:%s: no function '%s' in %s; list them with "
				 "'nm -D --defined-only %s'", lib, sp->spec.symbol, sp->spec.symbol,
				 sp->path, sp->path);
			return -EINVAL;
		}
		if (n < 0) {
			snprintf(err, errlen, "out of memory");
			return n;
		}
	}
	return 0;
}

static int check_pids(const struct phaseprobe_opts *o, char *err, size_t errlen)
{
	for (int i = 0; i < o->npids; i++) {
		char path[64];
		struct stat st;

		snprintf(path, sizeof(path), "/proc/%d", (int)o->pids[i]);
		if (o->pids[i] <= 0 || stat(path, &st) || (kill(o->pids[i], 0) && errno == ESRCH)) {
			snprintf(err, errlen, "-p %d: no such process; check the PID (ps -p %d)",
				 (int)o->pids[i], (int)o->pids[i]);
			return -EINVAL;
		}
		if (o->pids[i] == getpid()) {
			snprintf(err, errlen, "-p %d: that is fabtrace itself; give the PID of the "
				 "program to trace", (int)o->pids[i]);
			return -EINVAL;
		}
	}
	return 0;
}


static int maps_into(struct phaseprobe *p, pid_t pid, pid_t ppid, void *arg)
{
	(void)p;
	(void)ppid;
	return libfind__maps(pid, arg) == -ENOMEM ? -ENOMEM : 0;
}

/* Does PID map a library with traced functions? */
static bool maps_traced(struct phaseprobe *p, pid_t pid)
{
	struct lib_set set;
	bool yes = false;

	lib_set__init(&set);
	libfind__maps(pid, &set);
	for (size_t i = 0; i < set.n && !yes; i++) {
		const struct ph_lib *l = lib_known(p, set.dev[i], set.ino[i]);

		yes = l && l->npoints;
	}
	lib_set__free(&set);
	return yes;
}

static int existing_if_traced(struct phaseprobe *p, pid_t pid, pid_t ppid, void *arg)
{
	(void)ppid;
	(void)arg;
	if (pid == getpid() || !maps_traced(p, pid))
		return 0;
	return emit_proc(p, pid, FT_PROC_EXISTING);
}

/* System-wide: what every running process maps. */
static int scan_all(struct phaseprobe *p)
{
	struct lib_set set;
	int ret;

	lib_set__init(&set);
	ret = for_each_pid(p, maps_into, &set);
	if (!ret)
		ret = examine_set(p, &set);
	lib_set__free(&set);
	return ret;
}

int phaseprobe__open(struct phaseprobe **out, const struct phaseprobe_opts *o,
		     phaseprobe_fn fn, void *ctx, char *err, size_t errlen)
{
	struct phaseprobe *p = calloc(1, sizeof(*p));
	struct lib_set known;
	int ret;

	if (!p)
		return -ENOMEM;
	lib_set__init(&known);
	bpflog__init(o->verbose);
	p->fn = fn;
	p->ctx = ctx;
	p->verbose = o->verbose;
	p->systemwide = !o->npids && !o->cmd;
	ret = check_pids(o, err, errlen);
	if (ret)
		goto fail;
	p->nspecs = o->nspecs;
	p->specs = calloc(o->nspecs ? (size_t)o->nspecs : 1, sizeof(*p->specs));
	p->links = calloc((size_t)2 * PH_MAX_SLOTS, sizeof(struct bpf_link *));
	p->cfgs = calloc(PH_MAX_SLOTS, sizeof(*p->cfgs));
	if (!p->specs || !p->links || !p->cfgs) {
		ret = -ENOMEM;
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	for (int i = 0; i < o->nspecs; i++)
		p->specs[i].spec = o->specs[i];

	/* the libraries the targets use, or may use */
	if (o->cmd && o->cmd[0])
		cmd_closures(o->cmd, &known);
	for (int i = 0; i < o->npids; i++)
		libfind__maps(o->pids[i], &known);
	for (size_t i = 0; i < sizeof(cache_prefixes) / sizeof(cache_prefixes[0]); i++)
		libfind__cache(cache_prefixes[i], &known);
	ret = resolve_specs(p, &known, err, errlen);
	if (ret)
		goto fail;

	/* the kernel side: the preferred hook variants in one load, else one by one */
	p->ncpus = libbpf_num_possible_cpus();
	p->multi = !getenv("FABTRACE_UPROBE_PERF");
	ret = load_all(p, o, err, errlen);
	if (!ret && p->multi && !multi_supported(p)) {
		unload(p); /* uprobes one perf event each: slower to attach and detach */
		p->multi = false;
		ret = load_all(p, o, err, errlen);
	}
	if (ret)
		goto fail;
	p->st[0] = (struct phase_feature){ .name = "uprobe", .hook = "uprobe+uretprobe, bpf cookie",
					   .variant = p->multi ? "uprobe_multi" : "uprobe" };

	/* targets: -p PIDs and their descendants (the fork hook runs already) */
	for (int i = 0; i < o->npids; i++) {
		pid_t pid = tgid_of(o->pids[i]);

		if (pid_followed(p, pid))
			continue; /* given twice, or a thread of one given */
		ret = follow(p, pid);
		if (!ret)
			ret = emit_proc(p, pid, FT_PROC_EXISTING);
		if (ret) {
			snprintf(err, errlen, "following pid %d: %s", (int)o->pids[i], strerror(-ret));
			goto fail;
		}
	}
	for (int added = o->npids; added;) {
		added = 0;
		for_each_pid(p, add_descendant, &added);
	}
	for (size_t i = 0; i < p->npids; i++)
		libfind__maps(p->pids[i], &known);

	/* attach: --phase libraries first (their symbols join the catalog's), then the rest */
	for (int i = 0; i < p->nspecs; i++) {
		ret = examine(p, p->specs[i].path, p->specs[i].dev, p->specs[i].ino);
		if (ret)
			break;
	}
	if (!ret)
		ret = examine_set(p, &known);
	if (!ret && p->systemwide) {
		ret = scan_all(p);
		if (!ret)
			ret = for_each_pid(p, existing_if_traced, NULL);
	}
	if (ret) {
		snprintf(err, errlen, "attaching phase probes: %s", strerror(-ret));
		goto fail;
	}
	lib_set__free(&known);
	*out = p;
	return 0;
fail:
	lib_set__free(&known);
	phaseprobe__close(p);
	return ret;
}

int phaseprobe__add_pid(struct phaseprobe *p, pid_t pid)
{
	int ret = follow(p, pid);

	return ret ? ret : emit_proc(p, pid, FT_PROC_FORK);
}

int phaseprobe__start(struct phaseprobe *p)
{
	size_t off = 0;
	int ret = 0;

	p->started = true;
	if (p->skel->bss)
		p->skel->bss->armed = true; /* calls count from here */
	while (off < p->plen && !ret) {
		const struct ft_rec_hdr *h = (const void *)(p->pending + off);

		ret = p->fn(p->ctx, h) < 0 ? -EIO : 0;
		off += h->size;
	}
	free(p->pending);
	p->pending = NULL;
	p->plen = p->pcap = 0;
	return ret;
}

int phaseprobe__epoll_fd(const struct phaseprobe *p)
{
	return ring_buffer__epoll_fd(p->rb);
}

int phaseprobe__poll(struct phaseprobe *p, int timeout_ms)
{
	int n = timeout_ms ? ring_buffer__poll(p->rb, timeout_ms) : ring_buffer__consume(p->rb);

	if (p->cb_err)
		return p->cb_err;
	/* processes that exec'd: attach their libraries before they get far */
	for (size_t i = 0; i < p->nexecs; i++)
		if (on_exec(p, p->execs[i]) == -EIO)
			return -EIO;
	p->nexecs = 0;
	return n == -EINTR ? 0 : n;
}

void phaseprobe__tick(struct phaseprobe *p)
{
	p->ticks++;
	if (p->nexits) {
		close_calls(p, 0, false);
		p->nexits = 0;
	}
	if (!p->systemwide) {
		for (size_t i = 0; i < p->npids; i++)
			examine_maps(p, p->pids[i]);
	} else if (p->ticks % (1000 / PHASEPROBE_TICK_MS) == 0) {
		scan_all(p); /* about once a second: every process on the system */
	}
}

/*
 * Removing a uprobe waits for an RCU-tasks-trace grace period (~0.1 s
 * here), once per uprobe_multi link or perf uprobe.  Closing them from
 * several threads at once lets the waits share grace periods.
 */
struct closer {
	struct phaseprobe *p;
	size_t next;            /* atomic: next item; fds first, then links */
	size_t total;
};

static void close_item(struct phaseprobe *p, size_t i)
{
	if (i < p->nmfds) {
		close(p->mfds[i]);
		return;
	}
	i -= p->nmfds;
	bpf_link__destroy(p->links[i]);
	p->links[i] = NULL;
}

static void *closer_run(void *arg)
{
	struct closer *c = arg;
	size_t i;

	while ((i = __atomic_fetch_add(&c->next, 1, __ATOMIC_RELAXED)) < c->total)
		close_item(c->p, i);
	return NULL;
}

#define CLOSE_THREADS 32

static void close_links(struct phaseprobe *p)
{
	size_t nlinks = p->links ? 2 * (size_t)p->nslots : 0;
	struct closer c = { p, 0, p->nmfds + nlinks };
	pthread_t th[CLOSE_THREADS];
	int n = 0;

	while (n < CLOSE_THREADS && (size_t)n < c.total / 2 &&
	       pthread_create(&th[n], NULL, closer_run, &c) == 0)
		n++;
	closer_run(&c); /* this thread helps, and does it all if no thread started */
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	p->nmfds = 0;
}

void phaseprobe__disarm(struct phaseprobe *p)
{
	if (p->skel && p->skel->bss)
		p->skel->bss->armed = false;
}

void phaseprobe__detach(struct phaseprobe *p)
{
	phaseprobe__disarm(p);
	for (int h = 0; h < PH_HOOK_MAX; h++) {
		bpf_link__destroy(p->hook_links[h]);
		p->hook_links[h] = NULL;
	}
	close_links(p);
}

int phaseprobe__flush_open(struct phaseprobe *p, uint64_t stop_ns)
{
	return close_calls(p, stop_ns, true);
}

int phaseprobe__lost(struct phaseprobe *p, uint64_t *per_cpu, int ncpus)
{
	__u32 zero = 0;
	uint64_t *v;
	int ret;

	memset(per_cpu, 0, sizeof(*per_cpu) * (size_t)ncpus);
	if (!p->skel || p->ncpus <= 0)
		return 0;
	v = calloc((size_t)p->ncpus, sizeof(*v));
	if (!v)
		return -ENOMEM;
	ret = bpf_map_lookup_elem(bpf_map__fd(p->skel->maps.lost), &zero, v) ? -errno : 0;
	for (int c = 0; !ret && c < p->ncpus && c < ncpus; c++)
		per_cpu[c] = v[c];
	free(v);
	return ret;
}

void phaseprobe__stats(const struct phaseprobe *p, struct phaseprobe_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->slots = p->nslots;
	st->attach_failed = p->attach_failed;
	st->systemwide = p->systemwide;
	for (size_t i = 0; i < p->nlibs; i++) {
		if (!p->libs[i].npoints)
			continue;
		st->libs++;
		if (p->libs[i].kind < sizeof(st->by_lib) / sizeof(st->by_lib[0]))
			st->by_lib[p->libs[i].kind] += p->libs[i].npoints;
	}
}

const char *phaseprobe__describe(const struct phaseprobe *p, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = 0;
	for (size_t i = 0; i < p->nlibs && off + 1 < len; i++) {
		const struct ph_lib *l = &p->libs[i];
		const char *base = strrchr(l->path, '/');
		int n;

		if (!l->npoints)
			continue;
		n = snprintf(buf + off, len - off, "%s%s %s (%u)", off ? ", " : "",
			     catalog__lib_name(l->kind), base ? base + 1 : l->path, l->npoints);
		if (n < 0)
			break;
		off += (size_t)n;
	}
	return buf;
}

const struct phase_feature *phaseprobe__features(const struct phaseprobe *p)
{
	return p->st;
}

void phaseprobe__close(struct phaseprobe *p)
{
	if (!p)
		return;
	unload(p);
	for (size_t i = 0; i < p->nlibs; i++)
		free(p->libs[i].path);
	free(p->libs);
	free(p->exes);
	free(p->specs);
	free(p->pids);
	free(p->execs);
	free(p->exits);
	free(p->pending);
	free(p->links);
	free(p->mfds);
	free(p->cfgs);
	free(p);
}
