// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A session's options (session.h): defaults, parsing of the options shared
 * by `record` and `top` (pids, counters), and their checks.
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
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include <bpf/libbpf.h>

#include "probes/btf_names.h"
#include "probes/netns.h"
#include "probes/netprobe.h"
#include "probes/probe_names.h"
#include "probes/phaseprobe.h"
#include "probes/privs.h"
#include "userspace/capture/capture.h"
#include "userspace/record/hostclock.h"
#include "userspace/record/session.h"
#include "userspace/record/session_priv.h"
#include "lib/opt.h"
#include "lib/util.h"

/* ---- options ---- */

int session_opts__init(struct session_opts *o, const char *cmd_name)
{
	memset(o, 0, sizeof(*o));
	o->cmd_name = cmd_name;
	o->bin_ns = 100000;
	o->sample_ns = 10000000;
	o->ringbuf_bytes = 4u << 20;
	o->nice = SESSION_NICE;
	sampler_opts__init(&o->so);
	o->specs = calloc(SESSION_MAX_PHASE_SPECS, sizeof(*o->specs));
	return o->specs ? 0 : -ENOMEM;
}

void session_opts__free(struct session_opts *o)
{
	free(o->specs);
	o->specs = NULL;
}

/* "-p 12,34": append to o->pids. */
static int parse_pids(struct session_opts *o, const char *arg)
{
	const char *s = arg;

	do {
		char *end;
		long v;

		errno = 0;
		v = strtol(s, &end, 10);
		if (errno || end == s || v <= 0 || v > INT32_MAX || (*end && *end != ',') ||
		    (*end == ',' && !end[1])) {
			ft_err_bad_value(o->cmd_name, "--pid", arg, "a PID list",
					 "a PID or a comma-separated list, e.g. 1234,1235");
			return -1;
		}
		if (o->npids == SESSION_MAX_PIDS) {
			ft_err("%s: too many -p PIDs (max %d); trace the parent instead", o->cmd_name,
			       SESSION_MAX_PIDS);
			return -1;
		}
		o->pids[o->npids++] = (pid_t)v;
		s = *end ? end + 1 : end;
	} while (*s);
	return 0;
}

static int parse_counter_opt(struct session_opts *o, int c, const char *arg)
{
	const char *cmd = o->cmd_name;

	switch (c) {
	case SOPT_CTR_PERIOD:
		if (parse_duration(arg, 0, &o->so.period_ns) || o->so.period_ns < 100000 ||
		    o->so.period_ns > 60000000000ull) {
			ft_err_bad_value(cmd, "--counter-period", arg, "a period from 100us to 60s",
					 "one with a unit, e.g. 10ms");
			return -1;
		}
		o->period_set = true;
		return 1;
	case SOPT_RDMA_DEVS:
	case SOPT_RDMA_CTRS:
	case SOPT_NIC_STATS:
		if (!arg[0]) { /* an empty list would sample nothing without saying so */
			ft_err("%s: --%s needs a list; leave it out for the default, or use --no-%s", cmd,
			       c == SOPT_NIC_STATS ? "nic-stats" : c == SOPT_RDMA_DEVS ? "rdma-devices" : "rdma-counters",
			       c == SOPT_NIC_STATS ? "nic-stats" : "rdma");
			return -1;
		}
		if (c == SOPT_RDMA_DEVS)
			o->so.devices = arg;
		else if (c == SOPT_RDMA_CTRS)
			o->so.rdma_filter = arg;
		else
			o->so.nic_filter = arg;
		return 1;
	case SOPT_LIFESPAN: {
		long ms;

		if (parse_long(arg, 1, 10000, &ms)) {
			ft_err_bad_value(cmd, "--rdma-lifespan", arg, "a lifespan", "milliseconds from 1 to 10000, e.g. 1");
			return -1;
		}
		o->so.lifespan_ms = (uint32_t)ms;
		return 1;
	}
	case SOPT_NO_RDMA:
		o->so.no_rdma = true;
		return 1;
	case SOPT_NO_NIC:
		o->so.no_nic = true;
		return 1;
	case SOPT_BUDGET:
		if (parse_pct(arg, 100, &o->so.budget) || o->so.budget <= 0) {
			ft_err_bad_value(cmd, "--sampler-budget", arg, "a percentage of one core", "e.g. 5 (> 0)");
			return -1;
		}
		return 1;
	case SOPT_SYSFS: {
		struct stat st;

		if (stat(arg, &st) || !S_ISDIR(st.st_mode)) {
			ft_err("%s: --sysfs-root '%s' is not a directory", cmd, arg);
			return -1;
		}
		o->so.sysfs_root = arg;
		return 1;
	}
	default:
		return 0;
	}
}

