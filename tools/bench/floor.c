// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * floor — attach the empty programs of floor.bpf.c (every hook fabtrace uses)
 * and hold them until SIGINT/SIGTERM.
 *
 *   floor [--uprobe LIB:SYMBOL]... [--uretprobe LIB:SYMBOL]... [--ready FILE]
 *         [--counters | --pid1] [--no-progs] [--tcx IFACE]
 *   floor --minimal IFACE [--ready FILE]
 *
 * Every tp_btf program is attached through a bpf_link; each --uprobe adds an
 * empty uprobe on SYMBOL in LIB, each --uretprobe an empty uretprobe (where
 * fabtrace's phase_entry/phase_exit go: collectives get both, the marker
 * functions only the entry).  Once attached it prints one line per
 * program, "prog ID NAME", then "ready" (and creates --ready FILE), so the
 * bench can match bpf_stats to hooks.  Nothing outlives the process.
 *
 * --counters also opens what fabtrace's coverage check opens: a counting
 * perf event per CPU on each tracepoint of its network probes (the kernel
 * then formats the tracepoint's record on every hit, for the count);
 * --pid1 opens what it opens on a kernel that skips PID 1's context
 * uncounted (--coverage pid1): a counting perf event per thread of PID 1 on
 * each of those tracepoints, which adds the tracepoint's perf hook to every
 * hit but schedules the event only while PID 1 runs.
 * --no-progs attaches no program, so the counters' cost shows alone.
 * --tcx IFACE: what fabtrace uses with -i on kernels with tcx: an empty tcx
 * ingress program on IFACE (of the netns floor runs in) instead of the
 * netif_receive_skb tracepoint (iface_rx), and two empty tcx egress programs
 * instead of net_dev_start_xmit (iface_tx) and tcp_probe (tcp_sample):
 * programs and counters.
 * --minimal IFACE attaches nothing but fl_min_egress and fl_min_ingress, as
 * tcx programs on IFACE: the cheapest per-packet binner (floor.bpf.c).
 *
 *   floor --clock-cost
 *
 * attaches nothing: it runs ck_empty and ck_clock through BPF_PROG_TEST_RUN
 * (alternately, CK_ROUNDS rounds of CK_REPEAT runs) and prints one JSON line,
 * the median ns per run of each: a clock read costs the difference.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "floor.skel.h"
#include "probes/coverage.h"
#include "probes/tcx.h"

#define MAX_LINKS 64
#define CK_ROUNDS 7
#define CK_REPEAT 1000000

/* The tracepoints whose programs fabtrace runs as tcx programs with -i. */
static const char *const tcx_replaces[] = { "netif_receive_skb", "net_dev_start_xmit", "tcp_probe" };

static bool tcx_replaced(const char *tp)
{
	for (size_t i = 0; i < sizeof(tcx_replaces) / sizeof(tcx_replaces[0]); i++)
		if (!strcmp(tp, tcx_replaces[i]))
			return true;
	return false;
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int quiet_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_WARN)
		return vfprintf(stderr, fmt, ap);
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: floor [--uprobe LIB:SYMBOL]... [--uretprobe LIB:SYMBOL]... [--ready FILE]\n"
		   "             [--counters | --pid1] [--no-progs] [--tcx IFACE]\n"
		   "Attach an empty BPF program to every hook fabtrace uses; hold until SIGINT/SIGTERM.\n"
		   "--counters: also a counting perf event per CPU on each network tracepoint\n"
		   "(fabtrace's coverage check); --pid1: per thread of PID 1 instead\n"
		   "(--coverage pid1); --no-progs: no programs; --tcx IFACE: a tcx ingress\n"
		   "program on IFACE instead of the netif_receive_skb tracepoint.\n"
		   "       floor --minimal IFACE [--ready FILE]\n"
		   "Attach only the cheapest per-packet binner: a tcx program on IFACE's egress and\n"
		   "ingress, one clock read and one add per packet.\n"
		   "       floor --clock-cost\n"
		   "Print what one bpf_ktime_get_ns() costs (BPF_PROG_TEST_RUN, one JSON line).\n");
}

/* The tracepoints whose hits fabtrace's coverage check counts (probes/netprobe_coverage.c). */
static const char *const cov_tps[][2] = {
	{ "net", "net_dev_start_xmit" }, { "net", "netif_receive_skb" },
	{ "qdisc", "qdisc_enqueue" },    { "qdisc", "qdisc_dequeue" },
	{ "skb", "kfree_skb" },          { "tcp", "tcp_retransmit_skb" },
	{ "tcp", "tcp_cong_state_set" }, { "tcp", "tcp_probe" },
};
#define N_COV (sizeof(cov_tps) / sizeof(cov_tps[0]))

