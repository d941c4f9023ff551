// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The counter sampler (rdma/sampler.h): groups of counters read on the
 * recorder's timer.  An RDMA port gives up to two groups (counters/ and
 * hw_counters/, files kept open and re-read at offset 0, which makes sysfs
 * regenerate the value); a traced netdev gives one ETHTOOL group, and one
 * QDISC group when it has a root qdisc and a netlink socket (one dump of
 * each namespace's qdiscs a period serves all its netdevs).  Groups
 * larger than SAMPLER_MAX_VALUES are split so a sample record fits its
 * 16-bit size.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "counters.h"
#include "ports.h"
#include "sampler_priv.h"
#include "sysattr.h"

#define DEFAULT_PERIOD_NS  10000000ull     /* 10 ms */
#define MAX_PERIOD_NS      1000000000ull   /* back-off stops at 1 s */
#define BUDGET_WINDOW_NS   1000000000ull   /* cost is judged over the last second, */
#define BUDGET_MIN_POINTS  5               /* ... or this many periods, once it holds that many samples */
#define MAX_KEPT_FDS       1024            /* counter files kept open; more are opened per read */

void sampler_opts__init(struct sampler_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->period_ns = DEFAULT_PERIOD_NS;
	o->budget = 0.05;
}

/* "10 ms", "1 s", "250 us" (SEP between number and unit). */
static const char *fmt_period(uint64_t ns, const char *sep, char *buf, size_t len)
{
	if (ns && ns % 1000000000ull == 0)
		snprintf(buf, len, "%llu%ss", (unsigned long long)(ns / 1000000000ull), sep);
	else if (ns && ns % 1000000ull == 0)
		snprintf(buf, len, "%llu%sms", (unsigned long long)(ns / 1000000ull), sep);
	else if (ns && ns % 1000ull == 0)
		snprintf(buf, len, "%llu%sus", (unsigned long long)(ns / 1000ull), sep);
	else
		snprintf(buf, len, "%llu%sns", (unsigned long long)ns, sep);
	return buf;
}

/* A comma list of globs with at least one glob, none too long, brackets closed. */
static int check_filter(const char *what, const char *list, char *err, size_t errlen)
{
	const char *p = list;
	int globs = 0;

	if (!list)
		return 0;
	while (*p) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		int open = 0;

		while (len && *p == ' ') {
			p++;
			len--;
		}
		while (len && p[len - 1] == ' ')
			len--;
		if (len >= 256) {
			snprintf(err, errlen, "%s filter '%s': a glob of %zu characters is too long", what, list, len);
			return -EINVAL;
		}
		for (size_t i = 0; i < len; i++) {
			if (p[i] == '[')
				open++;
			else if (p[i] == ']' && open)
				open--;
		}
		if (open) {
			snprintf(err, errlen, "%s filter '%s': unclosed '['", what, list);
			return -EINVAL;
		}
		if (len)
			globs++;
		if (!e)
			break;
		p = e + 1;
	}
	if (!globs) {
		snprintf(err, errlen, "%s filter '%s': no glob in it; give e.g. '*pause*,*discard*' or 'all'",
			 what, list);
		return -EINVAL;
	}
	return 0;
}

static bool is_real_sys(const char *root)
{
	char real[PATH_MAX];

	return realpath(root, real) && !strcmp(real, "/sys");
}

