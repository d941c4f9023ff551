// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The `fabtrace compare` command (docs/compare.md): its options and
 * --help, the captures of the two sides, the exit codes.  The comparison
 * is userspace/compare/ (compare.h); its page is viz/compare_html.c.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/opt.h"
#include "lib/util.h"
#include "userspace/capture/capture.h"
#include "userspace/cli/commands.h"
#include "userspace/compare/compare.h"
#include "viz/viz.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: fabtrace compare [OPTIONS] A.ftr [A2.ftr ...] -- B.ftr [B2.ftr ...]\n"
		"\n"
		"Set runs A against runs B (a knob turned between them: a congestion control,\n"
		"a qdisc limit, an ECN threshold, DCQCN parameters) and say what changed.\n"
		"First the configuration diff: the recorded settings that differ between the\n"
		"sides, as knobs (a warning when more than one knob differs, or when the runs\n"
		"of one side differ).  Then every metric, one value per run: per collective\n"
		"group (op, size, ranks) time p50/p99, bus bandwidth and the shares of its time\n"
		"budget (waiting, usual, the network's per link, unexplained); per link\n"
		"microbursts, drops, retransmits (RTO and fast apart) and CE marks per GB; per\n"
		"queue sojourn p50/p99/max and the largest backlog; per counter group pause\n"
		"and CNP time.  Each difference (median B - median A) comes with a bootstrap\n"
		"95%% interval and a Mann-Whitney p; it is significant when p < 0.05 and the\n"
		"interval excludes 0, else shown as ~.  The first screen says what got better,\n"
		"what got worse, and the verdict on the knob.\n"
		"\n"
		"The jobs must have the same shape (ranks and (op, size, ranks) groups):\n"
		"compare refuses runs of different jobs unless --force.\n"
		"\n"
		"Options:\n"
		"  -j, --json            one JSON document (keys: docs/compare.md)\n"
		"  -p, --pretty          indented JSON (implies --json)\n"
		"      --html FILE       a self-contained page: CDFs of A and B side by side and\n"
		"                        time series per run (- for stdout)\n"
		"  -a, --all             list every metric, also those 0 in every run\n"
		"      --aa              the noise floor: also compare the halves of side A (even\n"
		"                        runs against odd; needs at least 4 runs on side A, and\n"
		"                        8 before a half can differ significantly)\n"
		"      --force           compare jobs of different shapes (the groups both have)\n"
		"      --alpha P         significance level (default 0.05)\n"
		"      --threshold PCT   a microburst: bins at >= PCT %% of the link's line rate\n"
		"                        (default 80)\n"
		"      --resamples N     bootstrap resamples (default 2000)\n"
		"      --seed N          the bootstrap's seed (default 1): the same captures give\n"
		"                        the same intervals\n"
		"  -h, --help            this help\n"
		"\n"
		"Examples:\n"
		"  fabtrace compare cubic-*.ftr -- bbr-*.ftr\n"
		"  fabtrace compare --aa deep1.ftr deep2.ftr deep3.ftr deep4.ftr -- shallow*.ftr\n"
		"  fabtrace compare --json a*.ftr -- b*.ftr | jq '.metrics[] | select(.significant)'\n"
		"  fabtrace compare --json a*.ftr -- b*.ftr | jq '.config_diff.knobs'\n"
		"  fabtrace compare --html cmp.html a*.ftr -- b*.ftr\n"
		"  make compare-demo                        # the lab recipe (docs/compare.md)\n"
		"\n"
		"Exit status: 0, 1 when a capture cannot be read or is corrupt, when the jobs\n"
		"differ in shape (without --force) or an output cannot be written, 2 for usage\n"
		"errors (no -- or more than one, an empty side, a capture given twice).\n");
}

enum { OPT_HTML = 0x100, OPT_AA, OPT_FORCE, OPT_ALPHA, OPT_THRESHOLD, OPT_RESAMPLES, OPT_SEED };

static const struct option lopts[] = {
	{ "json", no_argument, NULL, 'j' },
	{ "pretty", no_argument, NULL, 'p' },
	{ "all", no_argument, NULL, 'a' },
	{ "help", no_argument, NULL, 'h' },
	{ "html", required_argument, NULL, OPT_HTML },
	{ "aa", no_argument, NULL, OPT_AA },
	{ "force", no_argument, NULL, OPT_FORCE },
	{ "alpha", required_argument, NULL, OPT_ALPHA },
	{ "threshold", required_argument, NULL, OPT_THRESHOLD },
	{ "resamples", required_argument, NULL, OPT_RESAMPLES },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ NULL, 0, NULL, 0 },
};

struct cli {
	struct cmp_opts o;
	bool json, pretty, all, help;
	const char *html;
};

