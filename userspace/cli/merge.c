// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fabtrace merge: the captures of several hosts of one job, on one clock.
 * The command: options, --help, checks of the output and the inputs; the
 * merging itself is userspace/capture/merge.c (docs/multihost.md).
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "userspace/capture/capture.h"
#include "userspace/capture/merge.h"
#include "userspace/cli/commands.h"
#include "lib/opt.h"
#include "lib/util.h"

static void usage(FILE *f)
{
	fprintf(f,
"Usage: fabtrace merge -o OUT.ftr [OPTIONS] NODE.ftr NODE.ftr...\n"
"\n"
"Merge the captures of the hosts of one job onto one clock, so that report,\n"
"top-level verdicts and timelines see the whole job: ranks per host, collectives\n"
"matched across hosts, the straggler and the link named with their host.\n"
"\n"
"The clocks are placed coarsely from each capture's realtime anchors (the\n"
"REALTIME/MONOTONIC pairs taken at the start, every second and at the stop)\n"
"within the hosts' own sync bounds (adjtimex maxerror), then refined from the\n"
"traffic itself: bytes leaving one host and arriving at another, matched in\n"
"both directions (as NTP's four timestamps), searched only where the\n"
"collectives allow (no rank leaves an all-reduce before the last one\n"
"entered).  Each host gets an offset, a drift and an uncertainty; the first\n"
"capture is the reference clock.  See docs/multihost.md.\n"
"\n"
"Options:\n"
"  -o, --output FILE     the merged capture (required); written whole or not at all\n"
"      --window DUR      search the traffic match within +-DUR where a clock gives\n"
"                        no bound (unsynchronised) or a wider one (default 1s,\n"
"                        at most 60s)\n"
"      --anchors-only    place the clocks by their realtime anchors alone (no\n"
"                        traffic matching): to compare, or for unrelated hosts\n"
"      --format-version N  write capture format N: 2 (default, zstd blocks) or 1\n"
"                        (zlib blocks) for a fabtrace older than 2026-11-28,\n"
"                        which refuses version 2 as newer; with one input this\n"
"                        converts a capture\n"
"      --json            print the clock fit as JSON on stdout\n"
"  -q, --quiet           no summary\n"
"  -h, --help            this help\n"
"\n"
"Examples:\n"
"  fabtrace merge -o job.ftr job-node1.ftr job-node2.ftr job-node3.ftr\n"
"  fabtrace merge -o job.ftr job-*.ftr && fabtrace report job.ftr\n"
"  fabtrace merge --json -o job.ftr node*.ftr | jq '.hosts[] | {\"label\": .label, offset_ns, uncertainty_ns}'\n"
"  fabtrace merge --window 5s -o job.ftr unsynced-*.ftr\n"
"  fabtrace merge --format-version 1 -o for-old-fabtrace.ftr node1.ftr\n"
"\n"
"Exit status: 0, also when an input is damaged or cut short: it is merged as far\n"
"as it reads (for a post-mortem, what one node kept is worth keeping), with a\n"
"warning that names it, and the merged capture marks its host damaged (report\n"
"and info say so); 1 when a capture cannot be opened or is not a capture, the\n"
"captures do not go together (bin widths, copies of one recording) or the\n"
"output cannot be written; 2 for usage errors (-o one of the inputs, or another\n"
"capture than an earlier merge's output: an input's name where -o's belongs).\n"
"\n"
"Recording every node (one command line, %%h = the host name):\n"
"  srun --ntasks-per-node=1 --overlap sudo fabtrace record -o job-%%h.ftr -d 60s\n"
"  pdsh -w node[1-64] 'sudo fabtrace record -o /scratch/job-%%h.ftr -d 60s'\n");
}

int cmd_merge(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "output", required_argument, NULL, 'o' }, { "window", required_argument, NULL, 'W' },
		{ "json", no_argument, NULL, 'J' }, { "quiet", no_argument, NULL, 'q' },
		{ "anchors-only", no_argument, NULL, 'A' },
		{ "format-version", required_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' }, { 0 },
	};
	struct merge_opts m = { .max_window = MERGE_DEFAULT_WINDOW_NS, .argc = argc, .argv = argv };
	int c;

	opterr = 0;
	util_json_from_args(argc, argv, (const char *const[]){ "--json", NULL });
	while ((c = getopt_long(argc, argv, ":o:qh", lo, NULL)) != -1) {
		switch (c) {
		case 'o':
			m.out = optarg;
			break;
		case 'W':
			/* its buffers grow with it: a day of 100 us bins is gigabytes per host */
			if (parse_duration(optarg, 1000000000ull, &m.max_window) || !m.max_window ||
			    m.max_window > MERGE_MAX_WINDOW_NS) {
				ft_err_bad_value("merge", "--window", optarg, "a duration up to 60s",
						 "e.g. 500ms or 5s (clocks further apart: merge with --anchors-only)");
				return 2;
			}
			break;
		case 'J':
			m.json = true;
			util_set_json(true);
			break;
		case 'q':
			m.quiet = true;
			break;
		case 'A':
			m.anchors_only = true;
			break;
		case 'F':
			if (capture__parse_version(optarg, &m.format_version)) {
				ft_err_bad_value("merge", "--format-version", optarg, "a capture format version",
						 "1 (for a fabtrace older than 2026-11-28) or %u", (unsigned)FT_FORMAT_VERSION);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			ft_err_bad_opt("merge", c, optopt, argv[optind - 1], lo);
			return 2;
		}
	}
	if (!m.out || !m.out[0]) {
		ft_err("merge: no output; give -o FILE, e.g. fabtrace merge -o job.ftr node1.ftr node2.ftr");
		return 2;
	}
	{
		struct stat st;

		if (lstat(m.out, &st) == 0 && (S_ISLNK(st.st_mode) || !S_ISREG(st.st_mode))) {
			ft_err("merge: %s: %s; choose another path", m.out, S_ISLNK(st.st_mode) ?
			       "is a symbolic link; refusing to write through it" : "exists and is not a regular file");
			return 1;
		}
	}
	if (argc - optind < 1) {
		ft_err("merge: no captures to merge; e.g. fabtrace merge -o job.ftr node1.ftr node2.ftr");
		return 2;
	}
	if (argc - optind > MERGE_MAX_HOSTS) {
		ft_err("merge: %d captures; at most %d can be merged", argc - optind, MERGE_MAX_HOSTS);
		return 2;
	}
	return merge__run(&m, argv + optind, (size_t)(argc - optind));
}
