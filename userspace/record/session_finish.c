// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Ending a session: session__finish() (counters snapshot, detach, drain
 * the rings, flush open bins and calls, write END), session__close(), and
 * the accessors of a session's state.
 */
#include <dirent.h>
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

/* record -v: where the timers that write out an idle CPU's bins fell short */
static void sess_describe_timers(const struct session *s)
{
	struct netprobe_timers t;

	netprobe__timers(s->np, &t);
	if (t.err)
		fprintf(stderr, "fabtrace: the kernel refused the BPF timers that write out an idle CPU's bins (%s): "
			"a CPU's last bins waited for its next packet\n", strerror(-t.err));
	else if (t.unpinned)
		fprintf(stderr, "fabtrace: the BPF timers that write out an idle CPU's bins ran unpinned (a kernel "
			"before 6.7 cannot pin them): %llu fired on another CPU, whose last bins waited for its next "
			"packet\n", (unsigned long long)t.strays);
}

int session__finish(struct session *s)
{
	struct ft_end end = { .hdr = { FT_REC_END, sizeof(end), 0 } };
	struct timespec pause = { 0, 20L * 1000 * 1000 };
	uint64_t stop_ns = mono_ns();
	int ret = 0, removed;

	if (s->pp)
		phaseprobe__disarm(s->pp); /* calls still running end here, as OPEN phases */
	if (!s->write_failed)
		sess_describe_all(s, FT_STATS_STOP);
	sess_config_stop(s);
	if (s->sw && !s->write_failed) /* the ranks' last wait, to the stop */
		schedwait__sample(s->sw, mono_ns(), sess_append_cb, s);
	if (s->smp) { /* last values at the stop, then lifespan restored */
		if (!s->write_failed)
			sampler__sample(s->smp, mono_ns(), sess_append_cb, s);
		sampler__close(s->smp, s->write_failed ? NULL : sess_append_cb, s);
		s->smp = NULL;
	}
	netprobe__detach(s->np);
	if (s->pp)
		phaseprobe__detach(s->pp);
	nanosleep(&pause, NULL); /* let programs already running on other CPUs finish */
	while (netprobe__poll(s->np, 0) > 0)
		;
	if (s->pp) {
		while (phaseprobe__poll(s->pp, 0) > 0)
			;
		/* calls still running: OPEN phases that end at the stop */
		phaseprobe__flush_open(s->pp, stop_ns);
	}
	netprobe__flush_bins(s->np);
	if (s->o->verbose)
		sess_describe_timers(s);
	netprobe__ce_flows(s->np, sess_append_cb, s);
	netprobe__coverage(s->np, sess_append_cb, s);
	sess_describe_new(s);
	sess_write_lost(s, true);
	sess_write_clock(s, FT_CLOCK_STOP);
	end.ts_ns = mono_ns();
	/* longer than a u32 holds (4.3 s of detaching): unknown, not a wrong stop */
	end.stop_ago_ns = end.ts_ns - stop_ns >= UINT32_MAX ? 0 : (uint32_t)(end.ts_ns - stop_ns);
	end.records = s->w ? capture__records(s->w) : 0;
	end.stop_reason = (uint32_t)s->st.stop_reason;
	sess_append(s, &end.hdr);
	if (!s->w)
		return s->write_failed ? -1 : 0;
	capture__flush(s->w);
	s->st.bytes_written = capture__bytes(s->w);
	if (capture__last_error(s->w)[0])
		str_copy(s->write_error, capture__last_error(s->w), sizeof(s->write_error));
	/* frees the writer; a header and nothing else (a full disk at once) is not left behind */
	ret = capture__close_unless_bare(s->w, s->write_failed, &s->st.records_written, &removed);
	s->w = NULL;
	if (removed) {
		snprintf(s->write_error, sizeof(s->write_error), "%s: %s before any record was written; %s",
			 s->o->out_path, strerror(ret < 0 ? -ret : EIO),
			 removed > 0 ? "the file is removed" : "the file could not be removed");
		if (removed > 0)
			s->st.bytes_written = 0;
	}
	return ret || s->write_failed ? -1 : 0;
}

/*
 * SIG to ROOT and every process below it, as /proc shows the tree now.  A
 * command stopped by -d or an error is often a shell or a launcher (sh -c,
 * timeout, mpiexec): signalling it alone left its children running untraced.
 * Processes that left the tree (a daemon's double fork) are not ours to end.
 */
