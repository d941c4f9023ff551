// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Setting a session up: resolving the interface filters, the file header
 * and preamble, the traced command, the phase probes, then
 * session__open() and session__start().
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <malloc.h>
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
#include "probes/recursion_misses.h"
#include "probes/schedwait.h"
#include "userspace/capture/capture.h"
#include "userspace/record/hostclock.h"
#include "userspace/record/session.h"
#include "userspace/record/session_priv.h"
#include "lib/opt.h"
#include "lib/util.h"

/* ---- setup ---- */

static int resolve_filters(struct session *s)
{
	const struct session_opts *o = s->o;
	const char *cmd = o->cmd_name;
	char err[256];

	if (netns_set__scan(&s->ns, err, sizeof(err))) {
		ft_err("%s: %s", cmd, err);
		return -1;
	}
	if (o->netns_arg) {
		struct netns *n = netns_set__find_name(&s->ns, o->netns_arg);

		if (!n) {
			ft_err("%s: network namespace '%s' not found; list them with 'ip netns list'",
			       cmd, o->netns_arg);
			return -1;
		}
		if (netns__open(n, err, sizeof(err))) { /* else it records none of its interfaces, silently */
			ft_err("%s: --netns %s: %s", cmd, o->netns_arg, err);
			return -1;
		}
		s->netns_filter = n->inum;
	}
	if (!o->n_iface_args)
		return 0;
	s->filter = calloc(o->n_iface_args, sizeof(*s->filter));
	s->filter_ns = calloc(o->n_iface_args, sizeof(*s->filter_ns));
	if (!s->filter || !s->filter_ns) {
		ft_err("%s: out of memory", cmd);
		return -1;
	}
	for (int i = 0; i < o->n_iface_args; i++) {
		char nsname[64], ifname[32];
		struct netns *n;
		struct link_info l;

		if (sess_split_iface(cmd, o->iface_args[i], nsname, sizeof(nsname), ifname, sizeof(ifname)))
			return -1;
		n = nsname[0] ? netns_set__find_name(&s->ns, nsname) : netns_set__find_inum(&s->ns, s->ns.self_inum);
		if (!n) {
			ft_err("%s: network namespace '%s' not found; list them with 'ip netns list'",
			       cmd, nsname);
			return -1;
		}
		if (netns__open(n, err, sizeof(err))) {
			ft_err("%s: %s", cmd, err);
			return -1;
		}
		str_copy(l.info.name, ifname, sizeof(l.info.name));
		l.info.ifindex = 0;
		netns__links(n, sess_match_name, &l);
		if (!l.info.ifindex) {
			if (nsname[0])
				ft_err("%s: interface '%s' not found in network namespace '%s'; "
				       "list them with 'ip -n %s link'", cmd, ifname, nsname, nsname);
			else
				ft_err("%s: interface '%s' not found; list them with 'ip link' "
				       "(name another namespace's as NETNS/IFACE)", cmd, ifname);
			return -1;
		}
		if (s->netns_filter && n->inum != s->netns_filter) {
			ft_err("%s: interface '%s' is not in network namespace '%s'; drop --netns or -i",
			       cmd, o->iface_args[i], o->netns_arg);
			return -1;
		}
		if (sess_filter_has(s, n->inum, l.info.ifindex))
			continue; /* named twice: traced once (the kernel refuses a second tcx link on a device) */
		if (!n->self && !(s->filter_ns[s->n_filter] = strdup(n->path))) {
			ft_err("%s: out of memory", cmd);
			return -1;
		}
		s->filter[s->n_filter][0] = n->inum;
		s->filter[s->n_filter][1] = l.info.ifindex;
		s->n_filter++;
	}
	return 0;
}

