// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Load, attach and drain the phase probes (see phaseprobe.h).  This file:
 * open (the BPF object with the hook variants that load here, targets,
 * attaching), detach and close, stats.  The rest: phaseprobe_state.h.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pthread.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "phase.skel.h"
#include "bpf/phase.h"
#include "probes/libfind.h"
#include "probes/bpflog.h"
#include "probes/netprobe.h"
#include "probes/phaseprobe_state.h"
#include "lib/util.h"

/* Libraries looked for in the loader cache (soname prefixes). */
static const char *const cache_prefixes[] = {
	"libmpi", "libnccl", "libgloo", "libtorch_cpu", "libfabtrace_marker",
};

/* ---- open ---- */

/* Whether hook H is a socket owner's. */
static bool owner_hook(int h)
{
	return h == PH_HOOK_SEND || h == PH_HOOK_RECV;
}

/* Attach kernel hook H's chosen variant. */
static int attach_hook(struct phaseprobe *p, int h, char *err, size_t errlen)
{
	int ret;

	p->hook_links[h] = bpf_program__attach(bpf_object__find_program_by_name(
		p->skel->obj, ph_hooks[h].progs[p->chosen[h]]));
	if (p->hook_links[h])
		return 0;
	ret = -errno;
	snprintf(err, errlen, "attaching %s to %s: %s", ph_hooks[h].kinds[p->chosen[h]],
		 ph_hooks[h].tracepoint, strerror(-ret));
	return ret;
}

/* Load the object with the chosen hook variants and attach the hooks. */
static int load_attach(struct phaseprobe *p, const struct phaseprobe_opts *o, char *err, size_t errlen)
{
	struct bpf_program *prog;
	int ret, fd;

	if (ph_skel_open(&p->skel)) {
		snprintf(err, errlen, "opening the phase BPF object: %s", strerror(errno));
		return -errno;
	}
	bpf_object__for_each_program(prog, p->skel->obj)
		bpf_program__set_autoload(prog, false);
	bpf_program__set_autoload(p->skel->progs.phase_entry, true);
	bpf_program__set_autoload(p->skel->progs.phase_exit, true);
	if (p->multi) {
		bpf_program__set_expected_attach_type(p->skel->progs.phase_entry, PH_BPF_TRACE_UPROBE_MULTI);
		bpf_program__set_expected_attach_type(p->skel->progs.phase_exit, PH_BPF_TRACE_UPROBE_MULTI);
	}
	for (int h = 0; h < PH_HOOK_MAX; h++)
		if (p->chosen[h] >= 0)
			bpf_program__set_autoload(bpf_object__find_program_by_name(
				p->skel->obj, ph_hooks[h].progs[p->chosen[h]]), true);
	p->skel->rodata->targ_follow = !p->systemwide;
	p->skel->rodata->targ_netns = o->netns;
	p->skel->rodata->targ_filter_ifaces = o->n_ifaces > 0;
	/*
	 * the phase probes' ring: --ringbuf, like the network probes'.  At half
	 * of it, 32 processes' calls overflowed it under ASan (test_load) while
	 * the 150 ms tick re-read every process's maps without draining; the tick
	 * now drains between processes and skips unchanged ones (phaseprobe_drain.c).
	 * Twice --ringbuf cost 8 MB more RSS (libbpf maps a ring's data twice).
	 */
	p->skel->rodata->targ_wake_bytes = (__u32)netprobe__wake_for(o->wake_bytes, o->ringbuf_bytes);
	bpf_map__set_max_entries(p->skel->maps.events, (__u32)o->ringbuf_bytes);
	bpflog__clear();
	ret = phase_bpf__load(p->skel);
	if (ret) {
		snprintf(err, errlen, "loading the phase BPF programs: %s%s%s", strerror(-ret),
			 bpflog__sep(), bpflog__last());
		return ret;
	}
	fd = bpf_map__fd(p->skel->maps.targ_iftab);
	ret = netprobe__fill_iftab(fd, o->ifaces, o->n_ifaces, err, errlen);
	if (ret)
		return ret;
	for (int h = 0; h < PH_HOOK_MAX; h++) {
		if (p->chosen[h] < 0 || (p->owners_deferred && owner_hook(h)))
			continue;
		ret = attach_hook(p, h, err, errlen);
		if (ret)
			return ret;
	}
	p->rb = ring_buffer__new(bpf_map__fd(p->skel->maps.events), ph_on_sample, p, NULL);
	if (!p->rb) {
		ret = -errno;
		snprintf(err, errlen, "phase ring buffer: %s", strerror(-ret));
		return ret;
	}
	return 0;
}