/* One group (or several, when large) for DIR = ports/N/counters or hw_counters. */
static int add_rdma_groups(struct sampler *s, size_t port, uint32_t kind, const char *sub, const char *filter)
{
	struct port_info *p = &s->ports[port];
	char dir[PATH_MAX + 16], label[48];
	char **files = NULL, **sel;
	size_t nfiles = 0, nsel = 0;
	int rc;

	snprintf(dir, sizeof(dir), "%s/%s", p->dir, sub);
	if (sysattr__list(dir, true, NULL, &files, &nfiles) != 0)
		return 0; /* no such directory: the port flags say so */
	sel = calloc(nfiles ? nfiles : 1, sizeof(*sel));
	if (!sel) {
		sysattr__free_list(files, nfiles);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nfiles; i++) {
		/* hw_counters/lifespan is the cache setting, not a counter */
		if (kind == FT_CTR_PORT_HW && !strcmp(files[i], "lifespan"))
			continue;
		if (filter && !sampler_match_all(filter) && !ctr__glob_match(filter, files[i]))
			continue;
		sel[nsel++] = files[i];
	}
	snprintf(label, sizeof(label), "%s/%u", p->rec.dev, p->rec.port_num);
	rc = 0;
	for (size_t first = 0, k = 0; first < nsel; first += SAMPLER_MAX_VALUES, k++) {
		size_t n;
		struct group *g = sampler_new_chunk(s, kind, label, k, nsel, &n);

		if (!g) {
			rc = -ENOMEM;
			break;
		}
		g->port = port;
		g->rec.port_id = p->rec.port_id;
		g->rec.netns = p->rec.netdev_netns;
		g->rec.ifindex = p->rec.netdev_ifindex;
		sysattr__copy(g->dir, dir, sizeof(g->dir));
		for (size_t i = 0; i < n; i++) {
			struct ctr *c = &g->ctrs[i];
			char path[PATH_MAX];

			sysattr__copy(c->name, sel[first + i], sizeof(c->name));
			ctr__classify(kind, c->name, &c->cls, &c->flags);
			/*
			 * Kept open (a pread at 0 makes sysfs produce a fresh value),
			 * up to a share of the descriptor limit that leaves the
			 * recorder room; the rest are opened for each read.
			 */
			if (s->kept_fds < s->max_kept_fds &&
			    !sysattr__path(path, sizeof(path), dir, sel[first + i])) {
				c->fd = open(path, O_RDONLY | O_CLOEXEC);
				if (c->fd >= 0)
					s->kept_fds++;
			}
		}
	}
	free(sel);
	sysattr__free_list(files, nfiles);
	return rc;
}

static void build_status(struct sampler *s)
{
	char period[32], *p = s->status;
	size_t left = sizeof(s->status), ncounters = 0;
	int w;

	fmt_period(s->period_ns, " ", period, sizeof(period));
	if (s->no_rdma) {
		snprintf(s->status, sizeof(s->status), "RDMA: sampling off (disabled)");
		return;
	}
	if (!s->ndevs) {
		snprintf(s->status, sizeof(s->status), "RDMA: no devices under %.900s/class/infiniband; RDMA sampling off",
			 s->root);
		return;
	}
	if (!s->nports) {
		snprintf(s->status, sizeof(s->status), "RDMA: %zu device%s but no ports under %.900s/class/infiniband; "
			 "RDMA sampling off", s->ndevs, s->ndevs == 1 ? "" : "s", s->root);
		return;
	}
	for (size_t i = 0; i < s->ngroups; i++)
		if (s->groups[i].rec.kind != FT_CTR_ETHTOOL)
			ncounters += s->groups[i].n;
	w = snprintf(p, left, "RDMA: %zu port%s (", s->nports, s->nports == 1 ? "" : "s");
	p += w;
	left -= (size_t)w;
	for (size_t i = 0; i < s->nports && left > 1; i++) {
		const struct ft_rdma_port *r = &s->ports[i].rec;
		char rate[24] = "";

		if (i == 8) {
			w = snprintf(p, left, ", +%zu more", s->nports - i);
			if (w < 0 || (size_t)w >= left)
				break;
			p += w;
			left -= (size_t)w;
			break;
		}
		if (r->rate_mbps % 1000 == 0)
			snprintf(rate, sizeof(rate), " %u Gb/s", r->rate_mbps / 1000);
		else
			snprintf(rate, sizeof(rate), " %u.%u Gb/s", r->rate_mbps / 1000, r->rate_mbps % 1000 / 100);
		w = snprintf(p, left, "%s%s/%u %s%s%s%s%s", i ? ", " : "", r->dev, r->port_num,
			     r->link_layer == FT_LL_ETHERNET ? "RoCE" : r->link_layer == FT_LL_IB ? "IB" : "?",
			     r->netdev[0] ? " " : "", r->netdev, r->rate_mbps ? rate : "",
			     r->state && r->state != 4 ? (r->state == 1 ? " DOWN" : " not active") : "");
		if (w < 0 || (size_t)w >= left)
			break;
		p += w;
		left -= (size_t)w;
	}
	if (left > 1)
		snprintf(p, left, "), %zu counter%s, %s period", ncounters, ncounters == 1 ? "" : "s", period);
}