static void clock_offsets(struct ft_file_header *h)
{
	int64_t best = INT64_MAX;

	/* Bracket the other clocks between two MONOTONIC reads; keep the tightest. */
	for (int i = 0; i < 5; i++) {
		struct timespec a, rt, bt, b;
		int64_t ma, mb;

		clock_gettime(CLOCK_MONOTONIC, &a);
		clock_gettime(CLOCK_REALTIME, &rt);
		clock_gettime(CLOCK_BOOTTIME, &bt);
		clock_gettime(CLOCK_MONOTONIC, &b);
		ma = a.tv_sec * 1000000000LL + a.tv_nsec;
		mb = b.tv_sec * 1000000000LL + b.tv_nsec;
		if (mb - ma < best) {
			int64_t mid = ma + (mb - ma) / 2;

			best = mb - ma;
			h->realtime_offset_ns = rt.tv_sec * 1000000000LL + rt.tv_nsec - mid;
			h->boottime_offset_ns = bt.tv_sec * 1000000000LL + bt.tv_nsec - mid;
		}
	}
}

static void fill_header(struct session *s, struct ft_file_header *h, int argc, char **argv)
{
	struct utsname u;
	size_t off = 0;

	memset(h, 0, sizeof(*h));
	h->version = s->o->format_version; /* 0: the current one */
	clock_offsets(h);
	h->start_mono_ns = s->st.start_ns;
	h->bin_ns = s->o->bin_ns;
	h->probes = netprobe__mask(s->np);
	if (s->o->profile == NP_PROFILE_ALWAYS)
		h->flags |= FT_FILE_PROFILE_ALWAYS;
	h->ncpus = (uint32_t)s->ncpus;
	gethostname(h->hostname, sizeof(h->hostname) - 1);
	if (uname(&u) == 0)
		str_copy(h->kernel, u.release, sizeof(h->kernel));
	str_copy(h->tool_version, FT_VERSION, sizeof(h->tool_version));
	for (int i = 0; i < argc && off + 1 < sizeof(h->command); i++) {
		int n = snprintf(h->command + off, sizeof(h->command) - off, "%s%s", i ? " " : "", argv[i]);

		if (n < 0)
			break;
		off += (size_t)n;
	}
}

/* Hooks whose tracepoint hits cannot be counted: their skipped runs are unknown. */
static void warn_coverage(const struct session *s)
{
	const struct probe_status *st = netprobe__status(s->np);
	uint64_t mask = netprobe__mask(s->np);

	if (s->o->quiet)
		return;
	for (int i = 0; i < FT_PROBE_MAX; i++)
		if ((mask & (1ull << i)) && st[i].cov_why[0])
			ft_warn("%s: %s: cannot count tracepoint hits (%s); runs the kernel "
				"skips will not be detected", s->o->cmd_name, st[i].name, st[i].cov_why);
}

static int write_preamble(struct session *s)
{
	const struct probe_status *st = netprobe__status(s->np);
	uint64_t mask = netprobe__mask(s->np);
	struct ft_host_id hid;

	hostclock__host_id(&hid, s->o->netns_arg, s->netns_filter);
	s->clock_daemons = hostclock__daemons();
	if (sess_append(s, &hid.hdr) || sess_write_clock(s, FT_CLOCK_START))
		return -EIO;
	for (int i = 0; i < FT_PROBE_MAX; i++) {
		struct ft_probe_info p = { .hdr = { FT_REC_PROBE, sizeof(p), 0 } };

		p.id = st[i].id;
		p.attached = !!(mask & (1ull << i));
		str_copy(p.name, st[i].name, sizeof(p.name));
		snprintf(p.hook, sizeof(p.hook), "%s/%s", st[i].variant ? st[i].variant : "-",
			 st[i].tracepoint);
		str_copy(p.why, st[i].why, sizeof(p.why));
		if (sess_append(s, &p.hdr))
			return -EIO;
	}
	for (size_t i = 0; i < s->nreasons; i++)
		if (sess_append(s, &s->reasons[i].hdr))
			return -EIO;
	/* phase slots and the processes followed so far, kept since the probes attached */
	if (s->pp && phaseprobe__start(s->pp))
		return -EIO;
	return sess_describe_all(s, FT_STATS_START) ? -EIO : sess_config_start(s);
}

