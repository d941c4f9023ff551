// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Load, attach and drain the kernel network probes (see netprobe.h): the
 * ring buffers, the filters, loading the chosen variants and attaching
 * them, open and close.  The hooks and their variants, the coverage check
 * and the flush at stop are netprobe_variants.c, netprobe_coverage.c and
 * netprobe_flush.c (netprobe_priv.h).
 */
#include <errno.h>
#include <limits.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "net.skel.h"
#include "tcp.skel.h"
#include "bpf/net.h"
#include "probes/bpflog.h"
#include "probes/netns.h"
#include "probes/netprobe_priv.h"
#include "probes/probe_names.h"
#include "probes/qdisc_config.h"
#include "probes/tcx.h"

/* The kernel's tick (the resolution of its coarse clocks), which tcp_probe
 * uses to bound how long it lets segments pass without a clock read
 * (bpf/tcp.bpf.c); 0 when unknown, which turns that off. */
static __u64 tick_ns(void)
{
	struct timespec r;

	if (clock_getres(CLOCK_MONOTONIC_COARSE, &r) || r.tv_sec || r.tv_nsec <= 0)
		return 0;
	return (__u64)r.tv_nsec;
}

struct tcx_job {
	int prog_fd;
	uint32_t ifindex;
	int attach;         /* FT_BPF_TCX_INGRESS or _EGRESS */
	int fd;
};

/* netns__run_in() callback: attach inside the interface's namespace */
static int tcx_attach_job(void *arg)
{
	struct tcx_job *j = arg;

	j->fd = tcx_attach(j->prog_fd, j->ifindex, j->attach);
	return j->fd < 0 ? j->fd : 0;
}

/* ---- recording */

/* The records of a batch (FT_REC_BATCH, bpf/net.h), one by one; every
 * record must lie inside the batch's used part. */
static int unpack_batch(struct netprobe *p, const struct ft_rec_hdr *h, size_t size)
{
	size_t used = h->size, off = sizeof(*h);

	if (used > size)
		return 0; /* cannot happen with our programs; never trust it */
	while (off + sizeof(*h) <= used) {
		const struct ft_rec_hdr *r = (const void *)((const char *)h + off);

		if (r->size < sizeof(*r) || r->size > used - off || r->type == FT_REC_BATCH)
			break;
		if (p->fn(p->ctx, r) < 0) {
			p->cb_err = -EIO;
			return -EIO;
		}
		off += r->size;
	}
	return 0;
}

static int on_sample(void *ctx, void *data, size_t size)
{
	struct netprobe *p = ctx;
	const struct ft_rec_hdr *h = data;

	if (size >= sizeof(*h) && h->type == FT_REC_BATCH)
		return unpack_batch(p, h, size);
	if (size < sizeof(*h) || h->size != size)
		return 0; /* cannot happen with our programs; never trust it */
	if (p->fn(p->ctx, h) < 0) {
		p->cb_err = -EIO;
		return -EIO; /* stop consuming: the recorder is failing */
	}
	return 0;
}

size_t netprobe__ring_share(size_t ringbuf_bytes, unsigned div)
{
	size_t r = ringbuf_bytes / (div ? div : 1);

	return r < (64u << 10) ? (64u << 10) : r;
}

size_t netprobe__wake_for(size_t wake_bytes, size_t ring_bytes)
{
	return wake_bytes > ring_bytes / 8 ? ring_bytes / 8 : wake_bytes;
}

/* The ring of an object: net gets --ringbuf, tcp (rare events) a quarter. */
static size_t obj_ring(enum obj_id id, const struct netprobe_opts *o)
{
	return id == OBJ_NET ? o->ringbuf_bytes : netprobe__ring_share(o->ringbuf_bytes, 4);
}

/* Whether P's transmit bins count what leaves (the full profile at tcx egress
 * and qdisc_dequeue) rather than what is offered (the always profile's). */
static bool tx_leave(const struct netprobe *p)
{
	return p->profile != NP_PROFILE_ALWAYS && netp_variant_is_tcx(&netp_hooks[FT_PROBE_IFACE_TX],
								       p->chosen[FT_PROBE_IFACE_TX]);
}