int sampler__open(const struct sampler_opts *o, struct sampler **out, char *err, size_t errlen)
{
	struct port_scan_opts po;
	struct sampler *s;
	struct rlimit lim;
	const char *root;
	int rc;

	*out = NULL;
	if (errlen)
		err[0] = '\0';
	if (isnan(o->budget) || o->budget <= 0) {
		snprintf(err, errlen, "sampler budget %g: must be a share of one core above 0 (e.g. 0.05)", o->budget);
		return -EINVAL;
	}
	if (o->lifespan_ms > 10000) {
		snprintf(err, errlen, "hw_counters lifespan %u ms: the kernel takes 0..10000 ms", o->lifespan_ms);
		return -EINVAL;
	}
	rc = check_filter("RDMA counter", o->rdma_filter, err, errlen);
	if (!rc)
		rc = check_filter("NIC counter", o->nic_filter, err, errlen);
	if (rc)
		return rc;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	root = o->sysfs_root;
	if (!root || !root[0])
		root = getenv("FABTRACE_SYSFS_ROOT");
	if (!root || !root[0])
		root = "/sys";
	sysattr__copy(s->root, root, sizeof(s->root));
	s->period_ns = o->period_ns ? o->period_ns : DEFAULT_PERIOD_NS;
	s->budget = o->budget;
	s->no_rdma = o->no_rdma;
	s->max_kept_fds = MAX_KEPT_FDS;
	if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY && lim.rlim_cur / 2 < MAX_KEPT_FDS)
		s->max_kept_fds = lim.rlim_cur / 2;

	if (!o->no_rdma) {
		memset(&po, 0, sizeof(po));
		po.root = s->root;
		po.devices = o->devices;
		po.use_verbs = is_real_sys(s->root);
		po.resolve_netdev = o->resolve_netdev;
		po.resolve_ctx = o->resolve_ctx;
		rc = ports__scan(&po, &s->ports, &s->nports, &s->ndevs, err, errlen);
		if (rc)
			goto fail;
	}
	for (size_t i = 0; i < s->nports; i++) {
		rc = add_rdma_groups(s, i, FT_CTR_PORT_COUNTERS, "counters", o->rdma_filter);
		if (!rc)
			rc = add_rdma_groups(s, i, FT_CTR_PORT_HW, "hw_counters", o->rdma_filter);
		if (rc)
			goto fail_nomem;
	}
	/* lifespan only matters where hw_counters are read */
	if (o->lifespan_ms) {
		for (size_t g = 0; g < s->ngroups; g++) {
			struct port_info *p;

			if (s->groups[g].rec.kind != FT_CTR_PORT_HW)
				continue;
			p = &s->ports[s->groups[g].port];
			if (p->lifespan_changed)
				continue; /* a split hw_counters group: set once */
			rc = ports__set_lifespan(p, o->lifespan_ms, err, errlen);
			if (rc)
				goto fail;
		}
	}
	if (!o->no_nic && o->netdevs && o->nnetdevs) {
		s->eth = calloc(o->nnetdevs, sizeof(*s->eth));
		s->qd = calloc(o->nnetdevs, sizeof(*s->qd));
		if (!s->eth || !s->qd)
			goto fail_nomem;
		for (size_t i = 0; i < o->nnetdevs; i++) {
			rc = sampler_add_eth_groups(s, &o->netdevs[i], o->nic_filter);
			if (!rc)
				rc = sampler_add_qdisc_group(s, &o->netdevs[i]);
			if (rc)
				goto fail_nomem;
		}
	}
	build_status(s);
	*out = s;
	return 0;