/* --post-probes LIST: network probe families and names, and `owners` (the socket owners). */
static int parse_post_probes(struct session_opts *o, const char *arg)
{
	char buf[256], *save = NULL, *t;

	o->post_probes = 0;
	o->post_owners = false;
	if (strlen(arg) >= sizeof(buf))
		return -1;
	strcpy(buf, arg);
	for (t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		uint64_t m;

		if (!strcmp(t, "owners"))
			o->post_owners = true;
		else if (netprobe__parse_families(t, &m))
			return -1;
		else
			o->post_probes |= m;
	}
	return o->post_probes || o->post_owners ? 0 : -1;
}

int sess_split_iface(const char *cmd, const char *spec, char *ns, size_t nslen, char *ifname, size_t iflen)
{
	if (!parse_iface_spec(spec, ns, nslen, ifname, iflen))
		return 0;
	ft_err_bad_value(cmd, "--iface", spec, "an interface", "IFACE or NETNS/IFACE, e.g. eth0 or lab1h2/eth0");
	return -1;
}

int session_opts__parse(struct session_opts *o, int c, const char *arg)
{
	const char *cmd = o->cmd_name;
	uint64_t v;

	switch (c) {
	case 'i':
		if (!arg[0]) {
			ft_err("%s: -i needs an interface: IFACE or NETNS/IFACE, e.g. eth0 or lab1h2/eth0", cmd);
			return -1;
		}
		{ /* "h2/", "/eth0", "a/b/c": a usage error now, not a failure at the start */
			char ns[64], ifn[32];

			if (sess_split_iface(cmd, arg, ns, sizeof(ns), ifn, sizeof(ifn)))
				return -1;
		}
		if (o->n_iface_args == SESSION_MAX_IFACE_ARGS) {
			ft_err("%s: too many -i (max %d); trace all with no -i", cmd, SESSION_MAX_IFACE_ARGS);
			return -1;
		}
		o->iface_args[o->n_iface_args++] = (char *)arg;
		return 1;
	case SOPT_NETNS:
		if (!arg[0]) {
			ft_err("%s: --netns needs a name from 'ip netns'", cmd);
			return -1;
		}
		if (o->netns_arg && strcmp(o->netns_arg, arg) != 0) { /* the first was dropped without a word */
			ft_err("%s: --netns given twice (%s, %s); it takes one namespace: give several with -i NETNS/IFACE",
			       cmd, o->netns_arg, arg);
			return -1;
		}
		o->netns_arg = arg;
		return 1;
	case 'd':
		if (parse_duration(arg, 1000000000ull, &o->duration_ns)) {
			ft_err_bad_value(cmd, "--duration", arg, "a duration", "e.g. 10s, 500ms or 2m");
			return -1;
		}
		return 1;
	case SOPT_BIN:
		if (parse_duration(arg, 0, &o->bin_ns) || o->bin_ns < 1000 || o->bin_ns > 1000000000ull) {
			ft_err_bad_value(cmd, "--bin", arg, "a bin width from 1us to 1s", "one with a unit, e.g. 20us");
			return -1;
		}
		return 1;
	case SOPT_RTT:
		if (parse_duration(arg, 0, &o->sample_ns)) {
			ft_err_bad_value(cmd, "--rtt-interval", arg, "an interval", "one with a unit, e.g. 10ms");
			return -1;
		}
		return 1;
	case SOPT_RINGBUF:
		if (parse_size(arg, &v) || v < 4096ull * 4 || v > (1ull << 30) || (v & (v - 1))) {
			ft_err_bad_value(cmd, "--ringbuf", arg, "a power of two from 16k to 1G", "e.g. 4M");
			return -1;
		}
		o->ringbuf_bytes = v;
		return 1;
	case SOPT_WAKEUP:
		if (parse_size(arg, &v) || v > (1ull << 30)) {
			ft_err_bad_value(cmd, "--wakeup", arg, "a size up to 1G",
					 "one below --ringbuf, e.g. 256k (0: every record)");
			return -1;
		}
		o->wake_bytes = v;
		o->wake_set = true;
		return 1;
	case 'v':
		o->verbose = true;
		return 1;
	case 'p':
		return parse_pids(o, arg) ? -1 : 1;
	case SOPT_PHASE: {
		char why[160];

		if (o->nspecs == SESSION_MAX_PHASE_SPECS) {
			ft_err("%s: too many --phase (max %d)", cmd, SESSION_MAX_PHASE_SPECS);
			return -1;
		}
		if (phase_spec__parse(arg, &o->specs[o->nspecs], why, sizeof(why))) {
			ft_err("%s: --phase '%s': %s", cmd, arg, why);
			return -1;
		}
		o->nspecs++;
		return 1;
	}
	case SOPT_NO_PHASES:
		o->no_phases = true;
		return 1;
	case SOPT_NO_PROBES:
		if (netprobe__parse_families(arg, &o->no_probes)) {
			ft_err_bad_value(cmd, "--no-probes", arg, "a list of probe families",
					 "a comma-separated list of %s", netprobe__families_help());
			return -1;
		}
		return 1;
	case SOPT_POST_PROBES:
		if (parse_post_probes(o, arg)) {
			ft_err_bad_value(cmd, "--post-probes", arg, "a list of probe families",
					 "a comma-separated list of %s, or owners (e.g. qdisc,rtt,owners)",
					 netprobe__families_help());
			return -1;
		}
		return 1;
	case SOPT_PROFILE:
		o->profile = netprobe__profile_parse(arg);
		if (o->profile < 0) {
			ft_err_bad_value(cmd, "--profile", arg, "a probe profile",
					 "full (every probe, the default) or always (the cheap set to leave on)");
			return -1;
		}
		return 1;
	case SOPT_COVERAGE:
		o->coverage = netprobe__coverage_parse(arg);
		if (o->coverage < 0) {
			ft_err_bad_value(cmd, "--coverage", arg, "a coverage mode", "auto, kernel, pid1 or counters");
			return -1;
		}
		return 1;
	case SOPT_NICE: {
		long nv;

		if (parse_long(arg, -20, 19, &nv)) {
			ft_err_bad_value(cmd, "--nice", arg, "a nice value", "one from -20 to 19");
			return -1;
		}
		o->nice = (int)nv;
		return 1;
	}
	case SOPT_FORMAT_VERSION:
		if (capture__parse_version(arg, &o->format_version)) {
			ft_err_bad_value(cmd, "--format-version", arg, "a capture format version",
					 "1 (for a fabtrace older than 2026-11-28) or %u", (unsigned)FT_FORMAT_VERSION);
			return -1;
		}
		o->format_set = true;
		return 1;
	default:
		return parse_counter_opt(o, c, arg);
	}
}