static void set_filters(const struct netprobe *p, struct netp_obj *ob, const struct netprobe_opts *o)
{
	__u32 wake = (__u32)netprobe__wake_for(o->wake_bytes, obj_ring(ob->id, o));

	if (ob->id == OBJ_NET) {
		struct net_bpf *s = ob->skel;

		s->rodata->targ_tx_leave = tx_leave(p);
		s->rodata->targ_bin_ns = o->bin_ns;
		s->rodata->targ_batch = o->batch_bins && o->batch_bins <= FT_BATCH ? o->batch_bins : FT_BATCH;
		s->rodata->targ_netns = o->netns;
		s->rodata->targ_filter_ifaces = o->n_ifaces > 0;
		s->rodata->targ_wake_bytes = wake;
		s->rodata->targ_n_slots = (__u32)p->n_slots;
		for (size_t i = 0; i < (size_t)p->n_slots && i < FT_IF_SLOTS; i++) {
			s->rodata->targ_slot_ifs[i * 2] = p->slots[i][0];
			s->rodata->targ_slot_ifs[i * 2 + 1] = p->slots[i][1];
		}
		bpf_map__set_max_entries(s->maps.stage_timers, (__u32)p->ncpus);
		s->rodata->targ_timer_pin = !getenv("FABTRACE_TIMER_NOPIN"); /* tests: a kernel before 6.7 */
	} else {
		struct tcp_bpf *s = ob->skel;

		s->rodata->targ_sample_ns = o->sample_ns;
		s->rodata->targ_tick_ns = tick_ns();
		s->rodata->targ_netns = o->netns;
		s->rodata->targ_filter_ifaces = o->n_ifaces > 0;
		s->rodata->targ_wake_bytes = wake;
	}
}

/* (NETNS, IFINDEX) into its bucket of TAB with SLOT; -E2BIG when the bucket is full. */
static int iftab_put(struct if_bucket *tab, uint32_t netns, uint32_t ifindex, uint32_t slot, char *err,
		     size_t errlen)
{
	struct if_bucket *b = &tab[ft_if_bucket(netns, ifindex)];
	int w = 0;

	while (w < FT_IF_WAYS && b->w[w].netns && !(b->w[w].netns == netns && b->w[w].ifindex == ifindex))
		w++;
	if (w == FT_IF_WAYS) {
		snprintf(err, errlen, "interface filter: more than %d of the chosen interfaces "
			 "share a table bucket; choose fewer (or none: all interfaces)", FT_IF_WAYS);
		return -E2BIG;
	}
	if (!b->w[w].netns)
		b->w[w] = (struct if_way){ .netns = netns, .ifindex = ifindex, .slot = slot };
	return 0;
}

int netprobe__fill_iftab(int fd, const uint32_t (*ifaces)[2], int n, char *err, size_t errlen)
{
	struct if_bucket *tab = calloc(FT_IF_BUCKETS, sizeof(*tab));
	int ret = 0;

	if (!tab)
		return -ENOMEM;
	if (n > FT_IF_SLOTS) {
		snprintf(err, errlen, "%d interfaces chosen; at most %d can be traced one by one "
			 "(trace all with no -i)", n, FT_IF_SLOTS);
		ret = -E2BIG;
	}
	for (int i = 0; i < n && !ret; i++)
		ret = iftab_put(tab, ifaces[i][0], ifaces[i][1], (uint32_t)i, err, errlen);
	/* their namespaces, as interface 0, for records that name no device
	 * (netns_traced() in bpf/common.bpf.h); no slot: nothing is binned there */
	for (int i = 0; i < n && !ret; i++)
		ret = iftab_put(tab, ifaces[i][0], 0, FT_IF_SLOTS, err, errlen);
	for (__u32 k = 0; k < FT_IF_BUCKETS && !ret; k++)
		if (bpf_map_update_elem(fd, &k, &tab[k], BPF_ANY)) {
			ret = -errno;
			snprintf(err, errlen, "interface filter map: %s", strerror(-ret));
		}
	free(tab);
	return ret;
}