/*
 * fabtrace's NCCL profiler plugin (probes/nccl_profiler): next to this binary
 * in the build tree, else in ../lib/fabtrace/ (make install).  "" if neither.
 */
static void nccl_plugin_path(char *out, size_t len)
{
	char exe[PATH_MAX], *slash;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	static const char *const rel[] = { "libnccl-profiler-fabtrace.so",
					   "../lib/fabtrace/libnccl-profiler-fabtrace.so" };

	out[0] = 0;
	if (n <= 0)
		return;
	exe[n] = 0;
	slash = strrchr(exe, '/');
	if (!slash)
		return;
	*slash = 0;
	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		char cand[PATH_MAX + 64];

		snprintf(cand, sizeof(cand), "%s/%s", exe, rel[i]);
		if (access(cand, R_OK) == 0 && realpath(cand, exe)) {
			snprintf(out, len, "%s", exe);
			return;
		}
	}
}

/* Fork COMMAND now, held on a pipe until tracing runs.  A second pipe, closed
 * by a successful exec, carries execvp's errno back when it fails. */
static int spawn_command(struct session *s)
{
	int pfd[2], efd[2];

	if (pipe2(pfd, O_CLOEXEC))
		return -errno;
	if (pipe2(efd, O_CLOEXEC)) {
		int e = errno;

		close(pfd[0]);
		close(pfd[1]);
		return -e;
	}
	s->child = fork();
	if (s->child < 0) {
		int e = errno;

		close(pfd[0]);
		close(pfd[1]);
		close(efd[0]);
		close(efd[1]);
		return -e;
	}
	if (s->child == 0) {
		char c;
		int e;

		sigprocmask(SIG_SETMASK, &s->orig_mask, NULL);
		sigaction(SIGPIPE, &s->orig_pipe, NULL);
		close(pfd[1]);
		close(efd[0]);
		if (read(pfd[0], &c, 1) != 1)
			_exit(126); /* tracing failed before it started */
		/* NCCL in the command loads our profiler plugin, unless the user named one */
		if (s->nccl_plugin[0])
			setenv("NCCL_PROFILER_PLUGIN", s->nccl_plugin, 0);
		execvp(s->o->cmd[0], s->o->cmd);
		e = errno;
		fprintf(stderr, "fabtrace: %s: cannot run '%s': %s; check the command and PATH\n",
			s->o->cmd_name, s->o->cmd[0], strerror(e));
		(void)!write(efd[1], &e, sizeof(e)); /* unsent, the parent sees a command that ran */
		_exit(127);
	}
	close(pfd[0]);
	close(efd[1]);
	s->go_fd = pfd[1];
	s->exec_fd = efd[0];
	return 0;
}


/*
 * The NCCL profiler plugin the command will load: the one its environment
 * names by path, else ours (spawn_command() sets it).  Its probes go on
 * before the command starts, so that the plugin's first events (NCCL's init
 * tells each communicator's rank there) are not lost to the wait for the
 * next rescan of the processes' maps.  NULL if none or no command.
 */
static const char *cmd_plugin_path(const struct session *s)
{
	const char *env = getenv("NCCL_PROFILER_PLUGIN");

	if (!s->o->cmd)
		return NULL;
	if (!env)
		return s->nccl_plugin[0] ? s->nccl_plugin : NULL;
	return strchr(env, '/') && !access(env, R_OK) ? env : NULL;
}