fail_nomem:
	rc = -ENOMEM;
	snprintf(err, errlen, "counter sampler: out of memory");
fail:
	sampler__close(s, NULL, NULL);
	return rc;
}

static int emit_event(sampler_emit_fn emit, void *ctx, uint64_t ts, uint32_t kind, uint32_t group,
		      uint64_t value, const char *msg)
{
	struct ft_sampler_event ev;

	if (!emit)
		return 0;
	memset(&ev, 0, sizeof(ev));
	ev.hdr.type = FT_REC_SAMPLER;
	ev.hdr.size = sizeof(ev);
	ev.ts_ns = ts;
	ev.value = value;
	ev.kind = kind;
	ev.group = group;
	sysattr__copy(ev.msg, msg, sizeof(ev.msg));
	return emit(ctx, &ev.hdr);
}

/* Id of the first hw_counters group of port P (for lifespan events), ~0 if none. */
static uint32_t hw_group_of(const struct sampler *s, size_t port)
{
	for (size_t g = 0; g < s->ngroups; g++)
		if (s->groups[g].rec.kind == FT_CTR_PORT_HW && s->groups[g].port == port)
			return s->groups[g].rec.group;
	return UINT32_MAX;
}

int sampler__describe(struct sampler *s, sampler_emit_fn emit, void *ctx)
{
	struct ft_ctr_name nm;
	int rc;

	for (size_t i = 0; i < s->nports; i++) {
		rc = emit(ctx, &s->ports[i].rec.hdr);
		if (rc)
			return rc;
	}
	for (size_t g = 0; g < s->ngroups; g++) {
		const struct group *gr = &s->groups[g];

		rc = emit(ctx, &gr->rec.hdr);
		if (rc)
			return rc;
		for (size_t i = 0; i < gr->n; i++) {
			memset(&nm, 0, sizeof(nm));
			nm.hdr.type = FT_REC_CTR_NAME;
			nm.hdr.size = sizeof(nm);
			nm.group = gr->rec.group;
			nm.index = (uint32_t)i;
			nm.cls = gr->ctrs[i].cls;
			nm.flags = gr->ctrs[i].flags;
			sysattr__copy(nm.name, gr->ctrs[i].name, sizeof(nm.name));
			rc = emit(ctx, &nm.hdr);
			if (rc)
				return rc;
		}
	}
	for (size_t i = 0; i < s->nports; i++) {
		const struct port_info *p = &s->ports[i];
		char msg[64];

		if (!(p->rec.flags & FT_PORT_LIFESPAN_SET))
			continue;
		snprintf(msg, sizeof(msg), "%.24s/%u: hw_counters/lifespan %u -> %u ms", p->rec.dev,
			 p->rec.port_num, p->rec.lifespan_ms, p->rec.lifespan_set_ms);
		rc = emit_event(emit, ctx, p->lifespan_set_ns, FT_SAMPLER_LIFESPAN_SET, hw_group_of(s, i),
				p->rec.lifespan_set_ms, msg);
		if (rc)
			return rc;
	}
	return 0;
}