/* Attach hook i's tcx variant PROG to every chosen interface, each in its netns;
 * with GONE_OK, one whose namespace or device went away meanwhile is left out. */
static int attach_tcx(struct netprobe *p, int i, const struct bpf_program *prog, bool gone_ok, char *err,
		      size_t errlen)
{
	bool egress = netp_hook_egress(&netp_hooks[i]);
	int *fds = malloc((size_t)p->n_slots * sizeof(*fds));

	if (!fds)
		return -ENOMEM;
	p->tcx_fds[i] = fds;
	p->tcx_hooks |= 1ull << i;
	p->st[i].tracepoint = egress ? "egress" : "ingress"; /* the capture's hook: tcx/egress, tcx/ingress */
	for (int s = 0; s < p->n_slots; s++)
		fds[s] = -1;
	for (int s = 0; s < p->n_slots; s++) {
		struct tcx_job j = { bpf_program__fd(prog), p->slots[s][1],
				     egress ? FT_BPF_TCX_EGRESS : FT_BPF_TCX_INGRESS, INT_MIN };
		int ret = netns__run_in(p->iface_ns ? p->iface_ns[s] : NULL, tcx_attach_job, &j, err, errlen);

		if (j.fd >= 0)
			fds[s] = j.fd;
		if (!ret || (gone_ok && (ret == -ENODEV || ret == -ENOENT)))
			continue;
		if (j.fd < 0 && j.fd != INT_MIN) /* else err says why the netns failed */
			snprintf(err, errlen, "attaching tcx (%s) to interface index %u: %s",
				 probe__name(netp_hooks[i].id), p->slots[s][1], strerror(-ret));
		return ret;
	}
	return 0;
}

/* Attach hook I's chosen variant (its object loaded); GONE_OK as attach_tcx(). */
static int attach_hook(struct netprobe *p, int i, bool gone_ok, char *err, size_t errlen)
{
	struct bpf_object *bo = netp_hooks[i].obj == OBJ_NET ? p->net->obj : p->tcp->obj;
	struct bpf_program *prog = bpf_object__find_program_by_name(bo, netp_hooks[i].progs[p->chosen[i]]);
	int ret;

	if (netp_variant_is_tcx(&netp_hooks[i], p->chosen[i]))
		return attach_tcx(p, i, prog, gone_ok, err, errlen);
	p->links[i] = bpf_program__attach(prog);
	if (p->links[i])
		return 0;
	ret = -errno;
	snprintf(err, errlen, "attaching %s to %s: %s", netp_hooks[i].kinds[p->chosen[i]],
		 netp_hooks[i].tracepoint, strerror(-ret));
	return ret;
}

/* Detach hook I (its link, or its tcx links on every chosen interface). */
static void detach_hook(struct netprobe *p, int i)
{
	bpf_link__destroy(p->links[i]);
	p->links[i] = NULL;
	for (int s = 0; p->tcx_fds[i] && s < p->n_slots; s++)
		if (p->tcx_fds[i][s] >= 0)
			close(p->tcx_fds[i][s]);
	free(p->tcx_fds[i]);
	p->tcx_fds[i] = NULL;
	p->tcx_hooks &= ~(1ull << i);
}

