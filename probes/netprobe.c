// SPDX-License-Identifier: GPL-2.0-or-later
/* Load, attach and drain the kernel network probes (see netprobe.h). */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "net.skel.h"
#include "tcp.skel.h"
#include "bpf/net.h"
#include "probes/coverage.h"
#include "probes/bpflog.h"
#include "probes/netns.h"
#include "probes/netprobe.h"
#include "probes/probe_names.h"
#include "probes/recursion_misses.h"
#include "probes/tcx.h"
#include "lib/util.h"

enum obj_id { OBJ_NET, OBJ_TCP, OBJ_MAX };

/* Every hook, with its variants in order of preference. */
static const struct hook {
	enum ft_probe_id id;       /* its name: probe__name() */
	const char *tracepoint;
	const char *system;        /* tracefs event system of the tracepoint */
	enum obj_id obj;
	const char *progs[3];
	const char *kinds[3];
} hooks[FT_PROBE_MAX] = {
	{ FT_PROBE_IFACE_TX, "net_dev_start_xmit", "net", OBJ_NET,
	  { "iface_tx_btf", "iface_tx_raw" }, { "tp_btf", "raw_tp" } },
	{ FT_PROBE_IFACE_RX, "netif_receive_skb", "net", OBJ_NET,
	  { "iface_rx_tcx", "iface_rx_btf", "iface_rx_raw" }, { "tcx", "tp_btf", "raw_tp" } },
	{ FT_PROBE_QDISC_ENQ, "qdisc_enqueue", "qdisc", OBJ_NET,
	  { "qdisc_enq_btf", "qdisc_enq_raw" }, { "tp_btf", "raw_tp" } },
	{ FT_PROBE_QDISC_DEQ, "qdisc_dequeue", "qdisc", OBJ_NET,
	  { "qdisc_deq_btf", "qdisc_deq_raw" }, { "tp_btf", "raw_tp" } },
	{ FT_PROBE_DROP, "kfree_skb", "skb", OBJ_NET,
	  { "drop_btf", "drop_raw" }, { "tp_btf", "raw_tp" } },
	{ FT_PROBE_RETRANS, "tcp_retransmit_skb", "tcp", OBJ_TCP,
	  { "retrans_err_btf", "retrans_btf", "retrans_raw" }, { "tp_btf", "tp_btf", "raw_tp" } },
	{ FT_PROBE_CONG_STATE, "tcp_cong_state_set", "tcp", OBJ_TCP,
	  { "cong_state_btf", "cong_state_raw" }, { "tp_btf", "raw_tp" } },
	{ FT_PROBE_TCP_SAMPLE, "tcp_probe", "tcp", OBJ_TCP,
	  { "tcp_sample_btf", "tcp_sample_raw" }, { "tp_btf", "raw_tp" } },
};

/*
 * Families, with their cost on the attribution benchmark's path (veth,
 * iperf3 at MTU size, 2 vCPUs, kernel 6.18, bpf_stats on): the programs'
 * run time per tx packet of the traced interface.  Keep in step with
 * docs/performance.md (section 0) when the programs change.
 */
const struct probe_family netprobe_families[] = {
	{ "bins", (1ull << FT_PROBE_IFACE_TX) | (1ull << FT_PROBE_IFACE_RX),
	  "bytes, packets and CE marks per interface, direction and bin (iface_tx, iface_rx)",
	  "~110 ns per packet with -i (2 tx runs of ~50 ns; rx: tcx on the -i interfaces only), "
	  "~200 ns without (+ 2 rx runs of ~45 ns)" },
	{ "qdisc", (1ull << FT_PROBE_QDISC_ENQ) | (1ull << FT_PROBE_QDISC_DEQ),
	  "queue depth, sojourn time and qdisc drops per bin (qdisc_enqueue, qdisc_dequeue)",
	  "~60 ns per dequeue, ~120-150 ns per enqueue (packets that bypass an empty qdisc: none)" },
	{ "drops", 1ull << FT_PROBE_DROP, "every dropped packet with its reason (drop)",
	  "~0.1-0.5 us per dropped packet (the hook runs for drops only)" },
	{ "tcp", (1ull << FT_PROBE_RETRANS) | (1ull << FT_PROBE_CONG_STATE) | (1ull << FT_PROBE_TCP_SAMPLE),
	  "retransmits, congestion-state changes, RTT/cwnd samples (retransmit, cong_state, tcp_sample)",
	  "~40 ns per packet: tcp_sample runs ~40 ns per received segment; retransmits ~0.2-0.5 us each" },
	{ "rtt", 1ull << FT_PROBE_TCP_SAMPLE, "RTT/cwnd samples only (tcp_sample)",
	  "~40 ns per packet (one run of ~40 ns per received segment)" },
};
const int netprobe_n_families = (int)(sizeof(netprobe_families) / sizeof(netprobe_families[0]));

