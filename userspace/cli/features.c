// SPDX-License-Identifier: GPL-2.0-or-later
/* fabtrace features: what this kernel lets fabtrace attach, and why not. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "probes/drop_reasons.h"
#include "probes/netprobe.h"
#include "probes/phaseprobe.h"

/* measured as the network families are (probes/netprobe_variants.c) */
#define PHASES_COST "~5 ns per MTU packet: sock_send/recv ~55-85 ns per socket call; uprobes ~2-5 us per traced call"
#include "probes/privs.h"
#include "userspace/cli/commands.h"
#include "lib/json.h"
#include "lib/opt.h"
#include "lib/util.h"

static void usage(FILE *f)
{
	fprintf(f,
"Usage: fabtrace features [--json] [-v] [--drop-reasons]\n"
"\n"
"Try every probe fabtrace has on this kernel (load and attach, then detach)\n"
"and show which variant 'record' will use for each hook, or why none works.\n"
"Variants are tried in order of preference: tp_btf, then raw_tp (iface_rx: a\n"
"tcx program on the -i interfaces first; retransmit: the tracepoint's newer\n"
"three-argument form first).  The phase probes are checked too: uprobes\n"
"with BPF cookies on a function of fabtrace itself (uprobe_multi links, else\n"
"one perf uprobe each), and the process (fork/exec/exit) and socket\n"
"(send/recv) hooks that follow the traced programs.\n"
"\n"
"Options:\n"
"      --json          print the results as one JSON document\n"
"  -v, --verbose       show libbpf and verifier messages of the variants tried\n"
"      --drop-reasons  list this kernel's drop reasons instead, and which of\n"
"                      them count as congestion evidence\n"
"  -h, --help          this help\n"
"\n"
"Examples:\n"
"  sudo fabtrace features\n"
"  sudo fabtrace features --json | jq '.probes[] | select(.works == false)'\n"
"  fabtrace features --drop-reasons      # which of this kernel's drop reasons are\n"
"                                        # congestion evidence (the rest: shown only)\n"
"\n"
"Exit status: 0 when at least one probe works, 1 when none does, privileges are\n"
"missing or the drop reasons cannot be read, 2 for usage errors.\n");
}