/* Load the objects the chosen variants need, then attach them all. */
static int load_attach(struct netprobe *p, const struct netprobe_opts *o, char *err, size_t errlen)
{
	struct netp_obj obs[OBJ_MAX] = {0};
	int ret = 0, used[OBJ_MAX] = {0};

	for (int i = 0; i < FT_PROBE_MAX; i++)
		if (p->chosen[i] >= 0)
			used[netp_hooks[i].obj] = 1;
	for (int id = 0; id < OBJ_MAX && !ret; id++) {
		int fd;

		if (!used[id])
			continue;
		ret = netp_obj_open(&obs[id], id);
		if (ret) {
			snprintf(err, errlen, "opening BPF object: %s", strerror(-ret));
			break;
		}
		if (id == OBJ_NET)
			p->net = obs[id].skel;
		else
			p->tcp = obs[id].skel;
		netp_autoload_none(&obs[id]);
		for (int i = 0; i < FT_PROBE_MAX; i++)
			if (netp_hooks[i].obj == (enum obj_id)id && p->chosen[i] >= 0)
				bpf_program__set_autoload(bpf_object__find_program_by_name(
					obs[id].o, netp_hooks[i].progs[p->chosen[i]]), true);
		set_filters(p, &obs[id], o);
		bpf_map__set_max_entries(netp_obj_map(&obs[id], "events"), (__u32)obj_ring((enum obj_id)id, o));
		bpflog__clear();
		ret = netp_obj_load(&obs[id]);
		if (ret) {
			snprintf(err, errlen, "loading BPF programs: %s%s%s", strerror(-ret),
				 bpflog__sep(), bpflog__last());
			break;
		}
		ret = netprobe__fill_iftab(bpf_map__fd(netp_obj_map(&obs[id], "targ_iftab")), o->ifaces,
					   o->n_ifaces, err, errlen);
		if (ret)
			break;
		fd = bpf_map__fd(netp_obj_map(&obs[id], "events"));
		if (!p->rb) {
			p->rb = ring_buffer__new(fd, on_sample, p, NULL);
			ret = p->rb ? 0 : -errno;
		} else {
			ret = ring_buffer__add(p->rb, fd, on_sample, p);
		}
		if (ret)
			snprintf(err, errlen, "ring buffer: %s", strerror(-ret));
	}
	for (int i = 0; i < FT_PROBE_MAX && !ret; i++)
		if (p->chosen[i] >= 0 && !(p->deferred & (1ull << i)))
			ret = attach_hook(p, i, false, err, errlen);
	return ret;
}

/* Undo load_attach (also a partial one). */
static void unload(struct netprobe *p)
{
	netprobe__detach(p);
	ring_buffer__free(p->rb);
	p->rb = NULL;
	if (p->net)
		net_bpf__destroy(p->net);
	if (p->tcp)
		tcp_bpf__destroy(p->tcp);
	p->net = NULL;
	p->tcp = NULL;
}

/* Why probe I is left out: the profile's choice, else --no-probes. */
static const char *skip_why(const struct netprobe_opts *o, int i)
{
	if (netprobe__profile_skip(o->profile) & (1ull << i))
		return o->profile == NP_PROFILE_ALWAYS ? "not in the always profile (--profile always)"
						       : "not in this profile (--profile)";
	return "left out (--no-probes)";
}

struct bypass_job {
	uint32_t ifindex;
	int bypass;         /* qdisc_config__can_bypass() */
};

/* netns__run_in() callback: ask the interface's namespace for its qdiscs */
static int bypass_job(void *arg)
{
	struct bypass_job *j = arg;
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);

	if (fd < 0)
		return -errno;
	j->bypass = qdisc_config__can_bypass(fd, j->ifindex);
	close(fd);
	return j->bypass < 0 ? j->bypass : 0;
}

/*
 * The hooks that may use their tcx variant (bit 1 << hook): all with -i,
 * none without.  The full profile's transmit bins count at tcx egress and
 * qdisc_dequeue what leaves each chosen interface (bpf/net.bpf.c), so not
 * without qdisc_dequeue, nor where a qdisc may let packets bypass it: a
 * bypassing packet would count when it was offered, and one its qdisc
 * refused as well.  There net_dev_start_xmit counts them; NOTE says why
 * (record -v).
 */
static uint64_t tcx_allowed(const struct netprobe_opts *o, uint64_t skips, char *note, size_t notelen)
{
	uint64_t ok = ~0ull, tx = 1ull << FT_PROBE_IFACE_TX;

	if (o->n_ifaces <= 0)
		return 0;
	if (o->profile == NP_PROFILE_ALWAYS)
		return ok;
	if (skips & (1ull << FT_PROBE_QDISC_DEQ)) {
		snprintf(note, notelen, "net_dev_start_xmit: qdisc_dequeue is left out");
		return ok & ~tx;
	}
	for (int s = 0; s < o->n_ifaces; s++) {
		struct bypass_job j = { .ifindex = o->ifaces[s][1], .bypass = 0 };
		char err[160];
		int ret = netns__run_in(o->iface_ns ? o->iface_ns[s] : NULL, bypass_job, &j, err, sizeof(err));

		if (ret || j.bypass) {
			snprintf(note, notelen, "net_dev_start_xmit: interface %u %s", j.ifindex,
				 ret ? "did not list its qdiscs" : "has a qdisc that packets may bypass");
			return ok & ~tx;
		}
	}
	return ok;
}