static void print_prog(const struct bpf_program *p)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(bpf_program__fd(p), &info, &len) == 0)
		printf("prog %u %s\n", info.id, bpf_program__name(p));
}

static int cmp_u32(const void *a, const void *b)
{
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;

	return x < y ? -1 : x > y;
}

/* Print the median ns per run of ck_empty and ck_clock, run alternately;
 * -errno on failure. */
static int clock_cost(struct floor_bpf *skel)
{
	struct bpf_program *progs[2] = { skel->progs.ck_empty, skel->progs.ck_clock };
	__u32 ns[2][CK_ROUNDS];
	char pkt[64] = { 0 };

	for (int r = 0; r < CK_ROUNDS; r++)
		for (int k = 0; k < 2; k++) {
			LIBBPF_OPTS(bpf_test_run_opts, t, .data_in = pkt, .data_size_in = sizeof(pkt),
				    .repeat = CK_REPEAT);

			if (bpf_prog_test_run_opts(bpf_program__fd(progs[k]), &t))
				return -errno;
			ns[k][r] = t.duration;
		}
	for (int k = 0; k < 2; k++)
		qsort(ns[k], CK_ROUNDS, sizeof(ns[k][0]), cmp_u32);
	printf("{\"type\": \"clock\", \"rounds\": %d, \"repeat\": %d, \"empty_ns\": %u, \"clock_ns\": %u}\n",
	       CK_ROUNDS, CK_REPEAT, ns[0][CK_ROUNDS / 2], ns[1][CK_ROUNDS / 2]);
	return 0;
}