static void unload(struct phaseprobe *p)
{
	phaseprobe__detach(p);
	ring_buffer__free(p->rb);
	p->rb = NULL;
	phase_bpf__destroy(p->skel);
	p->skel = NULL;
}

/* Leave out the socket-owner hooks when O says so (the always profile), unless deferred. */
static void leave_out_owners(struct phaseprobe *p, const struct phaseprobe_opts *o)
{
	p->owners_deferred = o->no_owners && o->defer_owners;
	if (!o->no_owners || o->defer_owners)
		return;
	for (int h = PH_HOOK_SEND; h <= PH_HOOK_RECV; h++) {
		p->chosen[h] = -1;
		p->st[1 + h].variant = NULL;
		snprintf(p->st[1 + h].why, sizeof(p->st[1 + h].why), "not in the always profile (--profile always)");
	}
}

/* The preferred hook variants in one load, else each hook's first variant that works. */
static int load_all(struct phaseprobe *p, const struct phaseprobe_opts *o, char *err, size_t errlen)
{
	int ret = -1;

	if (!getenv("FABTRACE_VARIANTS")) {
		for (int h = 0; h < PH_HOOK_MAX; h++) {
			p->chosen[h] = 0;
			p->st[1 + h] = (struct phase_feature){ .name = ph_hooks[h].name,
				.hook = ph_hooks[h].tracepoint, .variant = ph_hooks[h].kinds[0] };
		}
		leave_out_owners(p, o);
		ret = load_attach(p, o, err, errlen);
		if (ret)
			unload(p);
	}
	if (ret) {
		ph_choose_hooks(p->chosen, p->st);
		leave_out_owners(p, o);
		ret = load_attach(p, o, err, errlen);
		if (ret)
			unload(p);
	}
	return ret;
}

/*
 * Does this kernel have uprobe_multi links?  An attach to the empty path
 * fails early: -EINVAL where the attach type is unknown, -ENOENT (path
 * lookup) where it is known.  Nothing gets attached either way.
 */
static bool multi_supported(struct phaseprobe *p)
{
	uint64_t off = 0, cookie = 0;
	int fd = ph_multi_attach(p->skel->progs.phase_entry, "", &off, &cookie, 1, false);

	if (fd >= 0) {
		close(fd);
		return true;
	}
	return fd != -EINVAL && fd != -EOPNOTSUPP;
}

static int check_pids(const struct phaseprobe_opts *o, char *err, size_t errlen)
{
	for (int i = 0; i < o->npids; i++) {
		char path[64];
		struct stat st;

		snprintf(path, sizeof(path), "/proc/%d", (int)o->pids[i]);
		if (o->pids[i] <= 0 || stat(path, &st) || (kill(o->pids[i], 0) && errno == ESRCH)) {
			snprintf(err, errlen, "-p %d: no such process; check the PID (ps -p %d)",
				 (int)o->pids[i], (int)o->pids[i]);
			return -EINVAL;
		}
		if (o->pids[i] == getpid()) {
			snprintf(err, errlen, "-p %d: that is fabtrace itself; give the PID of the "
				 "program to trace", (int)o->pids[i]);
			return -EINVAL;
		}
	}
	return 0;
}