int netprobe__open(struct netprobe **out, const struct netprobe_opts *o,
		   netprobe_sample_fn fn, void *ctx, char *err, size_t errlen)
{
	struct netprobe *p = calloc(1, sizeof(*p));
	uint64_t deferred = o->deferred & ~o->skip & netprobe__profile_skip(o->profile);
	uint64_t skips = (o->skip | netprobe__profile_skip(o->profile)) & ~deferred, tcx_ok;
	char tx_note[120] = "";
	bool any = false;
	int ret;

	if (!p)
		return -ENOMEM;
	bpflog__init(o->verbose);
	p->fn = fn;
	p->ctx = ctx;
	p->profile = o->profile;
	p->deferred = deferred;
	p->iface_ns = o->iface_ns;
	p->ncpus = libbpf_num_possible_cpus();
	if (o->n_ifaces > 0) {
		p->slots = calloc((size_t)o->n_ifaces, sizeof(*p->slots));
		if (!p->slots) {
			free(p);
			return -ENOMEM;
		}
		memcpy(p->slots, o->ifaces, (size_t)o->n_ifaces * sizeof(*p->slots));
		p->n_slots = o->n_ifaces;
	}
	if (p->ncpus <= 0) {
		snprintf(err, errlen, "cannot count possible CPUs");
		free(p->slots);
		free(p);
		return -EINVAL;
	}
	if ((skips & ((1ull << FT_PROBE_MAX) - 1)) == (1ull << FT_PROBE_MAX) - 1) {
		snprintf(err, errlen, "--no-probes leaves out every network probe; keep at least one");
		netprobe__close(p);
		return -EINVAL;
	}
	tcx_ok = tcx_allowed(o, skips, tx_note, sizeof(tx_note));
	/* Fast path: the preferred variant of every hook, in one load per object.
	 * Trying hooks one by one costs a BTF parse each, so only on failure. */
	if (!getenv("FABTRACE_VARIANTS")) {
		for (int i = 0; i < FT_PROBE_MAX; i++) {
			bool skip = skips & (1ull << i);
			int v = 0;

			while (v < NETP_NVARIANTS && !netp_variant_allowed(&netp_hooks[i], v, tcx_ok & (1ull << i)))
				v++; /* tcx needs -i (tcx_allowed()) */
			p->chosen[i] = skip ? -1 : v;
			p->st[i] = (struct probe_status){ .id = netp_hooks[i].id, .name = probe__name(netp_hooks[i].id),
				.tracepoint = netp_hooks[i].tracepoint, .variant = skip ? NULL : netp_hooks[i].kinds[v] };
			if (skip)
				snprintf(p->st[i].why, sizeof(p->st[i].why), "%s", skip_why(o, i));
		}
		if (load_attach(p, o, err, errlen) == 0)
			goto done;
		unload(p);
	}
	netp_choose_variants(p->chosen, p->st, skips, tcx_ok);
	for (int i = 0; i < FT_PROBE_MAX; i++)
		if (skips & (1ull << i))
			snprintf(p->st[i].why, sizeof(p->st[i].why), "%s", skip_why(o, i));
	for (int i = 0; i < FT_PROBE_MAX; i++)
		any |= p->chosen[i] >= 0;
	if (!any) {
		snprintf(err, errlen, "no network probe works on this kernel (%s: %s); "
			 "run 'fabtrace features' for details", netp_hooks[0].tracepoint, p->st[0].why);
		netprobe__close(p);
		return -ENOTSUP;
	}
	ret = load_attach(p, o, err, errlen);
	if (ret) {
		netprobe__close(p);
		return ret;
	}
done:
	for (int i = 0; i < FT_PROBE_MAX; i++) {
		if (!(p->deferred & (1ull << i)))
			continue;
		if (p->chosen[i] < 0) {
			p->deferred &= ~(1ull << i); /* no variant works: st[i].why says why */
			continue;
		}
		snprintf(p->st[i].why, sizeof(p->st[i].why), "attached in post-windows only (--post-probes)");
	}
	if (o->verbose && tx_note[0])
		fprintf(stderr, "fabtrace: transmit bins on %s\n", tx_note);
	p->cov_mode = o->coverage;
	netp_open_counters(p);
	*out = p;
	return 0;
}

