/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared by the files of the phase probes only (the API is phaseprobe.h):
 * the probe's state and what one file uses of another.  From the top; a
 * file calls only those below it (features: only attach's ph_multi_attach):
 *   phaseprobe_lifecycle.c open (load, hook variants, targets), detach, close, stats
 *   phaseprobe_features.c  the features probe: uprobe self-test, hook variants that load here
 *   phaseprobe_drain.c     the ring buffer's callback, poll, the tick, calls in flight
 *   phaseprobe_attach.c    libraries: --phase specs, examining ELF files, attaching uprobes
 *   phaseprobe_procs.c     followed processes, /proc (comm, ppid, netns, rank from the environment)
 *   phaseprobe_records.c   records: kept until start, then handed on; lost-record counts
 */
#ifndef FABTRACE_PROBES_PHASEPROBE_STATE_H
#define FABTRACE_PROBES_PHASEPROBE_STATE_H

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/types.h>
#include <bpf/libbpf.h>

#include "phase.skel.h"
#include "bpf/phase.h"
#include "probes/libfind.h"
#include "probes/phaseprobe.h"

/* The tracepoint hooks, each in two variants (phaseprobe_features.c). */
struct ph_hook {
	const char *name;
	const char *tracepoint;
	const char *progs[2];
	const char *kinds[2];
};
extern const struct ph_hook ph_hooks[PH_HOOK_MAX];

/*
 * BPF_LINK_CREATE of an uprobe_multi link (kernel 6.6+).  Neither this
 * libbpf (1.1) nor the installed UAPI header know it yet, so the attr is
 * spelled out here as the kernel defines it.
 */
#define PH_BPF_TRACE_UPROBE_MULTI    48
#define PH_BPF_F_UPROBE_MULTI_RETURN 1u

/* libraries attached before the command maps them (phaseprobe_opts.libs) */
#define PH_MAX_PRELIBS 4

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

/* However the sizes of a process's executable mappings look, its maps are
 * read again at least this often (a file swapped for one of the same size,
 * a pid reused): by the followed processes' tick and the system-wide scan. */
#define PH_FULL_LOOK_MS 10000

/* What a system-wide scan saw of a process: the sizes of its executable
 * mappings (libfind__exec_size()). */
struct ph_sw_seen {
	pid_t pid;
	uint64_t exec_size;
};

/* What the tick last saw of a followed process's executable mappings. */
struct ph_maps_seen {
	uint64_t sig;       /* libfind__maps_sig() when last examined, 0 never */
	uint64_t exec_size; /* libfind__exec_size() then (0 if it could not be read) */
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
	bool owners_deferred;       /* sock_send, sock_recv loaded, attached by phaseprobe__set_owners() */
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
	unsigned long long pre[PH_MAX_PRELIBS][2]; /* opts' libs (dev, ino), attached ahead */
	int npre;
	struct ph_spec *specs;
	int nspecs;
	/* followed processes (not system-wide) */
	pid_t *pids;
	size_t npids, cappids;
	struct ph_maps_seen *seen;  /* per pid: its mappings when last examined */
	size_t capseen;
	/* system-wide: the last scan's processes, by pid; scans done */
	struct ph_sw_seen *sw_seen;
	size_t nsw_seen;
	unsigned sw_scans;
	/* work for after the ring-buffer callback */
	pid_t *execs;
	size_t nexecs, capexecs;
	size_t execs_from;          /* execs before it are being or have been handled */
	struct ph_exit *exits;
	size_t nexits, capexits;
	/* records before start */
	char *pending;
	size_t plen, pcap;
	bool started;
	int cb_err;
	unsigned ticks;
};

/* Room for element N of a growable array (the capacity doubles); 0 or -ENOMEM. */
static inline int grow(void **arr, size_t *cap, size_t n, size_t elem)
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

/* phaseprobe_procs.c */
bool ph_pid_followed(const struct phaseprobe *p, pid_t pid);
void ph_pid_add(struct phaseprobe *p, pid_t pid);
void ph_pid_del(struct phaseprobe *p, pid_t pid);
pid_t ph_tgid_of(pid_t pid);
int ph_emit_env_rank(struct phaseprobe *p, pid_t pid);
int ph_emit_proc(struct phaseprobe *p, pid_t pid, uint32_t event);
typedef int (*ph_pid_fn)(struct phaseprobe *p, pid_t pid, pid_t ppid, void *arg);
int ph_for_each_pid(struct phaseprobe *p, bool with_ppid, ph_pid_fn fn, void *arg);
int ph_follow(struct phaseprobe *p, pid_t pid);
int ph_add_descendant(struct phaseprobe *p, pid_t pid, pid_t ppid, void *arg);

/* phaseprobe_attach.c */
int ph_multi_attach(const struct bpf_program *prog, const char *path, const uint64_t *offs,
		    const uint64_t *cookies, uint32_t n, bool ret);
int ph_examine(struct phaseprobe *p, const char *path, unsigned long long dev, unsigned long long ino);
int ph_examine_set(struct phaseprobe *p, const struct lib_set *set);
int ph_examine_maps(struct phaseprobe *p, pid_t pid);
void ph_cmd_closures(char *const *cmd, struct lib_set *known);
int ph_on_exec(struct phaseprobe *p, pid_t pid);
int ph_resolve_specs(struct phaseprobe *p, const struct lib_set *known, char *err, size_t errlen);
int ph_existing_if_traced(struct phaseprobe *p, pid_t pid, pid_t ppid, void *arg);
int ph_scan_all(struct phaseprobe *p);

/* phaseprobe_records.c */
int ph_emit(struct phaseprobe *p, const struct ft_rec_hdr *h);

/* phaseprobe_drain.c */
int ph_on_sample(void *ctx, void *data, size_t size);

/* phaseprobe_features.c */
int ph_skel_open(struct phase_bpf **out);
void ph_choose_hooks(int *chosen, struct phase_feature *st);

#endif