/* One option; 0, or 2 after a usage error. */
static int one_opt(struct cli *cl, int c, const char *arg, const char *argv_opt)
{
	long v;

	switch (c) {
	case 'j':
		cl->json = true;
		return 0;
	case 'p':
		cl->json = cl->pretty = true;
		return 0;
	case 'a':
		cl->all = true;
		return 0;
	case 'h':
		cl->help = true;
		return 0;
	case OPT_HTML:
		if (!arg[0]) {
			ft_err("compare: --html needs a file name (or - for stdout)");
			return 2;
		}
		cl->html = arg;
		return 0;
	case OPT_AA:
		cl->o.aa = true;
		return 0;
	case OPT_FORCE:
		cl->o.force = true;
		return 0;
	case OPT_ALPHA:
		if (parse_double(arg, 1e-9, 0.5, &cl->o.alpha)) {
			ft_err_bad_value("compare", "--alpha", arg, "a significance level", "e.g. 0.05 (0 < P <= 0.5)");
			return 2;
		}
		return 0;
	case OPT_THRESHOLD:
		if (parse_pct(arg, 1000, &cl->o.burst_share) || cl->o.burst_share <= 0) {
			ft_err_bad_value("compare", "--threshold", arg, "a percentage", "e.g. 80 (%% of capacity, > 0)");
			return 2;
		}
		return 0;
	case OPT_RESAMPLES:
		if (parse_long(arg, 100, 1000000, &v)) {
			ft_err_bad_value("compare", "--resamples", arg, "a count", "100 to 1000000, e.g. 2000");
			return 2;
		}
		cl->o.nboot = (unsigned)v;
		return 0;
	case OPT_SEED:
		if (parse_long(arg, 0, 0x7fffffffL, &v)) {
			ft_err_bad_value("compare", "--seed", arg, "a seed", "a whole number, e.g. 1");
			return 2;
		}
		cl->o.seed = (uint64_t)v;
		return 0;
	default: /* also ':', a missing value */
		ft_err_bad_opt("compare", c, optopt, argv_opt, lopts);
		return 2;
	}
}

/* The options and captures of ARGV[0..ARGC) (ARGV[0] not looked at); the captures into FILES. */
static int parse_part(struct cli *cl, int argc, char **argv, char ***files, size_t *nfiles)
{
	int c;

	optind = 0; /* glibc: full re-initialisation */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":jpah", lopts, NULL)) != -1)
		if (one_opt(cl, c, optarg, argv[optind - 1]))
			return 2;
	*files = argv + optind;
	*nfiles = (size_t)(argc - optind);
	return 0;
}

/* Load the captures of one side; 0, or 1 after its one error line. */
static int load_side(const struct cmp_opts *o, char **files, size_t n, struct cmp_run **out)
{
	struct cmp_run *runs = calloc(n, sizeof(*runs));
	char err[512];

	*out = runs;
	if (!runs) {
		ft_err("compare: out of memory");
		return 1;
	}
	for (size_t i = 0; i < n; i++) {
		int ret = cmp__run_load(files[i], o, &runs[i], err, sizeof(err));

		if (ret) {
			cmp__run_free(&runs[i]);
			return cli_load_failed("compare", files[i], ret, err, "compare fewer or shorter captures");
		}
	}
	return 0;
}

/* A capture given twice (by any path) would count as two runs: a usage error, with its one line. */
static bool same_capture_twice(char **fa, size_t na, char **fb, size_t nb)
{
	for (size_t i = 0; i < na + nb; i++)
		for (size_t k = i + 1; k < na + nb; k++) {
			const char *x = i < na ? fa[i] : fb[i - na], *y = k < na ? fa[k] : fb[k - na];

			if (ft_same_file(x, y)) {
				ft_err("compare: %s and %s are the same capture (%s); each run counts once, so give it "
				       "once", x, y, k < na ? "both on side A" : i >= na ? "both on side B" : "on both sides");
				return true;
			}
		}
	return false;
}

/* Copies of one recording (the same header, as merge tells them): each run
 * counts once, and a copy on the other side compares a run with itself.  A
 * file that cannot be read is left for the loading to report. */
static bool copies_of_one(char **fa, size_t na, char **fb, size_t nb)
{
	struct ft_file_header *h = calloc(na + nb, sizeof(*h));
	bool *ok = calloc(na + nb, sizeof(*ok)), dup = false;

	for (size_t i = 0; h && ok && i < na + nb; i++) {
		struct capture_reader *rd = NULL;
		char err[256];

		if (capture__open(&rd, i < na ? fa[i] : fb[i - na], err, sizeof(err)) == 0) {
			h[i] = *capture__header(rd);
			ok[i] = true;
		}
		capture__free(rd);
	}
	for (size_t i = 0; h && ok && i < na + nb && !dup; i++)
		for (size_t k = i + 1; k < na + nb && !dup; k++)
			if (ok[i] && ok[k] && !memcmp(&h[i], &h[k], sizeof(h[i]))) {
				ft_err("compare: %s and %s are copies of one recording (the same header; %s); each run "
				       "counts once, so give it once", i < na ? fa[i] : fb[i - na], k < na ? fa[k] : fb[k - na],
				       k < na ? "both on side A" : i >= na ? "both on side B" : "on both sides");
				dup = true;
			}
	free(h);
	free(ok);
	return dup;
}