int cmd_features(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "drop-reasons", no_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct probe_status st[FT_PROBE_MAX];
	struct phase_feature ph[PH_FEAT_MAX];
	bool json = false, verbose = false, drops = false, btf, cov_kernel;
	int cov_mode;
	char missing[96], cov_why[160];
	struct utsname u;
	struct stat sb;
	int c, works = 0, ph_works = 0;

	opterr = 0;
	util_json_from_args(argc, argv, (const char *const[]){ "--json", NULL });
	while ((c = getopt_long(argc, argv, "vh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			util_set_json(true);
			break;
		case 'v':
			verbose = true;
			break;
		case 'D':
			drops = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			ft_err_bad_opt("features", c, optopt, argv[optind - 1], opts);
			return 2;
		}
	}
	if (optind < argc) {
		ft_err("features: unexpected argument '%s'; it takes options only (see 'fabtrace features --help')",
		       argv[optind]);
		return 2;
	}
	if (drops) {
		/* reads BTF only: no privileges needed */
		int err = drop_reasons__print(json);

		if (err)
			ft_err("features: cannot read the kernel's drop reasons from /sys/kernel/btf/vmlinux: %s",
			       strerror(-err));
		return err ? 1 : 0;
	}
	if (!privs_ok(missing, sizeof(missing))) {
		ft_err("features: missing privileges: %s; run with sudo", missing);
		return 1;
	}
	btf = stat("/sys/kernel/btf/vmlinux", &sb) == 0;
	uname(&u);
	netprobe__probe_features(st, verbose);
	for (int i = 0; i < FT_PROBE_MAX; i++)
		works += st[i].variant != NULL;
	phaseprobe__probe_features(ph, verbose);
	for (int i = 0; i < PH_FEAT_MAX; i++)
		ph_works += ph[i].variant != NULL;

	cov_mode = netprobe__coverage_auto(cov_why, sizeof(cov_why));
	cov_kernel = cov_mode == NP_COV_KERNEL;
	if (json) {
		struct json j;

		json_init(&j, stdout, true);
		json_object_begin(&j);
		json_kv_string(&j, "kernel", u.release);
		json_kv_bool(&j, "btf", btf);
		json_key(&j, "probes");
		json_array_begin(&j);
		for (int i = 0; i < FT_PROBE_MAX; i++) {
			json_object_begin(&j);
			json_kv_string(&j, "name", st[i].name);
			json_kv_string(&j, "tracepoint", st[i].tracepoint);
			json_kv_bool(&j, "works", st[i].variant != NULL);
			if (st[i].variant)
				json_kv_string(&j, "variant", st[i].variant);
			else
				json_kv_string(&j, "why", st[i].why);
			if (st[i].note[0])
				json_kv_string(&j, "note", st[i].note);
			json_object_end(&j);
		}
		json_array_end(&j);
		json_key(&j, "phase_probes");
		json_array_begin(&j);
		for (int i = 0; i < PH_FEAT_MAX; i++) {
			json_object_begin(&j);
			json_kv_string(&j, "name", ph[i].name);
			json_kv_string(&j, "hook", ph[i].hook);
			json_kv_bool(&j, "works", ph[i].variant != NULL);
			if (ph[i].variant)
				json_kv_string(&j, "variant", ph[i].variant);
			else
				json_kv_string(&j, "why", ph[i].why);
			json_object_end(&j);
		}
		json_array_end(&j);
		json_key(&j, "families");
		json_array_begin(&j);
		for (int i = 0; i < netprobe_n_families; i++) {
			json_object_begin(&j);
			json_kv_string(&j, "name", netprobe_families[i].name);
			json_kv_string(&j, "records", netprobe_families[i].what);
			json_kv_string(&j, "cost", netprobe_families[i].cost);
			json_object_end(&j);
		}
		json_object_begin(&j);
		json_kv_string(&j, "name", "phases");
		json_kv_string(&j, "records", "collective phases, processes, socket owners (--no-phases)");
		json_kv_string(&j, "cost", PHASES_COST);
		json_object_end(&j);
		json_array_end(&j);
		json_key(&j, "coverage");
		json_object_begin(&j);
		json_kv_bool(&j, "kernel_counts_skipped_runs", cov_kernel);
		json_kv_string(&j, "auto_mode", netprobe__coverage_name(cov_mode));
		if (!cov_kernel)
			json_kv_string(&j, "why", cov_why);
		json_object_end(&j);
		json_object_end(&j);
		json_finish(&j);
	} else {
		printf("kernel %s, BTF %s\n\n", u.release, btf ? "yes (/sys/kernel/btf/vmlinux)" : "NO");
		printf("%-14s %-20s %-8s %s\n", "PROBE", "TRACEPOINT", "USES", "NOTES");
		for (int i = 0; i < FT_PROBE_MAX; i++)
			printf("%-14s %-20s %-8s %s\n", st[i].name, st[i].tracepoint,
			       st[i].variant ? st[i].variant : "-",
			       st[i].variant ? st[i].note : st[i].why);
		printf("\n%-14s %-28s %-12s %s\n", "PHASE PROBE", "HOOK", "USES", "NOTES");
		for (int i = 0; i < PH_FEAT_MAX; i++)
			printf("%-14s %-28s %-12s %s\n", ph[i].name, ph[i].hook,
			       ph[i].variant ? ph[i].variant : "-", ph[i].variant ? "" : ph[i].why);
		printf("\n%d of %d probes and %d of %d phase probes work; all attach through "
		       "bpf_links (nothing stays attached if fabtrace dies).\n", works, FT_PROBE_MAX,
		       ph_works, PH_FEAT_MAX);
		if (!ph[0].variant)
			printf("Without uprobes, collective phases are inferred from the traffic.\n");
		printf("\nWhat each family costs (measured on veth at MTU size, 2 vCPUs; "
		       "docs/performance.md section 0).\nLeave families out with "
		       "'record --no-probes LIST' (phases: --no-phases):\n");
		for (int i = 0; i < netprobe_n_families; i++)
			printf("  %-7s %s\n          %s\n", netprobe_families[i].name,
			       netprobe_families[i].what, netprobe_families[i].cost);
		printf("  %-7s %s\n          %s\n", "phases",
		       "collective phases, processes, socket owners (--no-phases)", PHASES_COST);
		if (cov_kernel)
			printf("\nSkipped probe runs: the kernel counts them (tried: a recursing test program);\n"
			       "--coverage auto reads those counts, at no cost per packet.\n");
		else if (cov_mode == NP_COV_PID1)
			printf("\nSkipped probe runs: not all counted by the kernel (%s);\n"
			       "--coverage auto adds the tracepoint hits in PID 1's threads (a perf event per\n"
			       "thread of PID 1: about half the cost of a perf event per CPU).\n", cov_why);
		else
			printf("\nSkipped probe runs: not counted by the kernel (%s);\n"
			       "--coverage auto counts tracepoint hits with a perf event per CPU instead.\n", cov_why);
	}
	return works ? 0 : 1;
}