int netprobe__parse_families(const char *list, uint64_t *mask)
{
	char buf[256], *save = NULL, *t;

	*mask = 0;
	if (!list || strlen(list) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, list);
	for (t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int probe = probe__id(t);
		bool found = false;

		for (int i = 0; i < netprobe_n_families && !found; i++)
			if (!strcmp(t, netprobe_families[i].name)) {
				*mask |= netprobe_families[i].mask;
				found = true;
			}
		if (!found && probe < 0)
			return -EINVAL;
		if (!found)
			*mask |= 1ull << probe;
	}
	return *mask ? 0 : -EINVAL;
}

const char *netprobe__families_help(void)
{
	return "bins, qdisc, drops, tcp, rtt, or probe names (fabtrace features)";
}

struct netprobe {
	struct net_bpf *net;
	struct tcp_bpf *tcp;
	struct ring_buffer *rb;
	struct bpf_link *links[FT_PROBE_MAX];
	int *tcx_fds;                      /* [n_slots] tcx links of a tcx variant, -1 = none */
	int tcx_hook;                      /* the hook they serve, -1 = none */
	int chosen[FT_PROBE_MAX];          /* variant index, -1 = none */
	struct probe_status st[FT_PROBE_MAX];
	netprobe_sample_fn fn;
	void *ctx;
	int ncpus;
	uint32_t (*slots)[2];              /* (netns, ifindex) of each slot (-i), for the flush */
	int n_slots;
	int cb_err;
	/* coverage: tracepoint hits (perf) against program runs (`runs` maps) */
	struct tp_counter hits[FT_PROBE_MAX];
	bool cov_attached[FT_PROBE_MAX];   /* counted: the hook was attached */
	bool cov_taken;                    /* cov_* below hold the final reading */
	bool cov_misses;                   /* hits = runs + the kernel's recursion_misses */
	bool cov_pid1;                     /* ... + the hits in PID 1's threads (hits[] count those) */
	int cov_mode;                      /* enum netprobe_coverage */
	bool cov_known[FT_PROBE_MAX];
	uint64_t cov_hits[FT_PROBE_MAX], cov_runs[FT_PROBE_MAX];
};

/* ---- objects: thin wrappers so hook code is not written twice per skeleton */

struct obj {
	enum obj_id id;
	void *skel;
	struct bpf_object *o;
};

static int obj_open(struct obj *ob, enum obj_id id)
{
	ob->id = id;
	if (id == OBJ_NET) {
		struct net_bpf *s = net_bpf__open();

		ob->skel = s;
		ob->o = s ? s->obj : NULL;
	} else {
		struct tcp_bpf *s = tcp_bpf__open();

		ob->skel = s;
		ob->o = s ? s->obj : NULL;
	}
	return ob->o ? 0 : -errno;
}

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

static void obj_destroy(struct obj *ob)
{
	if (!ob->skel)
		return;
	if (ob->id == OBJ_NET)
		net_bpf__destroy(ob->skel);
	else
		tcp_bpf__destroy(ob->skel);
	ob->skel = NULL;
	ob->o = NULL;
}

static struct bpf_map *obj_map(struct obj *ob, const char *name)
{
	return bpf_object__find_map_by_name(ob->o, name);
}

static void autoload_none(struct obj *ob)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, ob->o)
		bpf_program__set_autoload(prog, false);
}

/*
 * tcx: a variant attached to each chosen interface (-i) rather than to a
 * tracepoint, so that other interfaces cost nothing (kernel 6.6+).  Only
 * with -i; without it the next variant (the tracepoint) is used.
 */
static bool variant_is_tcx(const struct hook *h, int v)
{
	return v >= 0 && v < 3 && h->kinds[v] && !strcmp(h->kinds[v], "tcx");
}

struct tcx_job {
	int prog_fd;
	uint32_t ifindex;
	int fd;
};

/* netns__run_in() callback: attach inside the interface's namespace */
static int tcx_attach_job(void *arg)
{
	struct tcx_job *j = arg;

	j->fd = tcx_attach_ingress(j->prog_fd, j->ifindex);
	return j->fd < 0 ? j->fd : 0;
}

