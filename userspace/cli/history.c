// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fabtrace history: the flight recorder's long tier read back
 * (userspace/history/, docs/flight-recorder.md "Retention tiers"): per
 * bucket the verdict counts and the time budget, the worst collectives.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/opt.h"
#include "lib/util.h"
#include "userspace/cli/commands.h"
#include "userspace/history/history.h"

#define SEC 1000000000ll

static void usage(FILE *f)
{
	fprintf(f,
"Usage: fabtrace history [--from TIME] [--to TIME] [--bucket DUR] [--top N] [--json] DIR\n"
"\n"
"Read the per-collective summaries a flight recorder (fabtrace record writing\n"
"segments into DIR) keeps in DIR/summaries for days (7 by default; see\n"
"'fabtrace record --help'), long after the segments themselves are gone: one\n"
"line per collective with its verdict and time budget.  Shows, per hour (or\n"
"per --bucket), how many collectives ran and their verdicts, the time in\n"
"them and its budget (waiting for ranks, usual, network, unexplained;\n"
"docs/verdicts.md), the ranks waited for and the links that cost most, and\n"
"the worst collectives by their time over their usual.  A line that is not\n"
"a summary (a file cut short by a crash) is skipped and counted.\n"
"\n"
"Options:\n"
"      --from TIME     only collectives that began at TIME or later\n"
"      --to TIME       ... and before TIME.  TIME: seconds since the epoch\n"
"                      (date +%%s), a UTC date 2026-12-01 or 2026-12-01T10:00[:00][Z],\n"
"                      or -DUR: that long before now (-2h, -3d)\n"
"      --bucket DUR    the buckets' length (default 1h; e.g. 10m, 1d)\n"
"      --top N         the worst collectives shown (default 10; 0 none)\n"
"      --json          the same as JSON\n"
"  -h, --help          this help\n"
"\n"
"DIR is the flight recorder's directory (or its summaries/ folder).\n"
"\n"
"Examples:\n"
"  fabtrace history /var/lib/fabtrace\n"
"  fabtrace history --from -1d --bucket 10m /var/lib/fabtrace\n"
"  fabtrace history --from 2026-12-01T10:00 --to 2026-12-01T12:00 --top 20 /var/lib/fabtrace\n"
"  fabtrace history --json /var/lib/fabtrace | jq '.buckets[] | {start, verdicts}'\n"
"\n"
"Exit status: 0; 1 when DIR holds no summaries; 2 for usage errors.\n");
}

/* TIME as REALTIME ns; -1 bad. */
static int64_t parse_when(const char *s)
{
	static const char *const fmts[] = { "%Y-%m-%dT%H:%M:%SZ", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%dT%H:%MZ",
					    "%Y-%m-%dT%H:%M", "%Y-%m-%d" };
	uint64_t v;

	if (s[0] == '-') {
		struct timespec now;

		clock_gettime(CLOCK_REALTIME, &now);
		if (parse_duration(s + 1, (uint64_t)SEC, &v) || v > (uint64_t)(now.tv_sec * SEC))
			return -1;
		return now.tv_sec * SEC + now.tv_nsec - (int64_t)v;
	}
	if (strlen(s) >= 10 && s[4] == '-') {
		for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
			struct tm tm;
			const char *e;

			memset(&tm, 0, sizeof(tm));
			e = strptime(s, fmts[i], &tm);
			if (e && !*e) {
				struct tm want = tm;
				time_t t = timegm(&tm);

				/* timegm() moves a day that does not exist (2026-02-30) on: refuse it */
				if (tm.tm_mday != want.tm_mday || tm.tm_mon != want.tm_mon || tm.tm_year != want.tm_year)
					return -1;
				return (int64_t)t * SEC;
			}
		}
		return -1;
	}
	if (!strcmp(s, "0")) /* the epoch itself: no bound */
		return 0;
	if (parse_duration(s, (uint64_t)SEC, &v) || v > (uint64_t)INT64_MAX)
		return -1;
	return (int64_t)v;
}

int cmd_history(int argc, char **argv)
{
	enum { O_FROM = 256, O_TO, O_BUCKET, O_TOP, O_JSON };
	static const struct option lo[] = {
		{ "from", required_argument, NULL, O_FROM }, { "to", required_argument, NULL, O_TO },
		{ "bucket", required_argument, NULL, O_BUCKET }, { "top", required_argument, NULL, O_TOP },
		{ "json", no_argument, NULL, O_JSON }, { "help", no_argument, NULL, 'h' }, { 0 },
	};
	struct hist_read_opts o = { .bucket_ns = 3600ull * SEC, .top = 10 };
	long n;
	int c;

	opterr = 0;
	util_json_from_args(argc, argv, (const char *const[]){ "--json", NULL });
	while ((c = getopt_long(argc, argv, ":h", lo, NULL)) != -1) {
		switch (c) {
		case O_FROM:
		case O_TO: {
			int64_t t = parse_when(optarg);

			if (t < 0) {
				ft_err_bad_value("history", c == O_FROM ? "--from" : "--to", optarg, "a time",
						 "seconds since the epoch, 2026-12-01T10:00, or -2h");
				return 2;
			}
			*(c == O_FROM ? &o.from_ns : &o.to_ns) = t;
			break;
		}
		case O_BUCKET:
			if (parse_duration(optarg, (uint64_t)SEC, &o.bucket_ns) || o.bucket_ns < (uint64_t)SEC) {
				ft_err_bad_value("history", "--bucket", optarg, "a duration", "at least 1s, e.g. 10m, 1h, 1d");
				return 2;
			}
			break;
		case O_TOP:
			if (parse_long(optarg, 0, 100000, &n)) {
				ft_err_bad_value("history", "--top", optarg, "a count", "e.g. 10 (0 = none)");
				return 2;
			}
			o.top = (size_t)n;
			break;
		case O_JSON:
			o.json = true;
			util_set_json(true);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			ft_err_bad_opt("history", c, optopt, argv[optind - 1], lo);
			return 2;
		}
	}
	if (optind != argc - 1) {
		ft_err("history: %s; see 'fabtrace history --help'",
		       optind == argc ? "give the flight recorder's directory" : "one directory only");
		return 2;
	}
	if (o.from_ns && o.to_ns && o.to_ns <= o.from_ns) {
		ft_err("history: --to is not after --from");
		return 2;
	}
	return hist__read(argv[optind], &o, stdout);
}
