// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The session's event loop: periodic work (lost counters, clock pairs,
 * new interfaces, CE flows, flushing) on the 1 s tick, the callers'
 * watched descriptors, signals, and session__run().
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include <bpf/libbpf.h>

#include "probes/btf_names.h"
#include "probes/netns.h"
#include "probes/netprobe.h"
#include "probes/phaseprobe.h"
#include "probes/privs.h"
#include "probes/schedwait.h"
#include "userspace/capture/capture.h"
#include "userspace/record/hostclock.h"
#include "userspace/record/session.h"
#include "userspace/record/session_priv.h"
#include "lib/util.h"

/* ---- periodic work ---- */

void sess_write_lost(struct session *s, bool force)
{
	static uint64_t cur[MAX_CPUS];
	int ncpus = s->ncpus < MAX_CPUS ? s->ncpus : MAX_CPUS;

	for (int src = 0; src < FT_SRC_MAX; src++) {
		if (src == FT_SRC_USER || (src == FT_SRC_PHASE && !s->pp))
			continue;
		if (src == FT_SRC_PHASE ? phaseprobe__lost(s->pp, cur, ncpus)
					: netprobe__lost(s->np, src, cur, ncpus))
			continue;
		for (int c = 0; c < ncpus; c++) {
			struct ft_lost l = { .hdr = { FT_REC_LOST, sizeof(l), 0 } };

			/* at the end every CPU's counter is written, zeros included,
			 * so the capture proves "nothing lost" rather than implying it */
			if (cur[c] == s->lost_written[src][c] && !force)
				continue;
			l.ts_ns = mono_ns();
			l.lost = cur[c];
			l.source = src;
			l.cpu = c;
			if (sess_append(s, &l.hdr) == 0)
				s->lost_written[src][c] = cur[c];
		}
	}
}

uint64_t session__lost_total(const struct session *s)
{
	uint64_t t = 0;

	for (int src = 0; src < FT_SRC_MAX; src++)
		for (int c = 0; c < s->ncpus && c < MAX_CPUS; c++)
			t += s->lost_written[src][c];
	return t;
}

/* A REALTIME/TAI <-> MONOTONIC pair with the sync state (docs/multihost.md). */
int sess_write_clock(struct session *s, uint8_t kind)
{
	struct ft_clock c;

	hostclock__sample(&c, kind, s->clock_daemons);
	return sess_append(s, &c.hdr);
}

static void tick(struct session *s, uint64_t ticks)
{
	sess_netns_tick(s);
	sess_describe_new(s);
	sess_config_tick(s);
	sess_write_clock(s, FT_CLOCK_PERIODIC); /* a clock being slewed drifts: one pair a second */
	sess_write_lost(s, false);
	if (ticks % 5 == 0)
		netprobe__ce_flows(s->np, sess_append_cb, s);
	if (s->w && !s->write_failed && capture__flush(s->w)) {
		s->write_failed = true;
		s->st.stop_reason = FT_STOP_ERROR;
	}
	if (s->tick_fn)
		s->tick_fn(s->tick_ctx, mono_ns(), ticks);
	if (pidwatch__all_gone(&s->pw))
		session__stop(s, FT_STOP_PROCS);
}


/* ---- the probes of post-windows (record --post-probes) ---- */

/* The network probes --post-probes loaded: bits (1 << ft_probe_id). */
static uint64_t post_net(const struct session *s)
{
	return s->np ? netprobe__deferred(s->np) : 0;
}

/* Whether --post-probes loaded the socket owners. */
static bool post_owners(const struct session *s)
{
	return s->pp && phaseprobe__owners_deferred(s->pp);
}

bool session__has_post_probes(const struct session *s)
{
	return post_net(s) || post_owners(s);
}

/* An FT_REC_PROBE_SPAN of the post-window probes, now. */
static int write_span(struct session *s, bool on, uint32_t snap)
{
	struct ft_probe_span r = { .hdr = { FT_REC_PROBE_SPAN, sizeof(r), 0 }, .ts_ns = mono_ns(),
				   .probes = post_net(s), .on = on, .snapshot = snap, .owners = post_owners(s) };

	return sess_append(s, &r.hdr);
}

int session__set_post_probes(struct session *s, bool on, uint32_t snap)
{
	char err[256];
	bool failed = false;

	if (!session__has_post_probes(s) || s->post_broken || s->post_on == on || s->write_failed)
		return 0;
	/* the span opens before their first record and closes after their last */
	if (on && write_span(s, true, snap))
		return -1;
	if (post_owners(s) && phaseprobe__set_owners(s->pp, on, err, sizeof(err)))
		failed = true;
	if (!failed && post_net(s) && netprobe__set_deferred(s->np, on, err, sizeof(err)))
		failed = true;
	if (failed) { /* once: the recording goes on without them */
		char ignored[256];

		ft_warn("%s: --post-probes: %s; recording goes on without them", s->o->cmd_name, err);
		s->post_broken = true;
		if (on && post_owners(s))
			phaseprobe__set_owners(s->pp, false, ignored, sizeof(ignored));
		if (on && post_net(s))
			netprobe__set_deferred(s->np, false, ignored, sizeof(ignored));
		on = false;
	}
	s->post_on = on;
	if (on)
		return 0;
	return write_span(s, false, snap) || s->write_failed ? -1 : 0;
}