/* Load and attach one variant alone; 0 if it works here. */
static int try_variant(const struct hook *h, int v, char *why, size_t whylen)
{
	struct obj ob = {0};
	struct bpf_program *prog;
	struct bpf_link *link;
	int err;

	bpflog__clear();
	err = obj_open(&ob, h->obj);
	if (err) {
		snprintf(why, whylen, "open: %s", strerror(-err));
		return err;
	}
	autoload_none(&ob);
	prog = bpf_object__find_program_by_name(ob.o, h->progs[v]);
	bpf_program__set_autoload(prog, true);
	bpf_map__set_max_entries(obj_map(&ob, "events"), 4096 * 4);
	err = bpf_object__load(ob.o);
	if (err) {
		snprintf(why, whylen, "%s load: %s%s%s", h->kinds[v], strerror(-err),
			 bpflog__sep(), bpflog__last());
		goto out;
	}
	if (variant_is_tcx(h, v)) { /* tried on the loopback device: it passes every packet on */
		int fd = tcx_attach_ingress(bpf_program__fd(prog), 1);

		if (fd < 0) {
			err = fd;
			snprintf(why, whylen, "%s attach: %s (kernel before 6.6?)", h->kinds[v], strerror(-err));
			goto out;
		}
		close(fd);
		goto out;
	}
	link = bpf_program__attach(prog);
	if (!link) {
		err = -errno;
		snprintf(why, whylen, "%s attach: %s%s%s", h->kinds[v], strerror(-err),
			 bpflog__sep(), bpflog__last());
		goto out;
	}
	bpf_link__destroy(link);
out:
	obj_destroy(&ob);
	return err;
}

/*
 * Pick the first variant of each hook that loads and attaches alone.
 * FABTRACE_VARIANTS=raw_tp (or tp_btf) restricts the choice to one kind, so
 * tests can exercise the fallbacks that older kernels in the fleet need.
 */
static void choose_variants(int chosen[FT_PROBE_MAX], struct probe_status st[FT_PROBE_MAX], uint64_t skip,
			    bool ifaces)
{
	const char *only = getenv("FABTRACE_VARIANTS");

	for (int i = 0; i < FT_PROBE_MAX; i++) {
		const struct hook *h = &hooks[i];

		chosen[i] = -1;
		st[i] = (struct probe_status){ .id = h->id, .name = probe__name(h->id), .tracepoint = h->tracepoint };
		if (skip & (1ull << i)) {
			snprintf(st[i].why, sizeof(st[i].why), "left out (--no-probes)");
			continue;
		}
		for (int v = 0; v < 3 && h->progs[v]; v++) {
			char why[160];

			if (only && *only && strcmp(only, h->kinds[v]) != 0)
				continue;
			if (variant_is_tcx(h, v) && !ifaces)
				continue;
			if (try_variant(h, v, why, sizeof(why)) == 0) {
				chosen[i] = v;
				st[i].variant = h->kinds[v];
				st[i].why[0] = 0;
				break;
			}
			/* keep the reason of the most preferred variant that failed */
			if (!st[i].why[0])
				str_copy(st[i].why, why, sizeof(st[i].why));
		}
		if (chosen[i] < 0 && !st[i].why[0])
			snprintf(st[i].why, sizeof(st[i].why), "no %s variant (FABTRACE_VARIANTS)", only);
	}
}