int main(int argc, char **argv)
{
	const char *uprobes[16], *ready = NULL, *tcx = NULL, *minimal = NULL;
	int tcx_fd[3] = { -1, -1, -1 }, min_fd[2] = { -1, -1 };
	bool uret[16];
	struct bpf_link *links[MAX_LINKS];
	struct bpf_program *prog;
	struct floor_bpf *skel;
	int nup = 0, nlinks = 0, rc = 1;
	bool counters = false, pid1 = false, progs = true, clock = false;
	struct tp_counter cov[N_COV];

	for (int i = 1; i < argc; i++) {
		if ((!strcmp(argv[i], "--uprobe") || !strcmp(argv[i], "--uretprobe")) && i + 1 < argc &&
		    nup < 16) {
			uret[nup] = !strcmp(argv[i], "--uretprobe");
			uprobes[nup++] = argv[++i];
		} else if (!strcmp(argv[i], "--counters")) {
			counters = true;
		} else if (!strcmp(argv[i], "--pid1")) {
			pid1 = true;
		} else if (!strcmp(argv[i], "--clock-cost")) {
			clock = true;
		} else if (!strcmp(argv[i], "--no-progs")) {
			progs = false;
		} else if (!strcmp(argv[i], "--tcx") && i + 1 < argc) {
			tcx = argv[++i];
		} else if (!strcmp(argv[i], "--minimal") && i + 1 < argc) {
			minimal = argv[++i];
		} else if (!strcmp(argv[i], "--ready") && i + 1 < argc) {
			ready = argv[++i];
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else {
			usage(stderr);
			return 2;
		}
	}
	libbpf_set_print(quiet_print);
	/* blocked until sigsuspend(): a signal between the check and the wait
	 * cannot be missed */
	sigset_t block, old;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &old);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);

	skel = floor_bpf__open();
	if (!skel) {
		fprintf(stderr, "floor: open: %s\n", strerror(errno));
		return 1;
	}
	bpf_object__for_each_program(prog, skel->obj) { /* --clock-cost: its two programs alone */
		bool ck = !strncmp(bpf_program__name(prog), "ck_", 3);
		bool mn = !strncmp(bpf_program__name(prog), "fl_min_", 7);

		bpf_program__set_autoload(prog, ck == clock && (!mn || minimal));
	}
	if (floor_bpf__load(skel)) {
		fprintf(stderr, "floor: load: %s\n", strerror(errno));
		floor_bpf__destroy(skel);
		return 1;
	}
	if (clock) {
		int err = clock_cost(skel);

		if (err)
			fprintf(stderr, "floor: test run: %s\n", strerror(-err));
		floor_bpf__destroy(skel);
		return err ? 1 : 0;
	}
	memset(cov, 0, sizeof(cov));
	for (size_t i = 0; (counters || pid1) && i < N_COV; i++) {
		char why[160];

		if (tcx && tcx_replaced(cov_tps[i][1]))
			continue;
		int err = pid1 ? coverage__open_tgid(&cov[i], cov_tps[i][0], cov_tps[i][1], 1, why, sizeof(why))
			       : coverage__open(&cov[i], cov_tps[i][0], cov_tps[i][1],
						libbpf_num_possible_cpus(), why, sizeof(why));

		if (err) {
			fprintf(stderr, "floor: %s\n", why);
			goto out;
		}
	}
	bpf_object__for_each_program(prog, skel->obj) {
		const char *sec = bpf_program__section_name(prog);

		if (!progs || minimal || strncmp(sec, "tp_btf/", 7) != 0 ||
		    (tcx && tcx_replaced(sec + 7)))
			continue;
		links[nlinks] = bpf_program__attach(prog);
		if (!links[nlinks]) {
			fprintf(stderr, "floor: attach %s: %s\n", sec, strerror(errno));
			goto out;
		}
		nlinks++;
	}
	if (progs && tcx) {
		unsigned ifindex = if_nametoindex(tcx);
		const struct bpf_program *tp[3] = { skel->progs.fl_tcx_ingress, skel->progs.fl_tcx_egress_tx,
						    skel->progs.fl_tcx_egress_rtt };

		for (int k = 0; k < 3; k++) {
			tcx_fd[k] = ifindex ? tcx_attach(bpf_program__fd(tp[k]), ifindex,
							 k ? FT_BPF_TCX_EGRESS : FT_BPF_TCX_INGRESS)
					    : -ENODEV;
			if (tcx_fd[k] < 0) {
				fprintf(stderr, "floor: tcx on %s: %s\n", tcx, strerror(-tcx_fd[k]));
				goto out;
			}
		}
	}
	if (minimal) {
		unsigned ifindex = if_nametoindex(minimal);
		int err = -ENODEV;

		if (ifindex) {
			min_fd[0] = tcx_attach(bpf_program__fd(skel->progs.fl_min_egress), ifindex, FT_BPF_TCX_EGRESS);
			min_fd[1] = tcx_attach(bpf_program__fd(skel->progs.fl_min_ingress), ifindex, FT_BPF_TCX_INGRESS);
			err = min_fd[0] < 0 ? min_fd[0] : min_fd[1] < 0 ? min_fd[1] : 0;
		}
		if (err) {
			fprintf(stderr, "floor: --minimal on %s: %s\n", minimal, strerror(-err));
			goto out;
		}
	}
	for (int i = 0; i < nup; i++) {
		char lib[4096];
		const char *colon = strrchr(uprobes[i], ':');
		LIBBPF_OPTS(bpf_uprobe_opts, o);

		if (!colon || colon == uprobes[i] || (size_t)(colon - uprobes[i]) >= sizeof(lib) ||
		    nlinks + 1 > MAX_LINKS) {
			fprintf(stderr, "floor: --uprobe '%s': expected LIB:SYMBOL\n", uprobes[i]);
			goto out;
		}
		memcpy(lib, uprobes[i], (size_t)(colon - uprobes[i]));
		lib[colon - uprobes[i]] = '\0';
		o.func_name = colon + 1;
		o.retprobe = uret[i];
		links[nlinks] = bpf_program__attach_uprobe_opts(uret[i] ? skel->progs.fl_uretprobe
								       : skel->progs.fl_uprobe,
								-1, lib, 0, &o);
		if (!links[nlinks]) {
			fprintf(stderr, "floor: %s %s: %s\n", uret[i] ? "uretprobe" : "uprobe", uprobes[i],
				strerror(errno));
			goto out;
		}
		nlinks++;
	}
	if (progs)
		bpf_object__for_each_program(prog, skel->obj)
			print_prog(prog);
	printf("ready\n");
	fflush(stdout);
	if (ready) {
		FILE *f = fopen(ready, "w");

		if (f)
			fclose(f);
	}
	while (!stop)
		sigsuspend(&old);
	rc = 0;
out:
	for (size_t i = 0; i < N_COV; i++)
		coverage__close(&cov[i]);
	while (nlinks > 0)
		bpf_link__destroy(links[--nlinks]);
	for (int k = 0; k < 3; k++)
		if (tcx_fd[k] >= 0)
			close(tcx_fd[k]);
	for (int k = 0; k < 2; k++)
		if (min_fd[k] >= 0)
			close(min_fd[k]);
	floor_bpf__destroy(skel);
	return rc;
}