/* ---- the loop ---- */

void session__on_tick(struct session *s, session_tick_fn fn, void *ctx)
{
	s->tick_fn = fn;
	s->tick_ctx = ctx;
}

static uint64_t ev_data(unsigned idx, uint32_t gen)
{
	return (uint64_t)gen << 32 | idx;
}

int session__watch(struct session *s, int fd, uint32_t events, session_fd_fn fn, void *ctx)
{
	struct epoll_event ev = { .events = events };

	if (s->ep < 0)
		return -EBADF;
	for (int i = 0; i < MAX_WATCH; i++) {
		struct watch *w = &s->watches[i];

		if (w->fd >= 0)
			continue;
		w->gen++;
		ev.data.u64 = ev_data((unsigned)i, w->gen);
		if (epoll_ctl(s->ep, EPOLL_CTL_ADD, fd, &ev))
			return -errno;
		w->fd = fd;
		w->fn = fn;
		w->ctx = ctx;
		return i;
	}
	return -ENOSPC;
}

int session__watch_mod(struct session *s, int id, uint32_t events)
{
	struct epoll_event ev = { .events = events };
	struct watch *w;

	if (id < 0 || id >= MAX_WATCH || s->watches[id].fd < 0)
		return -EINVAL;
	w = &s->watches[id];
	ev.data.u64 = ev_data((unsigned)id, w->gen);
	return epoll_ctl(s->ep, EPOLL_CTL_MOD, w->fd, &ev) ? -errno : 0;
}

void session__unwatch(struct session *s, int id)
{
	struct watch *w;

	if (id < 0 || id >= MAX_WATCH || s->watches[id].fd < 0)
		return;
	w = &s->watches[id];
	epoll_ctl(s->ep, EPOLL_CTL_DEL, w->fd, NULL);
	w->fd = -1;
	w->gen++; /* events already fetched for it are now stale */
}

void session__drain(struct session *s)
{
	netprobe__poll(s->np, 0);
	if (s->pp)
		phaseprobe__poll(s->pp, 0);
}

void session__stop(struct session *s, enum ft_stop_reason why)
{
	if (!s->stop)
		s->st.stop_reason = why;
	s->stop = true;
}

static int add_own(struct session *s, int fd, unsigned id)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = id };

	return epoll_ctl(s->ep, EPOLL_CTL_ADD, fd, &ev) ? -errno : 0;
}

/* A signal arrived: stop on INT/TERM/HUP, or when COMMAND exited. */
static void on_signal(struct session *s)
{
	struct signalfd_siginfo si;

	while (read(s->sfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGCHLD) {
			if (s->child > 0 && waitpid(s->child, &s->st.child_status, WNOHANG) == s->child) {
				int e;

				s->child = 0;
				/* the exec's errno, or EOF: the exec closed the pipe */
				if (s->exec_fd >= 0 && read(s->exec_fd, &e, sizeof(e)) == sizeof(e))
					s->st.command_not_run = true;
				session__stop(s, FT_STOP_COMMAND);
			}
		} else {
			session__stop(s, FT_STOP_SIGNAL);
		}
	}
}

/*
 * This thread drains the rings: give it --nice.  setpriority() on
 * PRIO_PROCESS 0 sets the calling thread only (Linux), and the traced
 * command was forked before, so it keeps its own priority.
 */
static void set_nice(const struct session *s)
{
	if (getpriority(PRIO_PROCESS, 0) == s->o->nice || !setpriority(PRIO_PROCESS, 0, s->o->nice))
		return;
	if (!s->o->quiet)
		ft_warn("%s: cannot run at --nice %d (%s); on a host with busy CPUs the ring buffers may "
			"overflow (lost events are counted)", s->o->cmd_name, s->o->nice, strerror(errno));
}

