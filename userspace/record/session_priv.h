/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The session's state (struct session) and the functions its files share:
 * session_opts.c (options), session_ifaces.c (interfaces, records,
 * descriptions), session_setup.c (filters, header, preamble, probes,
 * open/start), session_counters.c (the counter sampler), session_loop.c
 * (periodic work, the event loop) and session_finish.c (stop, drain, END,
 * close, accessors).  Not for use outside userspace/record/.
 */
#ifndef FABTRACE_SESSION_PRIV_H
#define FABTRACE_SESSION_PRIV_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "probes/netns.h"
#include "userspace/capture/capture.h"
#include "userspace/record/pidwatch.h"
#include "userspace/record/session.h"


#define MAX_CPUS 1024
#define MAX_WATCH SESSION_MAX_WATCH

struct known_if {
	uint32_t netns, ifindex;
	bool has_start;     /* a START stats record was written: check conservation */
	bool described;     /* IFACE record written (or given up) */
	bool found;         /* its namespace was in the set: forgotten once a scan drops it;
			     * if not, tried again when a record names it */
	bool traced;        /* selected by the filters (its NIC stats are sampled) */
	char name[16];
};

/* A caller's descriptor in the loop; the generation makes stale events harmless. */
struct watch {
	int fd;             /* -1: free */
	uint32_t gen;
	session_fd_fn fn;
	void *ctx;
};

/* epoll data of the session's own descriptors (watches use their index) */
enum { EV_TICK = MAX_WATCH, EV_PHASE, EV_CTR, EV_SIG, EV_NET, EV_PP, EV_DRAIN, EV_SCHED };

struct session {
	const struct session_opts *o;
	session_sink_fn sink;
	void *sink_ctx;
	session_tick_fn tick_fn;
	void *tick_ctx;

	struct netns_set ns;
	uint32_t netns_filter;
	uint16_t clock_daemons;     /* enum ft_clock_daemon, found at the start */
	uint32_t (*filter)[2];
	char **filter_ns;           /* [n_filter] path into each one's netns, NULL: our own */
	int n_filter;
	struct known_if *ifs;
	int n_ifs, cap_ifs;
	struct capture_writer *w;
	struct netprobe *np;
	bool post_on;                 /* the --post-probes are attached now */
	bool post_broken;             /* attaching or detaching them failed: not tried again */
	struct phaseprobe *pp;        /* NULL: phase probes off or unavailable */
	struct sampler *smp;          /* NULL: counter sampling off */
	struct schedwait *sw;         /* the ranks' run-queue wait; NULL: no phase probes */
	struct sess_config *cfg;      /* the configuration records (session_config.c); NULL: none */
	struct ft_drop_reason *reasons; /* the kernel's drop reason names, read before the rings exist */
	size_t nreasons;
	bool backoff_warned;
	int ncpus;
	uint64_t lost_written[FT_SRC_MAX][MAX_CPUS];
	struct session_stats st;
	pid_t child;
	struct pidwatch pw;           /* -p without COMMAND: the recording ends when they have exited */
	char nccl_plugin[PATH_MAX];   /* fabtrace's NCCL profiler plugin for COMMAND; "" none */
	int sfd, go_fd;
	int exec_fd;                /* COMMAND's errno arrives here when it cannot be run */
	bool stop;
	bool write_failed;
	char write_error[CAPTURE_ERR_MAX];
	char hostname[64];
	struct ft_file_header hdr;    /* the capture's header (also without a capture: the flight recorder's) */

	int ep;
	struct watch watches[MAX_WATCH];
	sigset_t orig_mask;           /* COMMAND gets it back */
	struct sigaction orig_pipe;   /* SIGPIPE's disposition: COMMAND gets it back */
};


struct link_info;

/* session_ifaces.c: interfaces, records, descriptions */
struct known_if *sess_add_if(struct session *s, uint32_t netns, uint32_t ifindex);
/* (netns, ifindex) is one of the -i interfaces */
bool sess_filter_has(const struct session *s, uint32_t netns, uint32_t ifindex);
bool sess_if_traced(const struct session *s, uint32_t netns, uint32_t ifindex);
/* Could any traced interface live in this namespace? */
bool netns_traced(const struct session *s, uint32_t netns);
/* The signals that stop a session, and SIGCHLD (COMMAND's exit): blocked
 * from session__open(), read from the signalfd.  Inline, so that the loop
 * need not call into setup, which calls into the loop. */
static inline void sess_stop_signals(sigset_t *mask)
{
	sigemptyset(mask);
	sigaddset(mask, SIGINT);
	sigaddset(mask, SIGTERM);
	sigaddset(mask, SIGHUP);
	sigaddset(mask, SIGCHLD);
}
/* session_opts.c: -i SPEC split into its namespace ("" none) and interface;
 * -1, said as a bad --iface value, when it is no [NETNS/]IFACE. */
int sess_split_iface(const char *cmd, const char *spec, char *ns, size_t nslen, char *ifname, size_t iflen);
/* Every record: the capture first, then the sink. */
int sess_append(struct session *s, const struct ft_rec_hdr *h);
int sess_append_cb(void *ctx, const struct ft_rec_hdr *h);          /* sess_append, for callbacks */
/* The probes' records: sess_append, and make sure each interface named gets described. */
int sess_on_record(void *ctx, const struct ft_rec_hdr *h);
/* Describe every traced interface of every namespace, with counters (PHASE: FT_STATS_START or FT_STATS_STOP). */
int sess_describe_all(struct session *s, int phase);
/* Interfaces that appeared in records but were not described yet. */
void sess_describe_new(struct session *s);
/* Each tick: let go of deleted namespaces (our sockets keep them alive) and forget their interfaces. */
void sess_netns_tick(struct session *s);
/* netns__links callback: stop at the link named like out->info.name. */
int sess_match_name(const struct link_info *l, void *arg);

/* session_loop.c: periodic records */
void sess_write_lost(struct session *s, bool force);
/* A REALTIME/TAI <-> MONOTONIC pair with the sync state (KIND: enum ft_clock_kind). */
int sess_write_clock(struct session *s, uint8_t kind);

/* session_config.c: the configuration records (at the start, each tick, the stop) */
int sess_config_start(struct session *s);
void sess_config_tick(struct session *s);
void sess_config_stop(struct session *s);
void sess_config_free(struct session *s);

/* session_counters.c: the counter sampler */
int sess_open_sampler(struct session *s);
/* Describe the ports, groups and counters, and the RoCE netdevs as interfaces. */
int sess_start_sampler(struct session *s);
void sess_arm_sampler(const struct session *s, int fd);
void sess_sample_counters(struct session *s, int fd);

#endif
