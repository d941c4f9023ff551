/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A tracing session: the one data path shared by `record` and `top`.
 *
 * It resolves the interface/netns filters, opens the network probes, the
 * phase probes and the counter sampler, runs one epoll loop over their ring
 * buffers and timers, and hands every record - kernel records and the ones
 * it writes itself (interfaces, counters at start and stop, lost counts,
 * drop-reason names, probe states, END) - to the sink, in order:
 *   1. the capture file, when opts.out_path is set (record, top --record);
 *   2. the SINK callback, when set (top's live aggregator).
 * So a live view and a capture of the same session see the same records.
 *
 * Lifecycle:
 *   session__open()    block the stop signals (one that comes now waits for
 *                      the loop), filters, privileges, probes, sampler
 *                      (nothing written)
 *   session__start()   create the capture, the signalfd, spawn -- COMMAND,
 *                      write the preamble (probes, drop reasons, phase slots,
 *                      interfaces with start counters, counter groups)
 *   session__run()     releases COMMAND (unless a stop signal is pending), then
 *                      the loop: until -d, a signal, COMMAND's exit,
 *                      session__stop() from a callback, or an error
 *   session__finish()  stop counters, detach, drain, flush open bins and
 *                      calls, lost counts, END; close the capture
 *   session__close()   free (kills COMMAND if still running)
 * Callers add their own file descriptors (a refresh timer, the terminal,
 * HTTP sockets) to the loop with session__watch().
 */
#ifndef FABTRACE_SESSION_H
#define FABTRACE_SESSION_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "bpf/fabtrace.h"
#include "probes/catalog.h"
#include "rdma/sampler.h"

#define SESSION_MAX_IFACE_ARGS 64
#define SESSION_MAX_PIDS 256
#define SESSION_MAX_PHASE_SPECS 64
/*
 * The nice value of the thread that drains the rings (--nice).  On a host
 * whose CPUs the job saturates, a recorder at the default weight drains too
 * rarely and the rings overflow (32 busy processes on 2 vCPUs lost 6-14 % of
 * the phase records); its work is bounded by the event rate, so a higher
 * weight costs the job little.  The traced command keeps its own.
 */
#define SESSION_NICE (-10)

struct session_opts {
	const char *cmd_name;         /* "record", "top": prefix of error messages */
	const char *out_path;         /* capture file, NULL = none */
	uint64_t duration_ns;         /* 0 = until stopped */
	uint64_t bin_ns, sample_ns;
	size_t ringbuf_bytes;
	size_t wake_bytes;            /* --wakeup; used only when wake_set */
	bool wake_set;
	bool period_set;              /* --counter-period given: else the profile's */
	bool quiet, verbose, json;
	char **cmd;                   /* -- COMMAND ARGS, NULL = none */
	char *iface_args[SESSION_MAX_IFACE_ARGS];
	int n_iface_args;
	const char *netns_arg;
	pid_t pids[SESSION_MAX_PIDS]; /* -p */
	int npids;
	struct phase_spec *specs;     /* --phase (SESSION_MAX_PHASE_SPECS entries) */
	int nspecs;
	bool no_phases;
	uint64_t no_probes;           /* --no-probes: bit (1 << ft_probe_id) per probe left out */
	int profile;                  /* --profile (record): enum netprobe_profile, 0 = full */
	uint64_t post_probes;         /* --post-probes (record): bit (1 << ft_probe_id) per probe the
				       * profile leaves out, loaded and attached for post-windows */
	bool post_owners;             /* ... and the socket owners (`owners`) */
	int coverage;                 /* --coverage: enum netprobe_coverage */
	int nice;                     /* --nice: of the draining thread */
	uint32_t format_version;      /* --format-version of the capture: 0 the current one */
	bool format_set;              /* --format-version given (top: only with --record) */
	bool live;                    /* a live view (top): every closed bin at once */
	struct sampler_opts so;       /* RDMA and NIC counters */
};

/* Defaults (bin 100us, RTT samples 10ms, 4M ring); 0 or -ENOMEM. */
int session_opts__init(struct session_opts *o, const char *cmd_name);
void session_opts__free(struct session_opts *o);

/*
 * Options shared by record and top, for getopt_long: short "i:d:p:v",
 * long ones below.  session_opts__parse() handles one option C with
 * argument ARG: 1 handled, 0 not one of these, -1 bad value (error printed).
 */
enum session_opt {
	SOPT_NETNS = 256, SOPT_BIN, SOPT_RTT, SOPT_RINGBUF, SOPT_PHASE, SOPT_NO_PHASES,
	SOPT_CTR_PERIOD, SOPT_RDMA_DEVS, SOPT_RDMA_CTRS, SOPT_LIFESPAN, SOPT_NIC_STATS,
	SOPT_NO_RDMA, SOPT_NO_NIC, SOPT_BUDGET, SOPT_SYSFS, SOPT_WAKEUP, SOPT_NO_PROBES,
	SOPT_COVERAGE, SOPT_NICE, SOPT_FORMAT_VERSION, SOPT_PROFILE, SOPT_POST_PROBES,
	SOPT_END,                     /* commands number their own options from here */
};
#define SESSION_SHORT_OPTS "i:d:p:v"
#define SESSION_LONG_OPTS \
	{ "iface", required_argument, NULL, 'i' }, \
	{ "netns", required_argument, NULL, SOPT_NETNS }, \
	{ "duration", required_argument, NULL, 'd' }, \
	{ "bin", required_argument, NULL, SOPT_BIN }, \
	{ "rtt-interval", required_argument, NULL, SOPT_RTT }, \
	{ "ringbuf", required_argument, NULL, SOPT_RINGBUF }, \
	{ "wakeup", required_argument, NULL, SOPT_WAKEUP }, \
	{ "verbose", no_argument, NULL, 'v' }, \
	{ "pid", required_argument, NULL, 'p' }, \
	{ "phase", required_argument, NULL, SOPT_PHASE }, \
	{ "no-phases", no_argument, NULL, SOPT_NO_PHASES }, \
	{ "no-probes", required_argument, NULL, SOPT_NO_PROBES }, \
	{ "coverage", required_argument, NULL, SOPT_COVERAGE }, \
	{ "nice", required_argument, NULL, SOPT_NICE }, \
	{ "format-version", required_argument, NULL, SOPT_FORMAT_VERSION }, \
	{ "counter-period", required_argument, NULL, SOPT_CTR_PERIOD }, \
	{ "rdma-devices", required_argument, NULL, SOPT_RDMA_DEVS }, \
	{ "rdma-counters", required_argument, NULL, SOPT_RDMA_CTRS }, \
	{ "rdma-lifespan", required_argument, NULL, SOPT_LIFESPAN }, \
	{ "nic-stats", required_argument, NULL, SOPT_NIC_STATS }, \
	{ "no-rdma", no_argument, NULL, SOPT_NO_RDMA }, \
	{ "no-nic-stats", no_argument, NULL, SOPT_NO_NIC }, \
	{ "sampler-budget", required_argument, NULL, SOPT_BUDGET }, \
	{ "sysfs-root", required_argument, NULL, SOPT_SYSFS }
int session_opts__parse(struct session_opts *o, int c, const char *arg);
/* After parsing: options that contradict each other.  0 or -1 (printed). */
int session_opts__check(const struct session_opts *o);
/* The recorder is woken each time this many more bytes wait in a ring:
 * --wakeup, else an eighth of --ringbuf; 0 = every record (the kernel's
 * default). */
size_t session_opts__wake_bytes(const struct session_opts *o);

/* Every record goes here after the capture; non-zero stops the session with an error. */
typedef int (*session_sink_fn)(void *ctx, const struct ft_rec_hdr *rec);

/* What the session saw, for status lines and summaries. */
struct session_stats {
	uint64_t counts[64];          /* records by type (types < 64) */
	uint64_t bins, events, phases; /* kernel records by family */
	uint64_t ring_wakeups;        /* times a ring woke the event loop (--wakeup) */
	uint64_t start_ns;            /* CLOCK_MONOTONIC before the first probe attached: the capture's start */
	uint64_t traced_ns;           /* ... once every probe is in place: -d counts from here */
	uint64_t bytes_written, records_written; /* capture: final once finished */
	int n_ifs;                    /* interfaces known */
	int stop_reason;              /* enum ft_stop_reason */
	int child_status;             /* wait status of COMMAND */
	bool command_not_run;         /* COMMAND could not be run (execvp failed) */
};

struct session;

/* Open everything; errors are printed (one line).  0 or -1. */
int session__open(struct session **s, const struct session_opts *o,
		  session_sink_fn sink, void *ctx);
/*
 * Create the capture (if any; ARGV goes into its header), spawn COMMAND
 * (held until the loop runs), write the preamble.  0; -1 when something
 * failed (printed); -EIO when writing the preamble failed (not printed:
 * session__finish() then fails and session__write_error() says why).
 * Call session__finish() after either failure to close what was started.
 */
int session__start(struct session *s, int argc, char **argv);

/* Called from session__run() every second (after the session's own tick). */
typedef void (*session_tick_fn)(void *ctx, uint64_t now_ns, uint64_t ticks);
void session__on_tick(struct session *s, session_tick_fn fn, void *ctx);

/* Extra descriptors a session watches at once: a flight recorder's trigger
 * connections (each held until its snapshot is saved, with --wait), the
 * metrics server's clients, its own. */
#define SESSION_MAX_WATCH 320
/* An extra descriptor in the loop; FN gets the epoll events.  A watch id >= 0,
 * or -errno (-ENOSPC: SESSION_MAX_WATCH are watched). */
typedef void (*session_fd_fn)(void *ctx, int fd, uint32_t events);
int session__watch(struct session *s, int fd, uint32_t events, session_fd_fn fn, void *ctx);
int session__watch_mod(struct session *s, int id, uint32_t events);
/* Remove it from the loop (the caller closes the fd); safe inside any callback. */
void session__unwatch(struct session *s, int id);

/* Run until stopped.  0, or -errno when the loop itself failed. */
int session__run(struct session *s);
/* Drain the ring buffers now (a caller about to close a period wants every record so far). */
void session__drain(struct session *s);
/* Ask the loop to stop after the current round (from a callback). */
void session__stop(struct session *s, enum ft_stop_reason why);
/* Flush and detach everything, END, close the capture.  0 or -1 (write error, printed by caller). */
int session__finish(struct session *s);
/* End COMMAND if it still runs (SIGTERM to its tree, SIGKILL 10 s later),
 * keeping its wait status in the stats; session__close() does it otherwise. */
void session__end_command(struct session *s);
void session__close(struct session *s);

const struct session_stats *session__stats(const struct session *s);
uint64_t session__lost_total(const struct session *s);
/* How skipped probe runs are counted: "kernel", "pid1" or "counters" (--coverage). */
const char *session__coverage(const struct session *s);
uint64_t session__capture_bytes(const struct session *s); /* so far */
bool session__write_failed(const struct session *s);
const char *session__write_error(const struct session *s); /* "" if none */
bool session__has_phases(const struct session *s);
uint64_t session__bin_ns(const struct session *s);
int session__ncpus(const struct session *s);
/* The hostname written into the capture header. */
const char *session__hostname(const struct session *s);
/* The capture's header as session__start() made it (with or without a capture). */
const struct ft_file_header *session__header(const struct session *s);
/*
 * Probe runs the kernel skipped so far (tracepoint hits its program did not
 * see), per enum ft_probe_id; known[i] false when not counted.  0 or -errno.
 */
int session__skipped(struct session *s, uint64_t skipped[FT_PROBE_MAX], bool known[FT_PROBE_MAX]);
/* Whether --post-probes loaded any probe to attach for post-windows. */
bool session__has_post_probes(const struct session *s);
/*
 * Attach (ON) or detach them, between two ticks, and record when
 * (FT_REC_PROBE_SPAN, serving snapshot SNAP): detaching first hands on what
 * they left.  One that fails to attach or detach is warned of once and
 * left detached for the rest of the recording.  0 (also when already so,
 * or none loaded), or -1 when writing the records failed.
 */
int session__set_post_probes(struct session *s, bool on, uint32_t snap);
/* "fabtrace: phases: ..." line(s) on stderr, as record prints them. */
void session__phase_status(const struct session *s);

#endif