/* Read the files of an RDMA group into its sample: 0, or the first errno seen. */
static int read_rdma(struct group *g)
{
	uint64_t *vals = (uint64_t *)(g->smp + 1);
	int first_err = 0;

	for (size_t i = 0; i < g->n; i++) {
		struct ctr *c = &g->ctrs[i];
		char buf[64];
		ssize_t n;
		int fd = c->fd, rc;

		if (fd < 0) {
			char path[PATH_MAX];

			if (sysattr__path(path, sizeof(path), g->dir, c->name))
				errno = ENAMETOOLONG;
			else
				fd = open(path, O_RDONLY | O_CLOEXEC);
		}
		n = fd >= 0 ? pread(fd, buf, sizeof(buf) - 1, 0) : -1;
		rc = n < 0 ? errno : 0;
		if (c->fd < 0 && fd >= 0)
			close(fd);
		vals[i] = FT_CTR_NA;
		if (rc) {
			if (!first_err)
				first_err = rc;
			continue;
		}
		/* "N/A (no PMA)" is an answer, not an error; junk is one */
		rc = ctr__parse(buf, (size_t)n, &vals[i]);
		if (rc == -EINVAL && !first_err)
			first_err = EINVAL;
		if (rc)
			vals[i] = FT_CTR_NA;
	}
	return first_err;
}

/* Sampling share of one core over the window; back off when over budget. */
static int check_budget(struct sampler *s, uint64_t now_ns, uint64_t cost, sampler_emit_fn emit, void *ctx)
{
	uint64_t sum = 0, start, span, old, win_ns;
	double share;
	char msg[64], a[16], b[16];
	size_t idx;

	if (s->win_n == WINDOW_CAP) {
		s->win_first = (s->win_first + 1) % WINDOW_CAP;
		s->win_n--;
	}
	idx = (s->win_first + s->win_n) % WINDOW_CAP;
	s->win[idx].ts = now_ns;
	s->win[idx].cost = cost;
	s->win_n++;
	win_ns = BUDGET_MIN_POINTS * s->period_ns > BUDGET_WINDOW_NS ? BUDGET_MIN_POINTS * s->period_ns
								     : BUDGET_WINDOW_NS;
	while (s->win_n > 1 && s->win[s->win_first].ts + win_ns < now_ns) {
		s->win_first = (s->win_first + 1) % WINDOW_CAP;
		s->win_n--;
	}
	if (s->win_n < BUDGET_MIN_POINTS || s->period_ns >= MAX_PERIOD_NS)
		return 0;
	for (size_t k = 0; k < s->win_n; k++)
		sum += s->win[(s->win_first + k) % WINDOW_CAP].cost;
	start = s->win[s->win_first].ts;
	span = now_ns + cost > start ? now_ns + cost - start : 0;
	if (!span)
		return 0;
	share = (double)sum / (double)span;
	if (share <= s->budget)
		return 0;
	old = s->period_ns;
	s->period_ns = old * 2 < MAX_PERIOD_NS ? old * 2 : MAX_PERIOD_NS;
	s->win_n = 0; /* judge the new period on its own samples */
	build_status(s);
	snprintf(msg, sizeof(msg), "%.1f%% of a core > budget %.1f%%: period %s -> %s", share * 100,
		 s->budget * 100, fmt_period(old, "", a, sizeof(a)), fmt_period(s->period_ns, "", b, sizeof(b)));
	return emit_event(emit, ctx, now_ns, FT_SAMPLER_BACKOFF, UINT32_MAX, s->period_ns, msg);
}