int session__run(struct session *s)
{
	int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	int pfd = s->pp ? timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK) : -1;
	int cfd = s->smp ? timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK) : -1;
	bool batched = session_opts__wake_bytes(s->o) > 0;
	int dfd = batched ? timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK) : -1;
	int wfd = s->sw ? timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK) : -1;
	struct itimerspec wits = {
		.it_interval = { 0, FT_SCHED_PERIOD_MS * 1000000L },
		.it_value = { 0, FT_SCHED_PERIOD_MS * 1000000L },
	};
	struct itimerspec its = { .it_interval = { 1, 0 }, .it_value = { 1, 0 } };
	long drain_ns = (long)netprobe__profile_drain_ms(s->o->profile) * 1000000L;
	struct itimerspec dits = { .it_interval = { 0, drain_ns }, .it_value = { 0, drain_ns } };
	struct itimerspec pits = {
		.it_interval = { 0, PHASEPROBE_TICK_MS * 1000000L },
		.it_value = { 0, PHASEPROBE_TICK_MS * 1000000L },
	};
	uint64_t ticks = 0, deadline = 0;
	int ret = 0;

	if (s->o->duration_ns) /* a -d of centuries must not wrap to a moment from now */
		deadline = s->o->duration_ns < UINT64_MAX - s->st.traced_ns ? s->st.traced_ns + s->o->duration_ns
									    : UINT64_MAX;

	if (tfd < 0 || timerfd_settime(tfd, 0, &its, NULL) ||
	    (s->pp && (pfd < 0 || timerfd_settime(pfd, 0, &pits, NULL))) || (s->smp && cfd < 0) ||
	    add_own(s, tfd, EV_TICK) || (s->pp && add_own(s, pfd, EV_PHASE)) ||
	    (s->smp && add_own(s, cfd, EV_CTR)) || add_own(s, s->sfd, EV_SIG) ||
	    (batched && (dfd < 0 || timerfd_settime(dfd, 0, &dits, NULL) || add_own(s, dfd, EV_DRAIN))) ||
	    (s->sw && (wfd < 0 || timerfd_settime(wfd, 0, &wits, NULL) || add_own(s, wfd, EV_SCHED))) ||
	    add_own(s, netprobe__epoll_fd(s->np), EV_NET) ||
	    (s->pp && add_own(s, phaseprobe__epoll_fd(s->pp), EV_PP))) {
		ret = errno ? -errno : -EINVAL;
		goto out;
	}
	if (s->smp)
		sess_arm_sampler(s, cfd);
	set_nice(s);
	if (s->go_fd >= 0) { /* tracing runs: let the command go, unless a stop came meanwhile */
		sigset_t pend, stop;

		sess_stop_signals(&stop);
		sigdelset(&stop, SIGCHLD); /* not a stop: COMMAND's exit */
		if (!(sigpending(&pend) == 0 && sigandset(&pend, &pend, &stop) == 0 && !sigisemptyset(&pend)) &&
		    write(s->go_fd, "g", 1) != 1)
			ret = -errno;
		close(s->go_fd); /* unreleased, the command exits without running */
		s->go_fd = -1;
	}

	while (!ret && !s->write_failed && !s->stop) {
		struct epoll_event evs[16];
		int timeout = -1, n;
		uint64_t now = mono_ns();

		if (deadline) {
			if (now >= deadline) {
				session__stop(s, FT_STOP_DURATION);
				break;
			}
			uint64_t ms = (deadline - now + 999999) / 1000000;

			timeout = ms > INT_MAX ? INT_MAX : (int)ms;
		}
		n = epoll_wait(s->ep, evs, 16, timeout);
		if (n < 0 && errno != EINTR) {
			ret = -errno;
			break;
		}
		for (int i = 0; i < n && !s->stop; i++) {
			uint64_t d = evs[i].data.u64, exp;
			unsigned id = (unsigned)(d & 0xffffffffu);

			switch (id) {
			case EV_TICK:
				if (read(tfd, &exp, sizeof(exp)) > 0)
					tick(s, ++ticks);
				break;
			case EV_PHASE:
				if (read(pfd, &exp, sizeof(exp)) > 0)
					phaseprobe__tick(s->pp);
				break;
			case EV_CTR:
				if (read(cfd, &exp, sizeof(exp)) > 0)
					sess_sample_counters(s, cfd);
				break;
			case EV_SIG:
				on_signal(s);
				break;
			case EV_SCHED:
				/* a failed write stops the loop (write_failed) */
				if (read(wfd, &exp, sizeof(exp)) > 0)
					(void)schedwait__sample(s->sw, mono_ns(), sess_append_cb, s);
				break;
			case EV_DRAIN: /* drained below; the read clears the expiry */
				(void)!read(dfd, &exp, sizeof(exp));
				break;
			case EV_NET:
			case EV_PP:
				s->st.ring_wakeups++;
				break; /* drained below */
			default:
				if (id < MAX_WATCH && s->watches[id].fd >= 0 &&
				    s->watches[id].gen == (uint32_t)(d >> 32))
					s->watches[id].fn(s->watches[id].ctx, s->watches[id].fd, evs[i].events);
				break;
			}
		}
		/* drain the rings every round: they are the hot path */
		if (netprobe__poll(s->np, 0) < 0)
			break;
		if (s->pp && phaseprobe__poll(s->pp, 0) < 0)
			break;
	}
out:
	if (tfd >= 0)
		close(tfd);
	if (pfd >= 0)
		close(pfd);
	if (cfd >= 0)
		close(cfd);
	if (dfd >= 0)
		close(dfd);
	if (wfd >= 0)
		close(wfd);
	return ret;
}