int netprobe__probe_features(struct probe_status st[FT_PROBE_MAX], bool verbose)
{
	int chosen[FT_PROBE_MAX];

	bpflog__init(verbose);
	choose_variants(chosen, st, 0, true);
	for (int i = 0; i < FT_PROBE_MAX; i++) {
		int alt[FT_PROBE_MAX];
		struct probe_status ast[FT_PROBE_MAX];

		if (!variant_is_tcx(&hooks[i], chosen[i]))
			continue;
		/* what the hook uses without -i: the variants after tcx */
		choose_variants(alt, ast, ~(1ull << i), false);
		snprintf(st[i].note, sizeof(st[i].note), "on the -i interfaces only; without -i: %s",
			 ast[i].variant ? ast[i].variant : "none works");
	}
	return 0;
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

static void set_filters(struct obj *ob, const struct netprobe_opts *o)
{
	__u32 wake = (__u32)netprobe__wake_for(o->wake_bytes, obj_ring(ob->id, o));

	if (ob->id == OBJ_NET) {
		struct net_bpf *s = ob->skel;

		s->rodata->targ_bin_ns = o->bin_ns;
		s->rodata->targ_batch = o->batch_bins && o->batch_bins <= FT_BATCH ? o->batch_bins : FT_BATCH;
		s->rodata->targ_netns = o->netns;
		s->rodata->targ_filter_ifaces = o->n_ifaces > 0;
		s->rodata->targ_wake_bytes = wake;
	} else {
		struct tcp_bpf *s = ob->skel;

		s->rodata->targ_sample_ns = o->sample_ns;
		s->rodata->targ_tick_ns = tick_ns();
		s->rodata->targ_netns = o->netns;
		s->rodata->targ_filter_ifaces = o->n_ifaces > 0;
		s->rodata->targ_wake_bytes = wake;
	}
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
	for (int i = 0; i < n && !ret; i++) {
		struct if_bucket *b = &tab[ft_if_bucket(ifaces[i][0], ifaces[i][1])];
		int w = 0;

		while (w < FT_IF_WAYS && b->w[w].netns &&
		       !(b->w[w].netns == ifaces[i][0] && b->w[w].ifindex == ifaces[i][1]))
			w++;
		if (w == FT_IF_WAYS) {
			snprintf(err, errlen, "interface filter: more than %d of the chosen interfaces "
				 "share a table bucket; choose fewer (or none: all interfaces)", FT_IF_WAYS);
			ret = -E2BIG;
		} else if (!b->w[w].netns) {
			b->w[w] = (struct if_way){ .netns = ifaces[i][0], .ifindex = ifaces[i][1],
						   .slot = (__u32)i };
		}
	}
	for (__u32 k = 0; k < FT_IF_BUCKETS && !ret; k++)
		if (bpf_map_update_elem(fd, &k, &tab[k], BPF_ANY)) {
			ret = -errno;
			snprintf(err, errlen, "interface filter map: %s", strerror(-ret));
		}
	free(tab);
	return ret;
}

/* Attach hook i's tcx variant PROG to every chosen interface, each in its netns. */
static int attach_tcx(struct netprobe *p, int i, const struct bpf_program *prog,
		      const struct netprobe_opts *o, char *err, size_t errlen)
{
	p->tcx_fds = malloc((size_t)p->n_slots * sizeof(*p->tcx_fds));
	if (!p->tcx_fds)
		return -ENOMEM;
	p->tcx_hook = i;
	p->st[i].tracepoint = "ingress"; /* the capture's hook: tcx/ingress */
	for (int s = 0; s < p->n_slots; s++)
		p->tcx_fds[s] = -1;
	for (int s = 0; s < p->n_slots; s++) {
		struct tcx_job j = { bpf_program__fd(prog), p->slots[s][1], INT_MIN };
		int ret = netns__run_in(o->iface_ns ? o->iface_ns[s] : NULL, tcx_attach_job, &j, err, errlen);

		if (j.fd >= 0)
			p->tcx_fds[s] = j.fd;
		if (!ret)
			continue;
		if (j.fd < 0 && j.fd != INT_MIN) /* else err says why the netns failed */
			snprintf(err, errlen, "attaching tcx (%s) to interface index %u: %s",
				 probe__name(hooks[i].id), p->slots[s][1], strerror(-ret));
		return ret;
	}
	return 0;
}

/* Whether hook i is attached, to its tracepoint or to the chosen interfaces. */
static bool hook_on(const struct netprobe *p, int i)
{
	return p->links[i] || p->tcx_hook == i;
}

/* Load the objects the chosen variants need, then attach them all. */
static int load_attach(struct netprobe *p, const struct netprobe_opts *o, char *err, size_t errlen)
{
	struct obj obs[OBJ_MAX] = {0};
	int ret = 0, used[OBJ_MAX] = {0};

	for (int i = 0; i < FT_PROBE_MAX; i++)
		if (p->chosen[i] >= 0)
			used[hooks[i].obj] = 1;
	for (int id = 0; id < OBJ_MAX && !ret; id++) {
		int fd;

		if (!used[id])
			continue;
		ret = obj_open(&obs[id], id);
		if (ret) {
			snprintf(err, errlen, "opening BPF object: %s", strerror(-ret));
			break;
		}
		if (id == OBJ_NET)
			p->net = obs[id].skel;
		else
			p->tcp = obs[id].skel;
		autoload_none(&obs[id]);
		for (int i = 0; i < FT_PROBE_MAX; i++)
			if (hooks[i].obj == (enum obj_id)id && p->chosen[i] >= 0)
				bpf_program__set_autoload(bpf_object__find_program_by_name(
					obs[id].o, hooks[i].progs[p->chosen[i]]), true);
		set_filters(&obs[id], o);
		bpf_map__set_max_entries(obj_map(&obs[id], "events"), (__u32)obj_ring((enum obj_id)id, o));
		bpflog__clear();
		ret = bpf_object__load(obs[id].o);
		if (ret) {
			snprintf(err, errlen, "loading BPF programs: %s%s%s", strerror(-ret),
				 bpflog__sep(), bpflog__last());
			break;
		}
		ret = netprobe__fill_iftab(bpf_map__fd(obj_map(&obs[id], "targ_iftab")), o->ifaces,
					   o->n_ifaces, err, errlen);
		if (ret)
			break;
		fd = bpf_map__fd(obj_map(&obs[id], "events"));
		if (!p->rb) {
			p->rb = ring_buffer__new(fd, on_sample, p, NULL);
			ret = p->rb ? 0 : -errno;
		} else {
			ret = ring_buffer__add(p->rb, fd, on_sample, p);
		}
		if (ret)
			snprintf(err, errlen, "ring buffer: %s", strerror(-ret));
	}
	for (int i = 0; i < FT_PROBE_MAX && !ret; i++) {
		struct bpf_object *bo = obs[hooks[i].obj].o;

		if (p->chosen[i] < 0)
			continue;
		if (variant_is_tcx(&hooks[i], p->chosen[i])) {
			ret = attach_tcx(p, i, bpf_object__find_program_by_name(bo, hooks[i].progs[p->chosen[i]]),
					 o, err, errlen);
			continue;
		}
		p->links[i] = bpf_program__attach(bpf_object__find_program_by_name(
			bo, hooks[i].progs[p->chosen[i]]));
		if (!p->links[i]) {
			ret = -errno;
			snprintf(err, errlen, "attaching %s to %s: %s", hooks[i].kinds[p->chosen[i]],
				 hooks[i].tracepoint, strerror(-ret));
		}
	}
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

/*
 * ---- coverage: tracepoint hits against program runs.
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

/* Recursion misses of the program attached to hook i, or -errno. */
static int64_t prog_misses(struct netprobe *p, int i)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);
	struct bpf_program *prog;
	struct bpf_object *o = hooks[i].obj == OBJ_NET ? (p->net ? p->net->obj : NULL)
						      : (p->tcp ? p->tcp->obj : NULL);

	if (!o || p->chosen[i] < 0)
		return -ENOENT;
	prog = bpf_object__find_program_by_name(o, hooks[i].progs[p->chosen[i]]);
	memset(&info, 0, sizeof(info));
	if (!prog || bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len))
		return -ENOENT;
	return (int64_t)info.recursion_misses;
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
	if (p->cov_pid1 && (err = coverage__read(&p->hits[i], &pid1)))
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