const struct probe_status *netprobe__status(const struct netprobe *p)
{
	return p->st;
}

uint64_t netprobe__mask(const struct netprobe *p)
{
	uint64_t m = 0;

	for (int i = 0; i < FT_PROBE_MAX; i++)
		if (netp_hook_on(p, i))
			m |= 1ull << i;
	return m;
}

int netprobe__poll(struct netprobe *p, int timeout_ms)
{
	int n = timeout_ms ? ring_buffer__poll(p->rb, timeout_ms) : ring_buffer__consume(p->rb);

	if (p->cb_err)
		return p->cb_err;
	return n == -EINTR ? 0 : n;
}

int netprobe__epoll_fd(const struct netprobe *p)
{
	return ring_buffer__epoll_fd(p->rb);
}

void netprobe__detach(struct netprobe *p)
{
	netp_hold_timers(p, NETP_TIMERS_STOP); /* the stop's flush reads the stages */
	/* the coverage window ends here: read the counters before the links go */
	for (int i = 0; i < FT_PROBE_MAX; i++)
		if (netp_hook_on(p, i) && p->cov_attached[i]) {
			netp_take_coverage(p);
			break;
		}
	for (int i = 0; i < FT_PROBE_MAX; i++)
		detach_hook(p, i);
}

uint64_t netprobe__deferred(const struct netprobe *p)
{
	return p->deferred;
}

void netprobe__timers(const struct netprobe *p, struct netprobe_timers *out)
{
	*out = (struct netprobe_timers){0};
	if (!p || !p->net || !p->net->bss)
		return;
	out->err = p->net->bss->stage_timer_err;
	out->unpinned = p->net->bss->stage_timer_unpinned;
	out->strays = p->net->bss->stage_timer_strays;
}

int netprobe__set_deferred(struct netprobe *p, bool on, char *err, size_t errlen)
{
	const uint64_t qdisc = (1ull << FT_PROBE_QDISC_ENQ) | (1ull << FT_PROBE_QDISC_DEQ);
	int ret = 0;

	/* the hits counted from after the attach to before the detach: a skip
	 * at either edge is missed rather than a hit without a program counted */
	for (int i = 0; on && i < FT_PROBE_MAX && !ret; i++)
		if ((p->deferred & (1ull << i)) && !netp_hook_on(p, i)) {
			ret = attach_hook(p, i, true, err, errlen); /* interfaces may have gone since the start */
			if (!ret)
				netp_coverage_window(p, i, true);
		}
	if (on && !ret)
		return 0;
	for (int i = 0; i < FT_PROBE_MAX; i++)
		if (p->deferred & (1ull << i)) {
			netp_coverage_window(p, i, false);
			detach_hook(p, i);
		}
	if (on)
		return ret;
	/* what they wrote, then what they left open; the timers held first, so
	 * that none writes a bin of theirs after the poll (it would land past
	 * the post-window's end, in a later segment) */
	netp_hold_timers(p, NETP_TIMERS_PAUSE);
	ret = netprobe__poll(p, 0);
	if (ret >= 0 && (p->deferred & qdisc))
		ret = netp_flush_qdisc(p);
	netp_hold_timers(p, NETP_TIMERS_RUN);
	if (ret < 0)
		snprintf(err, errlen, "handing on the detached probes' bins: %s", strerror(-ret));
	return ret < 0 ? ret : 0;
}

void netprobe__close(struct netprobe *p)
{
	if (!p)
		return;
	unload(p);
	free(p->slots);
	free(p);
}