static void signal_tree(pid_t root, int sig)
{
	struct { pid_t pid, ppid; bool in; } *ps = NULL;
	size_t n = 0, cap = 0;
	DIR *d = opendir("/proc");
	struct dirent *e;

	while (d && (e = readdir(d))) {
		char buf[4096], *end;
		const char *pp;
		long pid = strtol(e->d_name, &end, 10);

		if (*end || pid <= 0 || proc_status_read((pid_t)pid, buf, sizeof(buf)) < 0 ||
		    !(pp = proc_status_field(buf, "PPid:")))
			continue;
		if (grow_array((void **)&ps, &cap, n + 1, sizeof(*ps)))
			break;
		ps[n].pid = (pid_t)pid;
		ps[n].ppid = (pid_t)strtol(pp, NULL, 10);
		ps[n].in = ps[n].pid == root;
		n++;
	}
	if (d)
		closedir(d);
	/* a process is in the tree when its parent is; repeat until nothing joins */
	for (bool more = true; more;) {
		more = false;
		for (size_t i = 0; i < n; i++)
			for (size_t j = 0; j < n && !ps[i].in; j++)
				if (ps[j].in && ps[j].pid == ps[i].ppid)
					more = ps[i].in = true;
	}
	kill(root, sig);
	for (size_t i = 0; i < n; i++)
		if (ps[i].in && ps[i].pid != root)
			kill(ps[i].pid, sig);
	free(ps);
}

/* SIGTERM to COMMAND's tree, SIGKILL after STOP_GRACE_MS if it did not exit;
 * its wait status kept for the summary (command_exit_status). */
#define STOP_GRACE_MS 10000
void session__end_command(struct session *s)
{
	int ms;

	if (!s || s->child <= 0)
		return;
	signal_tree(s->child, SIGTERM);
	for (ms = 0; ms < STOP_GRACE_MS; ms += 10) {
		if (waitpid(s->child, &s->st.child_status, WNOHANG) == s->child)
			break;
		usleep(10000);
	}
	if (ms >= STOP_GRACE_MS) {
		signal_tree(s->child, SIGKILL);
		waitpid(s->child, &s->st.child_status, 0);
	}
	s->child = 0;
}

void session__close(struct session *s)
{
	if (!s)
		return;
	if (s->w) { /* started but never finished: keep what was written */
		capture__close(s->w);
		s->w = NULL;
	}
	if (s->go_fd >= 0)
		close(s->go_fd); /* the command never starts */
	if (s->exec_fd >= 0)
		close(s->exec_fd);
	session__end_command(s);
	pidwatch__close(&s->pw);
	if (s->sfd >= 0)
		close(s->sfd);
	if (s->ep >= 0)
		close(s->ep);
	/* the signals stay blocked: one that is pending must not kill us on the way out */
	for (int i = 0; s->filter_ns && i < s->n_filter; i++)
		free(s->filter_ns[i]);
	free(s->filter_ns);
	free(s->filter);
	free(s->ifs);
	free(s->reasons);
	sess_config_free(s);
	if (s->smp)
		sampler__close(s->smp, NULL, NULL); /* on an early error: lifespan restored */
	phaseprobe__close(s->pp);
	schedwait__free(s->sw);
	netprobe__close(s->np);
	netns_set__free(&s->ns);
	free(s);
}

/* ---- accessors ---- */

const struct session_stats *session__stats(const struct session *s)
{
	return &s->st;
}

const char *session__coverage(const struct session *s)
{
	return s->np ? netprobe__coverage_name(netprobe__coverage_mode(s->np)) : "";
}

uint64_t session__capture_bytes(const struct session *s)
{
	return s->w ? capture__bytes(s->w) : s->st.bytes_written;
}

bool session__write_failed(const struct session *s)
{
	return s->write_failed;
}

const char *session__write_error(const struct session *s)
{
	return s->write_error;
}

bool session__has_phases(const struct session *s)
{
	return s->pp != NULL;
}

uint64_t session__bin_ns(const struct session *s)
{
	return s->o->bin_ns;
}

int session__ncpus(const struct session *s)
{
	return s->ncpus;
}

int session__skipped(struct session *s, uint64_t skipped[FT_PROBE_MAX], bool known[FT_PROBE_MAX])
{
	return netprobe__skipped_now(s->np, skipped, known);
}

const char *session__hostname(const struct session *s)
{
	return s->hostname;
}

const struct ft_file_header *session__header(const struct session *s)
{
	return &s->hdr;
}