static int open_phases(struct session *s, const struct netprobe_opts *po)
{
	const struct session_opts *o = s->o;
	const char *libs[1] = { cmd_plugin_path(s) };
	struct phaseprobe_opts ppo = {
		.pids = o->pids, .npids = o->npids, .cmd = o->cmd, .libs = libs,
		.specs = o->specs, .nspecs = o->nspecs,
		.netns = po->netns, .ifaces = po->ifaces, .n_ifaces = po->n_ifaces,
		.ringbuf_bytes = o->ringbuf_bytes, .wake_bytes = session_opts__wake_bytes(o),
		.verbose = o->verbose, .no_owners = !netprobe__profile_owners(o->profile),
		.defer_owners = o->post_owners,
	};
	char err[512];
	int ret;

	ppo.nlibs = libs[0] ? 1 : 0;
	ret = phaseprobe__open(&s->pp, &ppo, sess_on_record, s, err, sizeof(err));

	if (!ret) {
		s->sw = schedwait__new();
		return s->sw ? 0 : -1;
	}
	s->pp = NULL;
	if (ret == -EINVAL || o->npids || o->nspecs) {
		ft_err("%s: %s", o->cmd_name, err);
		return -1;
	}
	if (!o->quiet)
		ft_warn("%s: phase probes unavailable (%s); phases will be inferred from traffic",
			o->cmd_name, err);
	return 0;
}

void session__phase_status(const struct session *s)
{
	struct phaseprobe_stats st;

	if (!s->pp || s->o->quiet || s->o->json)
		return;
	phaseprobe__stats(s->pp, &st);
	if (st.slots == st.preattached) { /* at most the plugin, which the command may never load */
		fprintf(stderr, "fabtrace: no MPI, NCCL, Gloo or marker library found%s; phases will "
			"be inferred from traffic\n", st.systemwide ? "" : " yet (libraries loaded later are "
			"still traced)");
	} else {
		char buf[512];

		fprintf(stderr, "fabtrace: phases: %u functions in %s%s%s\n", st.slots,
			phaseprobe__describe(s->pp, buf, sizeof(buf)),
			!st.systemwide ? "" : s->netns_filter ? ", every process of namespace " : ", every process",
			st.systemwide && s->netns_filter ? s->o->netns_arg : "");
	}
}

/* btf_drop_reasons() callback: keep one name for the preamble; a failure costs names only */
static int keep_reason(void *ctx, const struct ft_rec_hdr *rec)
{
	struct session *s = ctx;
	struct ft_drop_reason *r = realloc(s->reasons, (s->nreasons + 1) * sizeof(*r));

	if (!r)
		return -ENOMEM;
	s->reasons = r;
	memcpy(&r[s->nreasons++], rec, sizeof(*r));
	return 0;
}