static void open_counters(struct netprobe *p)
{
	int mode = p->cov_mode == NP_COV_AUTO ? netprobe__coverage_auto(NULL, 0) : p->cov_mode;

	p->cov_mode = mode; /* what is used, for netprobe__coverage_mode() */

	p->cov_pid1 = mode == NP_COV_PID1;
	p->cov_misses = mode == NP_COV_KERNEL || p->cov_pid1;
	for (int i = 0; i < FT_PROBE_MAX; i++) {
		if (!hook_on(p, i))
			continue;
		p->cov_attached[i] = true;
		p->st[i].cov_why[0] = 0;
		if (p->tcx_hook == i)
			continue; /* nothing skips a tcx program: its hits are its runs */
		if (p->cov_pid1)
			coverage__open_tgid(&p->hits[i], hooks[i].system, hooks[i].tracepoint, 1,
					    p->st[i].cov_why, sizeof(p->st[i].cov_why));
		else if (!p->cov_misses)
			coverage__open(&p->hits[i], hooks[i].system, hooks[i].tracepoint, p->ncpus,
				       p->st[i].cov_why, sizeof(p->st[i].cov_why));
	}
}

/* Nothing skips a tcx program: its hook's hits are its runs. */
static void tcx_hits(const struct netprobe *p, bool known[FT_PROBE_MAX], uint64_t hits[FT_PROBE_MAX],
		     const uint64_t runs[FT_PROBE_MAX])
{
	if (p->tcx_hook >= 0 && p->cov_attached[p->tcx_hook]) {
		known[p->tcx_hook] = true;
		hits[p->tcx_hook] = runs[p->tcx_hook];
	}
}

