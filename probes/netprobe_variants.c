// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The network probes' hooks and their variants (netprobe_priv.h): the
 * table, the families an operator may leave out, the BPF objects, and the
 * choice of a working variant per hook by loading and attaching each alone
 * on this kernel (`features`, and netprobe__open() when the preferred
 * variants fail).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "net.skel.h"
#include "tcp.skel.h"
#include "probes/bpflog.h"
#include "probes/netprobe_priv.h"
#include "probes/probe_names.h"
#include "probes/tcx.h"
#include "lib/util.h"

/*
 * Every hook, with its variants in order of preference.  The transmit bins'
 * tcx egress variant counts, in the always profile, what is offered to the
 * qdisc; in the full profile, with qdisc_dequeue, what leaves it
 * (targ_tx_leave in bpf/net.bpf.c; netprobe__open() says when it may).
 */
const struct netp_hook netp_hooks[FT_PROBE_MAX] = {
	{ FT_PROBE_IFACE_TX, "net_dev_start_xmit", "net", OBJ_NET,
	  { "iface_tx_tcx", "iface_tx_btf", "iface_tx_raw" }, { "tcx", "tp_btf", "raw_tp" } },
	{ FT_PROBE_IFACE_RX, "netif_receive_skb", "net", OBJ_NET,
	  { "iface_rx_tcx", "iface_rx_btf", "iface_rx_raw" }, { "tcx", "tp_btf", "raw_tp" } },
	{ FT_PROBE_QDISC_ENQ, "qdisc_enqueue", "qdisc", OBJ_NET,
	  { "qdisc_enq_btf", "qdisc_enq_raw" }, { "tp_btf", "raw_tp" } },
	{ FT_PROBE_QDISC_DEQ, "qdisc_dequeue", "qdisc", OBJ_NET,
	  { "qdisc_deq_btf", "qdisc_deq_raw" }, { "tp_btf", "raw_tp" } },
	{ FT_PROBE_DROP, "kfree_skb", "skb", OBJ_NET,
	  { "drop_sk_btf", "drop_btf", "drop_raw" }, { "tp_btf", "tp_btf", "raw_tp" } },
	{ FT_PROBE_RETRANS, "tcp_retransmit_skb", "tcp", OBJ_TCP,
	  { "retrans_err_btf", "retrans_btf", "retrans_err_raw", "retrans_raw" },
	  { "tp_btf", "tp_btf", "raw_tp", "raw_tp" } },
	{ FT_PROBE_CONG_STATE, "tcp_cong_state_set", "tcp", OBJ_TCP,
	  { "cong_state_btf", "cong_state_raw" }, { "tp_btf", "raw_tp" } },
	{ FT_PROBE_TCP_SAMPLE, "tcp_probe", "tcp", OBJ_TCP,
	  { "tcp_sample_tcx", "tcp_sample_btf", "tcp_sample_raw" }, { "tcx", "tp_btf", "raw_tp" } },
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
	  "~25 ns per packet with -i (tcx: ~180 ns per skb sent, ~350 ns per skb received, "
	  "0.03-0.05 skbs per packet; a queued skb bins at its dequeue), "
	  "~200 ns without (2 tx runs of ~50 ns, 2 rx runs of ~45 ns)" },
	{ "qdisc", (1ull << FT_PROBE_QDISC_ENQ) | (1ull << FT_PROBE_QDISC_DEQ),
	  "queue depth, sojourn time and qdisc drops per bin (qdisc_enqueue, qdisc_dequeue)",
	  "~60 ns per dequeue, ~120-150 ns per enqueue (packets that bypass an empty qdisc: none); "
	  "with -i ~150 ns per dequeue, which also bins what leaves" },
	{ "drops", 1ull << FT_PROBE_DROP, "every dropped packet with its reason (drop)",
	  "~0.1-0.5 us per dropped packet (the hook runs for drops only)" },
	{ "tcp", (1ull << FT_PROBE_RETRANS) | (1ull << FT_PROBE_CONG_STATE) | (1ull << FT_PROBE_TCP_SAMPLE),
	  "retransmits, congestion-state changes, RTT/cwnd samples (retransmit, cong_state, tcp_sample)",
	  "~5 ns per packet with -i (tcp_sample: ~150 ns per skb a socket sends through a chosen "
	  "interface), ~40 ns without (~40 ns per received segment); retransmits ~0.2-0.5 us each" },
	{ "rtt", 1ull << FT_PROBE_TCP_SAMPLE, "RTT/cwnd samples only (tcp_sample)",
	  "~5 ns per packet with -i (~150 ns per skb sent), ~40 ns without (per received segment)" },
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

