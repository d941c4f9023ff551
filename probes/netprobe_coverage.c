// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Coverage of the network probes (netprobe_priv.h): tracepoint hits
 * against program runs.
 *
 * A raw tracepoint skips a program only when it would recurse on its CPU
 * (__bpf_trace_run), and recent kernels count each such skip in the
 * program's recursion_misses: then hits = runs + misses, read at no cost on
 * the hot path.  Whether this kernel does is tried at run time
 * (recursion_misses.c).  A kernel that also skips, uncounted, every
 * program in the context of PID 1's tasks (docs/known-issues.md) gets a
 * counting perf event per thread of PID 1 on each hook's tracepoint: those
 * hits are exactly the uncounted skips.  Each hit still calls the
 * tracepoint's perf hook, which returns at once unless PID 1 runs there.
 * Kernels that count no skips, and --coverage counters, get a counting perf
 * event per CPU on every hook's tracepoint instead, which makes the kernel
 * fill the tracepoint's record on each hit for the count: about twice the
 * cost (docs/performance.md, section 0).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "net.skel.h"
#include "tcp.skel.h"
#include "probes/coverage.h"
#include "probes/netprobe_priv.h"
#include "probes/recursion_misses.h"

/* Recursion misses of the program attached to hook i, or -errno. */
static int64_t prog_misses(struct netprobe *p, int i)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);
	struct bpf_program *prog;
	struct bpf_object *o = netp_hooks[i].obj == OBJ_NET ? (p->net ? p->net->obj : NULL)
						      : (p->tcp ? p->tcp->obj : NULL);

	if (!o || p->chosen[i] < 0)
		return -ENOENT;
	prog = bpf_object__find_program_by_name(o, netp_hooks[i].progs[p->chosen[i]]);
	memset(&info, 0, sizeof(info));
	if (!prog || bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len))
		return -ENOENT;
	return (int64_t)info.recursion_misses;
}

static bool deferred(const struct netprobe *p, int i)
{
	return p->deferred & (1ull << i);
}

/* Hook i's counted hits: its counters', with a deferred hook's windows
 * already over added (its counters are open only in a window). */
static int counted_hits(struct netprobe *p, int i, uint64_t *hits)
{
	if (!deferred(p, i))
		return coverage__read(&p->hits[i], hits);
	*hits = 0;
	if (p->cov_window_unknown[i])
		return -ENODATA;
	if (p->hits[i].nopen) {
		int err = coverage__read(&p->hits[i], hits);

		if (err)
			return err;
	}
	*hits += p->cov_window_hits[i];
	return 0;
}

/* With cov_misses: hits = runs + recursion_misses (+ PID 1's hits with cov_pid1). */
static int cov_read_hits(struct netprobe *p, int i, uint64_t runs, uint64_t *hits)
{
	uint64_t pid1 = 0;
	int64_t m;
	int err;

	m = prog_misses(p, i);
	if (m < 0)
		return (int)m;
	if (p->cov_pid1 && (err = counted_hits(p, i, &pid1)))
		return err;
	*hits = runs + (uint64_t)m + pid1;
	return 0;
}

int netprobe__coverage_auto(char *why, size_t whylen)
{
	if (recursion_misses__counted(why, whylen))
		return NP_COV_KERNEL;
	if (recursion_misses__all_but_pid1()) {
		if (coverage__init_pidns())
			return NP_COV_PID1;
		snprintf(why, whylen, "the kernel skips programs in PID 1's context uncounted, and this "
			 "process runs in a PID namespace of its own, which hides the kernel's PID 1");
	}
	return NP_COV_COUNTERS;
}

static const char *const coverage_names[NP_COV_N] = {
	[NP_COV_AUTO] = "auto", [NP_COV_COUNTERS] = "counters",
	[NP_COV_KERNEL] = "kernel", [NP_COV_PID1] = "pid1",
};

const char *netprobe__coverage_name(int mode)
{
	return mode >= 0 && mode < NP_COV_N ? coverage_names[mode] : "?";
}

int netprobe__coverage_parse(const char *name)
{
	for (int m = 0; m < NP_COV_N; m++)
		if (!strcmp(name, coverage_names[m]))
			return m;
	return -1;
}

int netprobe__coverage_mode(const struct netprobe *p)
{
	return p->cov_mode;
}

/* Open hook i's hit counters, as the coverage mode wants them. */
static void open_hits(struct netprobe *p, int i)
{
	char why[sizeof(p->st[i].cov_why)];
	int err = 0;

	if (p->tcx_hooks & (1ull << i))
		return; /* nothing skips a tcx program: its hits are its runs */
	why[0] = 0;
	if (p->cov_pid1)
		err = coverage__open_tgid(&p->hits[i], netp_hooks[i].system, netp_hooks[i].tracepoint, 1, why,
					  sizeof(why));
	else if (!p->cov_misses)
		err = coverage__open(&p->hits[i], netp_hooks[i].system, netp_hooks[i].tracepoint, p->ncpus, why,
				     sizeof(why));
	if (!err)
		return;
	if (deferred(p, i))
		p->cov_window_unknown[i] = true; /* the later windows cannot mend it */
	if (!p->st[i].cov_why[0])
		memcpy(p->st[i].cov_why, why, sizeof(why));
}