/* Program runs per hook, summed over CPUs, from one object's `runs` map. */
static void read_runs(struct netprobe *p, struct bpf_map *m, enum obj_id obj, uint64_t *v)
{
	for (__u32 i = 0; i < FT_PROBE_MAX; i++) {
		if (!p->cov_attached[i] || hooks[i].obj != obj)
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
 * both cover the window from open_counters() to now.  Reading hits first
 * leaves in-flight runs on the "more runs" side, which the report clamps.
 */
static void take_coverage(struct netprobe *p)
{
	uint64_t *v;

	if (p->cov_taken)
		return;
	if (!p->cov_misses)
		for (int i = 0; i < FT_PROBE_MAX; i++)
			if (p->cov_attached[i])
				p->cov_known[i] = coverage__read(&p->hits[i], &p->cov_hits[i]) == 0;
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
			known[i] = p->cov_attached[i] && coverage__read(&p->hits[i], &hits[i]) == 0;
	v = calloc((size_t)p->ncpus, sizeof(*v));
	if (!v)
		return -ENOMEM;
	/* read_runs() fills cov_runs; the final reading (take_coverage) reads them again */
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
	take_coverage(p);
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

int netprobe__open(struct netprobe **out, const struct netprobe_opts *o,
		   netprobe_sample_fn fn, void *ctx, char *err, size_t errlen)
{
	struct netprobe *p = calloc(1, sizeof(*p));
	bool any = false;
	int ret;

	if (!p)
		return -ENOMEM;
	bpflog__init(o->verbose);
	p->fn = fn;
	p->ctx = ctx;
	p->tcx_hook = -1;
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
	if ((o->skip & ((1ull << FT_PROBE_MAX) - 1)) == (1ull << FT_PROBE_MAX) - 1) {
		snprintf(err, errlen, "--no-probes leaves out every network probe; keep at least one");
		netprobe__close(p);
		return -EINVAL;
	}
	/* Fast path: the preferred variant of every hook, in one load per object.
	 * Trying hooks one by one costs a BTF parse each, so only on failure. */
	if (!getenv("FABTRACE_VARIANTS")) {
		for (int i = 0; i < FT_PROBE_MAX; i++) {
			bool skip = o->skip & (1ull << i);
			int v = variant_is_tcx(&hooks[i], 0) && o->n_ifaces <= 0; /* tcx needs -i */

			p->chosen[i] = skip ? -1 : v;
			p->st[i] = (struct probe_status){ .id = hooks[i].id, .name = probe__name(hooks[i].id),
				.tracepoint = hooks[i].tracepoint, .variant = skip ? NULL : hooks[i].kinds[v] };
			if (skip)
				snprintf(p->st[i].why, sizeof(p->st[i].why), "left out (--no-probes)");
		}
		if (load_attach(p, o, err, errlen) == 0)
			goto done;
		unload(p);
	}
	choose_variants(p->chosen, p->st, o->skip, o->n_ifaces > 0);
	for (int i = 0; i < FT_PROBE_MAX; i++)
		any |= p->chosen[i] >= 0;
	if (!any) {
		snprintf(err, errlen, "no network probe works on this kernel (%s: %s); "
			 "run 'fabtrace features' for details", hooks[0].tracepoint, p->st[0].why);
		netprobe__close(p);
		return -ENOTSUP;
	}
	ret = load_attach(p, o, err, errlen);
	if (ret) {
		netprobe__close(p);
		return ret;
	}
done:
	p->cov_mode = o->coverage;
	open_counters(p);
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
		if (hook_on(p, i))
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
	/* the coverage window ends here: read the counters before the links go */
	for (int i = 0; i < FT_PROBE_MAX; i++)
		if (hook_on(p, i) && p->cov_attached[i]) {
			take_coverage(p);
			break;
		}
	for (int i = 0; i < FT_PROBE_MAX; i++) {
		bpf_link__destroy(p->links[i]);
		p->links[i] = NULL;
	}
	for (int s = 0; p->tcx_fds && s < p->n_slots; s++)
		if (p->tcx_fds[s] >= 0)
			close(p->tcx_fds[s]);
	free(p->tcx_fds);
	p->tcx_fds = NULL;
	p->tcx_hook = -1;
}

/* Walk a per-CPU hash map: fn(key, per-CPU values) for each entry. */
static int percpu_walk(int fd, size_t ksz, size_t vsz, int ncpus,
		       int (*fn)(struct netprobe *, const void *, const void *, void *),
		       struct netprobe *p, void *arg)
{
	size_t vstride = (vsz + 7) & ~(size_t)7;
	char key[64], next[64];
	void *vals = calloc(ncpus, vstride);
	void *prev = NULL;
	int ret = 0;

	if (!vals)
		return -ENOMEM;
	while (bpf_map_get_next_key(fd, prev, next) == 0) {
		memcpy(key, next, ksz);
		prev = key;
		if (bpf_map_lookup_elem(fd, key, vals))
			continue; /* deleted meanwhile */
		ret = fn(p, key, vals, arg);
		if (ret)
			break;
	}
	free(vals);
	return ret;
}

static int flush_iface(struct netprobe *p, const void *key, const void *vals, void *arg)
{
	const struct bin_key *k = key;

	(void)arg;
	for (int c = 0; c < p->ncpus; c++) {
		const struct bin_acc *a = (const struct bin_acc *)((const char *)vals + c * sizeof(*a));
		struct ft_iface_bin r = {
			.hdr = { FT_REC_IFACE_BIN, sizeof(r), (__u32)c },
			.start_ns = a->start_ns, .bytes = a->bytes, .pkts = a->pkts,
			.ce_pkts = a->ce_pkts, .netns = k->netns, .ifindex = k->ifindex,
			.dir = (__u8)k->dir,
		};

		if (a->pkts && p->fn(p->ctx, &r.hdr) < 0)
			return -EIO;
	}
	return 0;
}

static int flush_qdisc_one(struct netprobe *p, const struct qdisc_key *k, const struct qdisc_acc *a,
			   int c)
{
	struct ft_qdisc_bin r = {
		.hdr = { FT_REC_QDISC_BIN, sizeof(r), (__u32)c },
		.start_ns = a->start_ns, .max_backlog = a->max_backlog,
		.enq_bytes = a->enq_bytes, .sojourn_sum_ns = a->sojourn_sum_ns,
		.sojourn_max_ns = a->sojourn_max_ns, .sojourn_cnt = a->sojourn_cnt,
		.max_qlen = a->max_qlen, .enq_pkts = a->enq_pkts, .drops = a->drops,
		.netns = k->netns, .ifindex = k->ifindex, .handle = k->handle,
		.parent = a->parent,
	};

	memcpy(r.kind, a->kind, sizeof(r.kind));
	if ((a->enq_pkts || a->sojourn_cnt) && p->fn(p->ctx, &r.hdr) < 0)
		return -EIO;
	return 0;
}

static int flush_qdisc(struct netprobe *p, const void *key, const void *vals, void *arg)
{
	(void)arg;
	for (int c = 0; c < p->ncpus; c++)
		if (flush_qdisc_one(p, key, (const struct qdisc_acc *)((const char *)vals +
								     c * sizeof(struct qdisc_acc)), c))
			return -EIO;
	return 0;
}

/* The open bins of the chosen interfaces (slot_bins, slot_qdisc). */
static int flush_slots(struct netprobe *p)
{
	size_t vsz = sizeof(struct qdisc_acc) > sizeof(struct bin_acc) ? sizeof(struct qdisc_acc)
									: sizeof(struct bin_acc);
	void *vals = calloc((size_t)p->ncpus, vsz);
	int ret = 0;

	if (!vals)
		return -ENOMEM;
	for (int s = 0; s < p->n_slots && !ret; s++) {
		struct bin_key bk = { .netns = p->slots[s][0], .ifindex = p->slots[s][1] };

		for (__u32 dir = 0; dir < 2 && !ret; dir++) {
			__u32 idx = (__u32)s * 2 + dir;

			bk.dir = dir;
			if (bpf_map_lookup_elem(bpf_map__fd(p->net->maps.slot_bins), &idx, vals) == 0)
				ret = flush_iface(p, &bk, vals, NULL);
		}
		for (__u32 w = 0; w < FT_QDISC_WAYS && !ret; w++) {
			__u32 idx = (__u32)s * FT_QDISC_WAYS + w;

			if (bpf_map_lookup_elem(bpf_map__fd(p->net->maps.slot_qdisc), &idx, vals))
				continue;
			/* each CPU's entry names its own qdisc (ways are claimed per CPU) */
			for (int c = 0; c < p->ncpus && !ret; c++) {
				const struct qdisc_acc *a = (const struct qdisc_acc *)((const char *)vals +
										       c * sizeof(*a));
				struct qdisc_key qk = { .netns = bk.netns, .ifindex = bk.ifindex,
							.handle = a->handle };

				if (a->kind[0])
					ret = flush_qdisc_one(p, &qk, a, c);
			}
		}
	}
	free(vals);
	return ret;
}

/* Closed bins still staged for a batch (iface_stage, qdisc_stage), per CPU. */
static int flush_stages(struct netprobe *p)
{
	_Static_assert(sizeof(struct iface_stage) % 8 == 0, "per-CPU value stride");
	_Static_assert(sizeof(struct qdisc_stage) % 8 == 0, "per-CPU value stride");
	struct qdisc_stage *vals = calloc((size_t)p->ncpus, sizeof(*vals));
	int ret = 0;

	if (!vals)
		return -ENOMEM;
	for (__u32 k = 0; k < 2 && !ret; k++) {
		struct iface_stage *iv = (struct iface_stage *)vals;

		if (bpf_map_lookup_elem(bpf_map__fd(p->net->maps.iface_stage), &k, vals) == 0)
			for (int c = 0; c < p->ncpus && !ret; c++)
				for (__u32 i = 0; i < iv[c].n && i < FT_BATCH && !ret; i++)
					ret = p->fn(p->ctx, &iv[c].b[i].hdr) < 0 ? -EIO : 0;
		if (!ret && bpf_map_lookup_elem(bpf_map__fd(p->net->maps.qdisc_stage), &k, vals) == 0)
			for (int c = 0; c < p->ncpus && !ret; c++)
				for (__u32 i = 0; i < vals[c].n && i < FT_BATCH && !ret; i++)
					ret = p->fn(p->ctx, &vals[c].b[i].hdr) < 0 ? -EIO : 0;
	}
	free(vals);
	return ret;
}

int netprobe__flush_bins(struct netprobe *p)
{
	_Static_assert(sizeof(struct bin_acc) % 8 == 0, "per-CPU value stride");
	_Static_assert(sizeof(struct qdisc_acc) % 8 == 0, "per-CPU value stride");
	int ret;

	if (!p->net)
		return 0;
	ret = flush_stages(p);
	if (!ret)
		ret = percpu_walk(bpf_map__fd(p->net->maps.iface_bins), sizeof(struct bin_key),
				  sizeof(struct bin_acc), p->ncpus, flush_iface, p, NULL);
	if (!ret)
		ret = percpu_walk(bpf_map__fd(p->net->maps.qdisc_bins), sizeof(struct qdisc_key),
				  sizeof(struct qdisc_acc), p->ncpus, flush_qdisc, p, NULL);
	if (!ret)
		ret = flush_slots(p);
	return ret;
}

int netprobe__lost(struct netprobe *p, enum ft_source src, uint64_t *per_cpu, int ncpus)
{
	struct bpf_map *m = NULL;
	__u32 zero = 0;
	uint64_t *v;
	int ret;

	memset(per_cpu, 0, sizeof(*per_cpu) * ncpus);
	if (src == FT_SRC_NET && p->net)
		m = p->net->maps.lost;
	else if (src == FT_SRC_TCP && p->tcp)
		m = p->tcp->maps.lost;
	if (!m)
		return 0;
	v = calloc(p->ncpus, sizeof(*v));
	if (!v)
		return -ENOMEM;
	ret = bpf_map_lookup_elem(bpf_map__fd(m), &zero, v) ? -errno : 0;
	for (int c = 0; !ret && c < p->ncpus && c < ncpus; c++)
		per_cpu[c] = v[c];
	free(v);
	return ret;
}

struct ce_walk {
	netprobe_sample_fn fn;
	void *ctx;
};

static int ce_one(struct netprobe *p, const void *key, const void *vals, void *arg)
{
	const struct ce_walk *w = arg;
	const struct ce_val *v = vals;
	struct ft_ce_flow r = { .hdr = { FT_REC_CE_FLOW, sizeof(r), 0 } };

	memcpy(&r.flow, key, sizeof(r.flow));
	for (int c = 0; c < p->ncpus; c++) {
		if (!v[c].pkts)
			continue;
		r.ce_pkts += v[c].pkts;
		if (!r.first_ns || v[c].first_ns < r.first_ns)
			r.first_ns = v[c].first_ns;
		if (v[c].last_ns > r.last_ns)
			r.last_ns = v[c].last_ns;
	}
	return r.ce_pkts ? w->fn(w->ctx, &r.hdr) : 0;
}

int netprobe__ce_flows(struct netprobe *p, netprobe_sample_fn fn, void *ctx)
{
	struct ce_walk w = { fn, ctx };

	if (!p->net)
		return 0;
	return percpu_walk(bpf_map__fd(p->net->maps.ce_flows), sizeof(struct ft_flow),
			   sizeof(struct ce_val), p->ncpus, ce_one, p, &w);
}

void netprobe__close(struct netprobe *p)
{
	if (!p)
		return;
	unload(p);
	free(p->slots);
	free(p);
}