size_t session_opts__wake_bytes(const struct session_opts *o)
{
	return o->wake_set ? o->wake_bytes : o->ringbuf_bytes / 8;
}

/* --post-probes names only probes the profile leaves out, and none of --no-probes. */
static int check_post_probes(const struct session_opts *o)
{
	if (o->post_owners && netprobe__profile_owners(o->profile)) {
		ft_err("%s: --post-probes: the %s profile attaches the socket owners all along; name what it leaves "
		       "out (e.g. --profile always --post-probes qdisc,rtt,owners)", o->cmd_name,
		       netprobe__profile_name(o->profile));
		return -1;
	}
	if (o->post_owners && o->no_phases) {
		ft_err("%s: --post-probes owners needs the phase probes; drop --no-phases", o->cmd_name);
		return -1;
	}
	uint64_t on = o->post_probes & ~netprobe__profile_skip(o->profile), both = o->post_probes & o->no_probes;

	for (int i = 0; i < FT_PROBE_MAX; i++) {
		if (on & (1ull << i)) {
			ft_err("%s: --post-probes: the %s profile attaches %s all along; name what it leaves out "
			       "(e.g. --profile always --post-probes qdisc,rtt)", o->cmd_name,
			       netprobe__profile_name(o->profile), probe__name((enum ft_probe_id)i));
			return -1;
		}
		if (both & (1ull << i)) {
			ft_err("%s: --post-probes and --no-probes both name %s; keep one", o->cmd_name,
			       probe__name((enum ft_probe_id)i));
			return -1;
		}
	}
	return 0;
}

int session_opts__check(const struct session_opts *o)
{
	if (o->wake_set && o->wake_bytes >= o->ringbuf_bytes) {
		ft_err("%s: --wakeup %zu is not below --ringbuf %zu; use a smaller --wakeup (0: every record)",
		       o->cmd_name, o->wake_bytes, o->ringbuf_bytes);
		return -1;
	}
	if ((o->no_probes & ((1ull << FT_PROBE_MAX) - 1)) == (1ull << FT_PROBE_MAX) - 1) {
		ft_err("%s: --no-probes leaves out every network probe; keep at least one", o->cmd_name);
		return -1;
	}
	if (o->no_phases && (o->npids || o->nspecs)) {
		ft_err("%s: %s needs the phase probes; drop --no-phases", o->cmd_name,
		       o->npids ? "-p" : "--phase");
		return -1;
	}
	return check_post_probes(o);
}