int session__open(struct session **out, const struct session_opts *o,
		  session_sink_fn sink, void *ctx)
{
	sigset_t mask;
	struct session *s = calloc(1, sizeof(*s));
	struct netprobe_opts po = {0};
	char err[256], missing[96];
	struct stat st;

	*out = s;
	if (!s) {
		ft_err("%s: out of memory", o->cmd_name);
		return -1;
	}
	s->o = o;
	s->sink = sink;
	s->sink_ctx = ctx;
	s->child = -1;
	if (o->cmd)
		nccl_plugin_path(s->nccl_plugin, sizeof(s->nccl_plugin));
	s->sfd = s->go_fd = s->exec_fd = s->ep = -1;
	for (int i = 0; i < MAX_WATCH; i++)
		s->watches[i].fd = -1;
	/*
	 * Block the stop signals from the start: one that comes while the
	 * probes load waits for the loop, which then stops at once with a
	 * complete capture.  Unblocked, it would kill us without a word (or,
	 * ignored as a script's background job inherits it, be lost).
	 * COMMAND gets the mask we were started with.
	 */
	sess_stop_signals(&mask);
	sigprocmask(SIG_BLOCK, &mask, &s->orig_mask);
	/* a reader of our stderr that goes away (| head, a closed ssh) must not
	 * kill the recording: the status line's write fails instead */
	{
		struct sigaction ign = { .sa_handler = SIG_IGN };

		sigaction(SIGPIPE, &ign, &s->orig_pipe);
	}
	/* inherited as ignored, SIGCHLD would never tell us COMMAND exited */
	signal(SIGCHLD, SIG_DFL);
	/*
	 * Large allocations (the kernel's BTF, a library's symbol table) get
	 * mappings of their own, given back when freed.  glibc would raise this
	 * threshold after the first such free and then keep those pages in the
	 * heap for the whole recording (docs/performance.md, section 4).
	 */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
	if (!privs_ok(missing, sizeof(missing))) {
		ft_err("%s: missing privileges: %s; run with sudo (or grant them with setcap)",
		       o->cmd_name, missing);
		return -1;
	}
	if (stat("/sys/kernel/btf/vmlinux", &st)) {
		ft_err("%s: this kernel has no BTF (/sys/kernel/btf/vmlinux); "
		       "fabtrace needs a kernel built with CONFIG_DEBUG_INFO_BTF=y", o->cmd_name);
		return -1;
	}
	if (resolve_filters(s))
		return -1;
	/*
	 * What needs the kernel's BTF parsed by us, before any ring buffer is
	 * mapped: parsing it is the recorder's largest passing allocation
	 * (about 12 MB), and on top of the rings it set the peak RSS.
	 */
	btf_drop_reasons(keep_reason, s);
	if (o->coverage == NP_COV_AUTO)
		recursion_misses__counted(NULL, 0);
	po.bin_ns = o->bin_ns;
	po.sample_ns = o->sample_ns;
	po.netns = s->netns_filter;
	po.ifaces = (const uint32_t (*)[2])s->filter;
	po.n_ifaces = s->n_filter;
	po.iface_ns = (const char *const *)s->filter_ns;
	po.ringbuf_bytes = o->ringbuf_bytes;
	po.wake_bytes = session_opts__wake_bytes(o);
	po.verbose = o->verbose;
	po.skip = o->no_probes;
	po.coverage = o->coverage;
	po.batch_bins = o->live ? 1 : 0; /* 0: full batches */
	po.profile = o->profile;
	po.deferred = o->post_probes;
	/* records come from here on: none may be older than the capture */
	s->st.start_ns = mono_ns();
	if (netprobe__open(&s->np, &po, sess_on_record, s, err, sizeof(err))) {
		ft_err("%s: %s", o->cmd_name, err);
		return -1;
	}
	if (!o->no_phases && open_phases(s, &po))
		return -1;
	if (sess_open_sampler(s))
		return -1;
	s->ncpus = libbpf_num_possible_cpus();
	s->st.traced_ns = mono_ns();
	warn_coverage(s);
	return 0;
}

int session__start(struct session *s, int argc, char **argv)
{
	const struct session_opts *o = s->o;
	struct ft_file_header hdr;
	sigset_t mask;
	uid_t uid;
	gid_t gid;

	fill_header(s, &hdr, argc, argv);
	s->hdr = hdr;
	str_copy(s->hostname, hdr.hostname, sizeof(s->hostname));
	sess_stop_signals(&mask); /* blocked since session__open() */
	if (o->out_path) {
		char err[CAPTURE_ERR_MAX];

		ft_sudo_owner(&uid, &gid); /* the capture belongs to whoever ran sudo */
		if (capture__create(&s->w, o->out_path, &hdr, uid, gid, err, sizeof(err))) {
			ft_err("%s: %s", o->cmd_name, err);
			s->w = NULL;
			return -1;
		}
	}
	s->sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	s->ep = epoll_create1(EPOLL_CLOEXEC);
	if (s->sfd < 0 || s->ep < 0 || (o->cmd && spawn_command(s))) {
		ft_err("%s: %s", o->cmd_name, strerror(errno));
		s->st.stop_reason = FT_STOP_ERROR;
		return -1;
	}
	/* record -p without COMMAND ends once they have all exited (perf record -p);
	 * a live view (top) goes on until it is quit */
	if (!o->cmd && !o->live)
		pidwatch__open(&s->pw, o->pids, o->npids);
	/* the command's phases are followed from its first instruction */
	if (s->pp && o->cmd && phaseprobe__add_pid(s->pp, s->child))
		ft_warn("%s: cannot follow the command's process; its phases are not traced", o->cmd_name);
	if (write_preamble(s) || sess_start_sampler(s)) {
		s->write_failed = true;
		s->st.stop_reason = FT_STOP_ERROR;
		return -EIO;
	}
	return 0;
}