void netp_open_counters(struct netprobe *p)
{
	int mode = p->cov_mode == NP_COV_AUTO ? netprobe__coverage_auto(NULL, 0) : p->cov_mode;

	p->cov_mode = mode; /* what is used, for netprobe__coverage_mode() */

	p->cov_pid1 = mode == NP_COV_PID1;
	p->cov_misses = mode == NP_COV_KERNEL || p->cov_pid1;
	for (int i = 0; i < FT_PROBE_MAX; i++) {
		if (!netp_hook_on(p, i) && !deferred(p, i))
			continue;
		p->cov_attached[i] = true;
		p->st[i].cov_why[0] = 0;
		if (!deferred(p, i)) /* a deferred hook's open with each window */
			open_hits(p, i);
	}
}

void netp_coverage_window(struct netprobe *p, int i, bool on)
{
	uint64_t h;

	if (!deferred(p, i) || p->cov_taken)
		return;
	if (on) {
		open_hits(p, i);
		return;
	}
	if (p->hits[i].nopen) {
		if (coverage__read(&p->hits[i], &h))
			p->cov_window_unknown[i] = true;
		else
			p->cov_window_hits[i] += h;
	}
	coverage__close(&p->hits[i]);
}

/* Nothing skips a tcx program: its hook's hits are its runs. */
static void tcx_hits(const struct netprobe *p, bool known[FT_PROBE_MAX], uint64_t hits[FT_PROBE_MAX],
		     const uint64_t runs[FT_PROBE_MAX])
{
	for (int i = 0; i < FT_PROBE_MAX; i++)
		if ((p->tcx_hooks & (1ull << i)) && p->cov_attached[i]) {
			known[i] = true;
			hits[i] = runs[i];
		}
}

/* Program runs per hook, summed over CPUs, from one object's `runs` map. */
static void read_runs(struct netprobe *p, struct bpf_map *m, enum obj_id obj, uint64_t *v)
{
	for (__u32 i = 0; i < FT_PROBE_MAX; i++) {
		if (!p->cov_attached[i] || netp_hooks[i].obj != obj)
			continue;
		p->cov_runs[i] = 0;
		if (bpf_map_lookup_elem(bpf_map__fd(m), &i, v))
			continue;
		for (int c = 0; c < p->ncpus; c++)
			p->cov_runs[i] += v[c];
	}
}

/*
 * Read hits, then runs, back to back while the probes are still attached, so
 * both cover the window from netp_open_counters() to now.  Reading hits first
 * leaves in-flight runs on the "more runs" side, which the report clamps.
 */
void netp_take_coverage(struct netprobe *p)
{
	uint64_t *v;

	if (p->cov_taken)
		return;
	if (!p->cov_misses)
		for (int i = 0; i < FT_PROBE_MAX; i++)
			if (p->cov_attached[i])
				p->cov_known[i] = counted_hits(p, i, &p->cov_hits[i]) == 0;
	v = calloc((size_t)p->ncpus, sizeof(*v));
	if (v) {
		if (p->net)
			read_runs(p, p->net->maps.runs, OBJ_NET, v);
		if (p->tcp)
			read_runs(p, p->tcp->maps.runs, OBJ_TCP, v);
		free(v);
	}
	if (p->cov_misses) /* runs first, then misses: a skip in between counts as a hit */
		for (int i = 0; i < FT_PROBE_MAX; i++)
			if (p->cov_attached[i])
				p->cov_known[i] = cov_read_hits(p, i, p->cov_runs[i], &p->cov_hits[i]) == 0;
	tcx_hits(p, p->cov_known, p->cov_hits, p->cov_runs);
	for (int i = 0; i < FT_PROBE_MAX; i++)
		coverage__close(&p->hits[i]);
	p->cov_taken = true;
}

int netprobe__skipped_now(struct netprobe *p, uint64_t skipped[FT_PROBE_MAX], bool known[FT_PROBE_MAX])
{
	uint64_t hits[FT_PROBE_MAX] = {0}, runs[FT_PROBE_MAX], *v;

	if (p->cov_taken)
		return -EALREADY;
	if (!p->cov_misses)
		for (int i = 0; i < FT_PROBE_MAX; i++)
			known[i] = p->cov_attached[i] && counted_hits(p, i, &hits[i]) == 0;
	v = calloc((size_t)p->ncpus, sizeof(*v));
	if (!v)
		return -ENOMEM;
	/* read_runs() fills cov_runs; the final reading (netp_take_coverage) reads them again */
	if (p->net)
		read_runs(p, p->net->maps.runs, OBJ_NET, v);
	if (p->tcp)
		read_runs(p, p->tcp->maps.runs, OBJ_TCP, v);
	free(v);
	memcpy(runs, p->cov_runs, sizeof(runs));
	if (p->cov_misses)
		for (int i = 0; i < FT_PROBE_MAX; i++)
			known[i] = p->cov_attached[i] && cov_read_hits(p, i, runs[i], &hits[i]) == 0;
	tcx_hits(p, known, hits, runs);
	for (int i = 0; i < FT_PROBE_MAX; i++)
		skipped[i] = known[i] ? coverage__skipped(hits[i], runs[i]) : 0;
	return 0;
}

int netprobe__coverage(struct netprobe *p, netprobe_sample_fn fn, void *ctx)
{
	netp_take_coverage(p);
	for (int i = 0; i < FT_PROBE_MAX; i++) {
		struct ft_coverage r = { .hdr = { FT_REC_COVERAGE, sizeof(r), 0 } };

		if (!p->cov_attached[i])
			continue;
		r.probe = (__u32)i;
		r.known = p->cov_known[i];
		r.hits = p->cov_known[i] ? p->cov_hits[i] : 0;
		r.runs = p->cov_runs[i];
		if (fn(ctx, &r.hdr) < 0)
			return -EIO;
	}
	return 0;
}