/* CPU time of this thread: preemption on a busy node is not the sampler's cost. */
static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int sampler__sample(struct sampler *s, uint64_t now_ns, sampler_emit_fn emit, void *ctx)
{
	uint64_t call0, cpu0;

	if (!s->ngroups)
		return 0;
	call0 = sysattr__now_ns();
	cpu0 = thread_cpu_ns();
	for (size_t gi = 0; gi < s->ngroups; gi++) {
		struct group *g = &s->groups[gi];
		uint64_t t0, t1, dt;
		int err, rc;

		t0 = sysattr__now_ns();
		err = g->rec.kind == FT_CTR_ETHTOOL ? sampler_read_eth(s, gi) : g->rec.kind == FT_CTR_QDISC ? sampler_read_qdisc(s, gi)
										       : read_rdma(g);
		t1 = sysattr__now_ns();
		dt = t1 - t0;
		/* the caller's timeline, shifted by how far into this tick the read began */
		g->smp->ts_ns = now_ns + (t0 - call0);
		g->smp->read_ns = dt > UINT32_MAX ? UINT32_MAX : (uint32_t)dt;
		s->reads++;
		s->total_ns += dt;
		if (dt > s->max_ns)
			s->max_ns = dt;
		rc = emit(ctx, &g->smp->hdr);
		if (rc)
			return rc;
		if (err && !g->failing) {
			char msg[64];

			g->failing = true;
			snprintf(msg, sizeof(msg), "%.40s: read failed: %s", g->rec.label, strerror(err));
			rc = emit_event(emit, ctx, g->smp->ts_ns, FT_SAMPLER_READ_ERROR, g->rec.group, (uint64_t)err,
					msg);
			if (rc)
				return rc;
		} else if (!err) {
			g->failing = false;
		}
	}
	return check_budget(s, now_ns, thread_cpu_ns() - cpu0, emit, ctx);
}

uint64_t sampler__period_ns(const struct sampler *s)
{
	return s->period_ns;
}

size_t sampler__nports(const struct sampler *s)
{
	return s->nports;
}

size_t sampler__ngroups(const struct sampler *s)
{
	return s->ngroups;
}

const char *sampler__rdma_status(const struct sampler *s)
{
	return s->status;
}

void sampler__cost(const struct sampler *s, uint64_t *reads, uint64_t *total_ns, uint64_t *max_ns)
{
	if (reads)
		*reads = s->reads;
	if (total_ns)
		*total_ns = s->total_ns;
	if (max_ns)
		*max_ns = s->max_ns;
}

void sampler__close(struct sampler *s, sampler_emit_fn emit, void *ctx)
{
	char msg[64];

	if (!s)
		return;
	for (size_t i = 0; i < s->nports; i++) {
		struct port_info *p = &s->ports[i];
		uint32_t group = hw_group_of(s, i);
		int rc;

		if (!p->lifespan_changed)
			continue;
		rc = ports__restore_lifespan(p);
		if (rc) {
			snprintf(msg, sizeof(msg), "%.24s/%u: lifespan not restored: %s", p->rec.dev, p->rec.port_num,
				 strerror(-rc));
			emit_event(emit, ctx, sysattr__now_ns(), FT_SAMPLER_READ_ERROR, group, (uint64_t)-rc, msg);
		} else {
			snprintf(msg, sizeof(msg), "%.24s/%u: hw_counters/lifespan back to %u ms", p->rec.dev,
				 p->rec.port_num, p->rec.lifespan_ms);
			emit_event(emit, ctx, sysattr__now_ns(), FT_SAMPLER_LIFESPAN_RESTORED, group, p->rec.lifespan_ms,
				   msg);
		}
	}
	if (s->ngroups) {
		snprintf(msg, sizeof(msg), "%llu reads, max %llu us", (unsigned long long)s->reads,
			 (unsigned long long)(s->max_ns / 1000));
		emit_event(emit, ctx, sysattr__now_ns(), FT_SAMPLER_COST, UINT32_MAX, s->total_ns, msg);
	}
	for (size_t g = 0; g < s->ngroups; g++) {
		for (size_t i = 0; i < s->groups[g].n; i++)
			if (s->groups[g].ctrs[i].fd >= 0)
				close(s->groups[g].ctrs[i].fd);
		free(s->groups[g].ctrs);
		free(s->groups[g].smp);
	}
	for (size_t i = 0; i < s->neth; i++)
		ethstats__free(&s->eth[i].st);
	for (size_t i = 0; i < s->nqd; i++)
		qdisc_roots__free(&s->qd[i].roots);
	free(s->qd);
	free(s->groups);
	free(s->eth);
	free(s->ports);
	free(s);
}