int phaseprobe__open(struct phaseprobe **out, const struct phaseprobe_opts *o,
		     phaseprobe_fn fn, void *ctx, char *err, size_t errlen)
{
	struct phaseprobe *p = calloc(1, sizeof(*p));
	struct lib_set known;
	int ret;

	if (!p)
		return -ENOMEM;
	lib_set__init(&known);
	bpflog__init(o->verbose);
	p->fn = fn;
	p->ctx = ctx;
	p->verbose = o->verbose;
	p->systemwide = !o->npids && !o->cmd;
	ret = check_pids(o, err, errlen);
	if (ret)
		goto fail;
	p->nspecs = o->nspecs;
	p->specs = calloc(o->nspecs ? (size_t)o->nspecs : 1, sizeof(*p->specs));
	p->links = calloc((size_t)2 * PH_MAX_SLOTS, sizeof(struct bpf_link *));
	p->cfgs = calloc(PH_MAX_SLOTS, sizeof(*p->cfgs));
	if (!p->specs || !p->links || !p->cfgs) {
		ret = -ENOMEM;
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	for (int i = 0; i < o->nspecs; i++)
		p->specs[i].spec = o->specs[i];

	/* the libraries the targets use, or may use */
	if (o->cmd && o->cmd[0])
		ph_cmd_closures(o->cmd, &known);
	for (int i = 0; i < o->npids; i++)
		libfind__maps(o->pids[i], &known);
	for (size_t i = 0; i < sizeof(cache_prefixes) / sizeof(cache_prefixes[0]); i++)
		libfind__cache(cache_prefixes[i], &known);
	ret = ph_resolve_specs(p, &known, err, errlen);
	if (ret)
		goto fail;

	/* the kernel side: the preferred hook variants in one load, else one by one */
	p->ncpus = libbpf_num_possible_cpus();
	p->multi = !getenv("FABTRACE_UPROBE_PERF");
	ret = load_all(p, o, err, errlen);
	if (!ret && p->multi && !multi_supported(p)) {
		unload(p); /* uprobes one perf event each: slower to attach and detach */
		p->multi = false;
		ret = load_all(p, o, err, errlen);
	}
	if (ret)
		goto fail;
	p->st[0] = (struct phase_feature){ .name = "uprobe", .hook = "uprobe+uretprobe, bpf cookie",
					   .variant = p->multi ? "uprobe_multi" : "uprobe" };

	/* targets: -p PIDs and their descendants (the fork hook runs already) */
	for (int i = 0; i < o->npids; i++) {
		pid_t pid = ph_tgid_of(o->pids[i]);

		if (ph_pid_followed(p, pid))
			continue; /* given twice, or a thread of one given */
		ret = ph_follow(p, pid);
		if (!ret)
			ret = ph_emit_proc(p, pid, FT_PROC_EXISTING);
		if (ret) {
			snprintf(err, errlen, "following pid %d: %s", (int)o->pids[i], strerror(-ret));
			goto fail;
		}
	}
	for (int added = o->npids; added;) {
		added = 0;
		ph_for_each_pid(p, true, ph_add_descendant, &added);
	}
	for (size_t i = 0; i < p->npids; i++)
		libfind__maps(p->pids[i], &known);
	for (int i = 0; i < o->nlibs && p->npre < PH_MAX_PRELIBS; i++)
		if (lib_set__add(&known, o->libs[i]) == 1) {
			p->pre[p->npre][0] = known.dev[known.n - 1];
			p->pre[p->npre][1] = known.ino[known.n - 1];
			p->npre++;
		}

	/* attach: --phase libraries first (their symbols join the catalog's), then the rest */
	for (int i = 0; i < p->nspecs; i++) {
		ret = ph_examine(p, p->specs[i].path, p->specs[i].dev, p->specs[i].ino);
		if (ret)
			break;
	}
	if (!ret)
		ret = ph_examine_set(p, &known);
	if (!ret && p->systemwide) {
		ret = ph_scan_all(p);
		if (!ret)
			ret = ph_for_each_pid(p, false, ph_existing_if_traced, NULL);
	}
	if (ret) {
		snprintf(err, errlen, "attaching phase probes: %s", strerror(-ret));
		goto fail;
	}
	lib_set__free(&known);
	*out = p;
	return 0;
fail:
	lib_set__free(&known);
	phaseprobe__close(p);
	return ret;
}

int phaseprobe__add_pid(struct phaseprobe *p, pid_t pid)
{
	int ret = ph_follow(p, pid);

	return ret ? ret : ph_emit_proc(p, pid, FT_PROC_FORK);
}

/* ---- detach, close ---- */

/*
 * Removing a uprobe waits for an RCU-tasks-trace grace period (~0.1 s
 * here), once per uprobe_multi link or perf uprobe.  Closing them from
 * several threads at once lets the waits share grace periods.
 */
struct closer {
	struct phaseprobe *p;
	size_t next;            /* atomic: next item; fds first, then links */
	size_t total;
};

static void close_item(struct phaseprobe *p, size_t i)
{
	if (i < p->nmfds) {
		close(p->mfds[i]);
		return;
	}
	i -= p->nmfds;
	bpf_link__destroy(p->links[i]);
	p->links[i] = NULL;
}

static void *closer_run(void *arg)
{
	struct closer *c = arg;
	size_t i;

	while ((i = __atomic_fetch_add(&c->next, 1, __ATOMIC_RELAXED)) < c->total)
		close_item(c->p, i);
	return NULL;
}

#define CLOSE_THREADS 32

static void close_links(struct phaseprobe *p)
{
	size_t nlinks = p->links ? 2 * (size_t)p->nslots : 0;
	struct closer c = { p, 0, p->nmfds + nlinks };
	pthread_t th[CLOSE_THREADS];
	int n = 0;

	while (n < CLOSE_THREADS && (size_t)n < c.total / 2 &&
	       pthread_create(&th[n], NULL, closer_run, &c) == 0)
		n++;
	closer_run(&c); /* this thread helps, and does it all if no thread started */
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	p->nmfds = 0;
}

void phaseprobe__disarm(struct phaseprobe *p)
{
	if (p->skel && p->skel->bss)
		p->skel->bss->armed = false;
}

void phaseprobe__detach(struct phaseprobe *p)
{
	phaseprobe__disarm(p);
	for (int h = 0; h < PH_HOOK_MAX; h++) {
		bpf_link__destroy(p->hook_links[h]);
		p->hook_links[h] = NULL;
	}
	close_links(p);
}

bool phaseprobe__owners_deferred(const struct phaseprobe *p)
{
	return p->owners_deferred;
}

int phaseprobe__set_owners(struct phaseprobe *p, bool on, char *err, size_t errlen)
{
	int ret = 0;

	for (int h = 0; h < PH_HOOK_MAX; h++) {
		if (!p->owners_deferred || !owner_hook(h) || p->chosen[h] < 0)
			continue;
		if (on && !p->hook_links[h] && !ret)
			ret = attach_hook(p, h, err, errlen);
	}
	if (on && !ret)
		return 0;
	for (int h = 0; h < PH_HOOK_MAX; h++)
		if (p->owners_deferred && owner_hook(h)) {
			bpf_link__destroy(p->hook_links[h]);
			p->hook_links[h] = NULL;
		}
	return ret;
}

void phaseprobe__stats(const struct phaseprobe *p, struct phaseprobe_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->slots = p->nslots;
	st->attach_failed = p->attach_failed;
	st->systemwide = p->systemwide;
	for (size_t i = 0; i < p->nlibs; i++) {
		if (!p->libs[i].npoints)
			continue;
		st->libs++;
		for (int k = 0; k < p->npre; k++)
			if (p->libs[i].dev == p->pre[k][0] && p->libs[i].ino == p->pre[k][1])
				st->preattached += p->libs[i].npoints;
		if (p->libs[i].kind < sizeof(st->by_lib) / sizeof(st->by_lib[0]))
			st->by_lib[p->libs[i].kind] += p->libs[i].npoints;
	}
}

const char *phaseprobe__describe(const struct phaseprobe *p, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = 0;
	for (size_t i = 0; i < p->nlibs && off + 1 < len; i++) {
		const struct ph_lib *l = &p->libs[i];
		const char *base = strrchr(l->path, '/');
		int n;

		if (!l->npoints)
			continue;
		n = snprintf(buf + off, len - off, "%s%s %s (%u)", off ? ", " : "",
			     catalog__lib_name(l->kind), base ? base + 1 : l->path, l->npoints);
		if (n < 0)
			break;
		off += (size_t)n;
	}
	return buf;
}

const struct phase_feature *phaseprobe__features(const struct phaseprobe *p)
{
	return p->st;
}

void phaseprobe__close(struct phaseprobe *p)
{
	if (!p)
		return;
	unload(p);
	for (size_t i = 0; i < p->nlibs; i++)
		free(p->libs[i].path);
	free(p->libs);
	free(p->exes);
	free(p->specs);
	free(p->pids);
	free(p->seen);
	free(p->sw_seen);
	free(p->execs);
	free(p->exits);
	free(p->pending);
	free(p->links);
	free(p->mfds);
	free(p->cfgs);
	free(p);
}