int netp_obj_open(struct netp_obj *ob, enum obj_id id)
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

int netp_obj_load(struct netp_obj *ob)
{
	/* bpf_object__load() alone leaves the skeleton's .bss pointer on a
	 * private copy (libbpf 1.1): writes to it never reached the programs */
	return ob->id == OBJ_NET ? net_bpf__load(ob->skel) : tcp_bpf__load(ob->skel);
}

void netp_obj_destroy(struct netp_obj *ob)
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

struct bpf_map *netp_obj_map(struct netp_obj *ob, const char *name)
{
	return bpf_object__find_map_by_name(ob->o, name);
}

void netp_autoload_none(struct netp_obj *ob)
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
bool netp_variant_is_tcx(const struct netp_hook *h, int v)
{
	return v >= 0 && v < NETP_NVARIANTS && h->kinds[v] && !strcmp(h->kinds[v], "tcx");
}

bool netp_variant_allowed(const struct netp_hook *h, int v, bool tcx)
{
	if (v < 0 || v >= NETP_NVARIANTS || !h->progs[v])
		return false;
	return tcx || !netp_variant_is_tcx(h, v);
}

bool netp_hook_egress(const struct netp_hook *h)
{
	return h->id == FT_PROBE_IFACE_TX || h->id == FT_PROBE_TCP_SAMPLE;
}

/* Load and attach one variant alone; 0 if it works here. */
static int try_variant(const struct netp_hook *h, int v, char *why, size_t whylen)
{
	struct netp_obj ob = {0};
	struct bpf_program *prog;
	struct bpf_link *link;
	int err;

	bpflog__clear();
	err = netp_obj_open(&ob, h->obj);
	if (err) {
		snprintf(why, whylen, "open: %s", strerror(-err));
		return err;
	}
	netp_autoload_none(&ob);
	prog = bpf_object__find_program_by_name(ob.o, h->progs[v]);
	bpf_program__set_autoload(prog, true);
	bpf_map__set_max_entries(netp_obj_map(&ob, "events"), 4096 * 4);
	err = bpf_object__load(ob.o);
	if (err) {
		snprintf(why, whylen, "%s load: %s%s%s", h->kinds[v], strerror(-err),
			 bpflog__sep(), bpflog__last());
		goto out;
	}
	if (netp_variant_is_tcx(h, v)) { /* tried on the loopback device: it passes every packet on */
		int fd = tcx_attach(bpf_program__fd(prog), 1,
				    netp_hook_egress(h) ? FT_BPF_TCX_EGRESS : FT_BPF_TCX_INGRESS);

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
	netp_obj_destroy(&ob);
	return err;
}

/*
 * Pick the first variant of each hook that loads and attaches alone.
 * FABTRACE_VARIANTS=raw_tp (or tp_btf) restricts the choice to one kind, so
 * tests can exercise the fallbacks that older kernels in the fleet need.
 */
void netp_choose_variants(int chosen[FT_PROBE_MAX], struct probe_status st[FT_PROBE_MAX], uint64_t skip,
			  uint64_t tcx_ok)
{
	const char *only = getenv("FABTRACE_VARIANTS");

	for (int i = 0; i < FT_PROBE_MAX; i++) {
		const struct netp_hook *h = &netp_hooks[i];

		chosen[i] = -1;
		st[i] = (struct probe_status){ .id = h->id, .name = probe__name(h->id), .tracepoint = h->tracepoint };
		if (skip & (1ull << i)) {
			snprintf(st[i].why, sizeof(st[i].why), "left out");
			continue;
		}
		for (int v = 0; v < NETP_NVARIANTS && h->progs[v]; v++) {
			char why[160];

			if (only && *only && strcmp(only, h->kinds[v]) != 0)
				continue;
			if (!netp_variant_allowed(h, v, tcx_ok & (1ull << i)))
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
	netp_choose_variants(chosen, st, 0, ~0ull);
	for (int i = 0; i < FT_PROBE_MAX; i++) {
		int alt[FT_PROBE_MAX];
		struct probe_status ast[FT_PROBE_MAX];

		if (!netp_variant_is_tcx(&netp_hooks[i], chosen[i]))
			continue;
		/* what the hook uses without -i: the variants after tcx */
		netp_choose_variants(alt, ast, ~(1ull << i), 0);
		snprintf(st[i].note, sizeof(st[i].note), "on the -i interfaces only%s; without -i: %s",
			 i == FT_PROBE_IFACE_TX ? " (full profile: if no qdisc there may bypass)" : "",
			 ast[i].variant ? ast[i].variant : "none works");
	}
	return 0;
}