static void free_side(struct cmp_run *runs, size_t n)
{
	for (size_t i = 0; runs && i < n; i++)
		cmp__run_free(&runs[i]);
	free(runs);
}

static int write_html(const struct cmp *c, const char *path)
{
	struct outfile of;
	char err[512];
	int r;

	if (outfile_open(&of, path, err, sizeof(err))) {
		ft_err("compare: --html %s", err);
		return 1;
	}
	r = viz__compare_html(c, of.f);
	if (r) {
		ft_err("compare: writing the page to %s: %s; nothing was written", path,
		       strerror(r == -EIO ? outfile_errno(&of) : -r));
		outfile_abort(&of);
		return 1;
	}
	if (outfile_commit(&of, err, sizeof(err))) {
		ft_err("compare: --html %s", err);
		return 1;
	}
	if (strcmp(path, "-") != 0)
		fprintf(stderr, "fabtrace: compare: wrote the page to %s\n", path);
	return 0;
}

static int output(const struct cli *cl, const struct cmp *c)
{
	int ret = 0;

	if (cl->html && write_html(c, cl->html))
		return 1;
	if (cl->html && !strcmp(cl->html, "-"))
		return 0; /* the page is on stdout */
	if (cl->json) {
		ret = cmp__json(c, stdout, cl->pretty, false);
	} else {
		FILE *out = text_safe_stream(stdout); /* settings are the traced hosts' strings */

		ret = cmp__text(c, out ? out : stdout, cl->all);
		if (out && out != stdout && fclose(out) && !ret)
			ret = -EIO;
	}
	if (ret) {
		ft_err("compare: writing the comparison: %s; check the output destination", strerror(-ret));
		return 1;
	}
	return 0;
}

int cmd_compare(int argc, char **argv)
{
	struct cli cl = { .json = false };
	struct cmp_run *ra = NULL, *rb = NULL;
	char **fa, **fb, err[1024];
	size_t na = 0, nb = 0;
	struct cmp *c = NULL;
	int sep = -1, ret;

	cmp_opts__init(&cl.o);
	util_json_from_args(argc, argv, (const char *const[]){ "--json", "-j", "--pretty", "-p", NULL });
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			if (sep >= 0) {
				ft_err("compare: more than one --; give A's captures, then --, then B's (see --help)");
				return 2;
			}
			sep = i;
		}
	/* options may stand on either side of --; the captures are what is left of each part */
	if (parse_part(&cl, sep < 0 ? argc : sep, argv, &fa, &na))
		return 2;
	if (sep >= 0 && !cl.help && parse_part(&cl, argc - sep, argv + sep, &fb, &nb))
		return 2;
	if (cl.help) {
		usage(stdout);
		return 0;
	}
	if (sep < 0) {
		ft_err("compare: no -- between the sides; usage: fabtrace compare A.ftr [A2.ftr ...] -- B.ftr "
		       "[B2.ftr ...] (see --help)");
		return 2;
	}
	if (!na || !nb) {
		ft_err("compare: side %s has no captures; give at least one on each side of --", !na ? "A" : "B");
		return 2;
	}
	if (cl.html && strcmp(cl.html, "-") != 0)
		for (size_t i = 0; i < na + nb; i++)
			if (ft_same_file(cl.html, i < na ? fa[i] : fb[i - na])) {
				ft_err("compare: --html %s is a capture being read; choose another output", cl.html);
				return 2;
			}
	if (cli_out_over_capture("compare", "--html", cl.html, "the page"))
		return 2;
	if (same_capture_twice(fa, na, fb, nb) || copies_of_one(fa, na, fb, nb))
		return 2;
	ret = load_side(&cl.o, fa, na, &ra);
	if (!ret)
		ret = load_side(&cl.o, fb, nb, &rb);
	if (ret) {
		free_side(ra, na);
		free_side(rb, nb);
		return ret;
	}
	ret = cmp__build(&cl.o, ra, na, rb, nb, &c, err, sizeof(err)); /* the runs are its own now */
	if (ret) {
		ft_err("compare: %s", err[0] ? err : strerror(-ret));
		return 1;
	}
	ret = output(&cl, c);
	cmp__free(c);
	return ret;
}
