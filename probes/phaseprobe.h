/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The phase probe family (bpf/phase.bpf.c): find the libraries the traced
 * processes load, attach the catalog's functions (uprobe + uretprobe with
 * the slot as BPF cookie, through bpf_links), follow the process tree,
 * attribute flows to processes, and drain what the programs produce.
 *
 * Targets: -- COMMAND (phaseprobe__add_pid on the child before it execs;
 * its children follow through fork), -p PIDs (and their descendants), or
 * neither: every process on the system.
 *
 * Libraries: the DT_NEEDED closure of the command, /proc/PID/maps of the
 * traced processes, the loader cache (libmpi*, libmpich*, libnccl*,
 * libgloo*, libfabtrace_marker*), and system-wide the maps of every
 * process.  While recording, a traced process's exec resolves the closure
 * of its new executable, and a timer rescans the traced processes' maps to
 * pick up dlopen()ed libraries.  A FT_REC_PHASE_SLOT record describes
 * every attached slot before any record that uses it.
 */
#ifndef FABTRACE_PHASEPROBE_H
#define FABTRACE_PHASEPROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "bpf/fabtrace.h"
#include "probes/catalog.h"

struct phaseprobe_opts {
	const pid_t *pids;          /* -p: processes to follow (with their descendants) */
	int npids;
	char *const *cmd;           /* -- COMMAND argv (its closure is attached), or NULL */
	/* libraries the targets will dlopen() (the NCCL profiler plugin the command is
	 * given): attached before they start, not at the next rescan of their maps */
	const char *const *libs;
	int nlibs;
	const struct phase_spec *specs; /* --phase LIB:SYMBOL[=NAME] */
	int nspecs;
	uint32_t netns;             /* flow attribution filter, as the net probes: 0 = all */
	const uint32_t (*ifaces)[2];
	int n_ifaces;
	size_t ringbuf_bytes;       /* power of two */
	size_t wake_bytes;          /* as netprobe_opts */
	bool verbose;
	bool no_owners;             /* leave out the socket-owner hooks (sock_send, sock_recv) */
	bool defer_owners;          /* with no_owners: load them, attached only by
				     * phaseprobe__set_owners() (record --post-probes owners) */
};

/* Kernel hooks the family uses besides the uprobes. */
enum ph_hook_id {
	PH_HOOK_FORK = 0,
	PH_HOOK_EXEC,
	PH_HOOK_EXIT,
	PH_HOOK_SEND,
	PH_HOOK_RECV,
	PH_HOOK_MAX,
};

/* One feature and how it fared (uprobes first, then the hooks). */
struct phase_feature {
	const char *name;           /* "uprobe", "proc_fork", ... */
	const char *hook;           /* "uprobe+cookie", "sched_process_fork", ... */
	const char *variant;        /* what is used ("uprobe", "tp_btf", "raw_tp"), NULL = none */
	char why[160];              /* why not, "" if it works */
};

#define PH_FEAT_MAX (1 + PH_HOOK_MAX)

/* Try uprobes with cookies (on a function of this program) and every hook variant. */
int phaseprobe__probe_features(struct phase_feature st[PH_FEAT_MAX], bool verbose);

struct phaseprobe;

typedef int (*phaseprobe_fn)(void *ctx, const struct ft_rec_hdr *rec);

/*
 * Check the targets and --phase specs, load, attach the process and socket
 * hooks and the uprobes of the libraries found so far.  Records produced
 * before phaseprobe__start() are kept and written by it.
 * 0, or -errno with a one-line reason in ERR:
 *   -EINVAL  a user error (unknown --phase library or symbol, no such PID);
 *            ERR is "<what>: <why>; <what to do>"
 *   other    the probes cannot work here (ERR says why).
 */
int phaseprobe__open(struct phaseprobe **p, const struct phaseprobe_opts *o,
		     phaseprobe_fn fn, void *ctx, char *err, size_t errlen);
/* Follow PID (the command's child, before it execs): FT_PROC_FORK from this process. */
int phaseprobe__add_pid(struct phaseprobe *p, pid_t pid);
/*
 * Write the records kept since open; from now on fn gets them as they come,
 * and calls are recorded (before, the probes follow processes only).
 */
int phaseprobe__start(struct phaseprobe *p);
int phaseprobe__epoll_fd(const struct phaseprobe *p);
/* Drain the ring buffer (0 = no wait) and attach libraries new processes exec'd. */
int phaseprobe__poll(struct phaseprobe *p, int timeout_ms);
/* Period of phaseprobe__tick. */
#define PHASEPROBE_TICK_MS 150
/* Rescan maps for dlopen()ed libraries; close the calls of processes that exited. */
void phaseprobe__tick(struct phaseprobe *p);
/* Stop recording calls (the stop time of the capture); probes stay attached. */
void phaseprobe__disarm(struct phaseprobe *p);
/* Disarm and detach every link; maps stay readable. */
void phaseprobe__detach(struct phaseprobe *p);
/* Whether the socket-owner hooks loaded to be attached on demand (defer_owners). */
bool phaseprobe__owners_deferred(const struct phaseprobe *p);
/* Attach (ON) or detach those hooks.  0 (also when already so), or -errno with err set. */
int phaseprobe__set_owners(struct phaseprobe *p, bool on, char *err, size_t errlen);
/* After detach and drain: calls still in flight as FT_PHASE_OPEN (end = STOP_NS). */
int phaseprobe__flush_open(struct phaseprobe *p, uint64_t stop_ns);
/* Cumulative lost count per CPU (FT_SRC_PHASE). */
int phaseprobe__lost(struct phaseprobe *p, uint64_t *per_cpu, int ncpus);

struct phaseprobe_stats {
	unsigned slots;             /* attach points (functions) */
	unsigned preattached;       /* of them, in the opts' libs (attached ahead of any use) */
	unsigned libs;              /* libraries with at least one */
	unsigned by_lib[6];         /* slots per enum ft_lib_kind */
	unsigned attach_failed;
	bool systemwide;
};
void phaseprobe__stats(const struct phaseprobe *p, struct phaseprobe_stats *st);
/* "MPI libmpich.so.12 (33), marker libfabtrace_marker.so (4)" into BUF. */
const char *phaseprobe__describe(const struct phaseprobe *p, char *buf, size_t len);
const struct phase_feature *phaseprobe__features(const struct phaseprobe *p);
void phaseprobe__close(struct phaseprobe *p);

#endif
