// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fabtrace info [--json] CAPTURE
 *
 * Describes a capture file: header, state (complete / truncated / corrupt),
 * probes, interfaces, record counts, blocks and lost events.  It reads the
 * whole file once with bounded memory (one block plus small tables).
 *
 * Exit: 0 complete or truncated (with a warning), 1 corrupt (after printing
 * what was readable) or unreadable, 2 usage error.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/opt.h"
#include "lib/util.h"
#include "userspace/capture/records.h"
#include "userspace/cli/commands.h"
#include "userspace/cli/info_config.h"
#include "userspace/cli/info_priv.h"

static void note_ts(struct info *in, uint64_t ts)
{
	if (ts == 0)
		return;
	if (!in->have_ts || ts < in->min_ts)
		in->min_ts = ts;
	if (!in->have_ts || ts > in->max_ts)
		in->max_ts = ts;
	in->have_ts = true;
}

static int add_probe(void *ctx, const struct ft_probe_info *p)
{
	struct info *in = ctx;

	for (size_t i = 0; i < in->nprobes; i++) {
		if (in->probes[i].id == p->id &&
		    strncmp(in->probes[i].name, p->name, sizeof(p->name)) == 0) {
			in->probes[i] = *p; /* the latest word on it */
			return 0;
		}
	}
	if (in->nprobes < INFO_MAX_PROBES)
		in->probes[in->nprobes++] = *p;
	return 0;
}

static int add_iface(void *ctx, const struct ft_iface_info *f)
{
	struct info *in = ctx;

	for (size_t i = 0; i < in->nifaces; i++) {
		if (in->ifaces[i].netns == f->netns && in->ifaces[i].ifindex == f->ifindex) {
			in->ifaces[i] = *f;
			return 0;
		}
	}
	if (in->nifaces < INFO_MAX_IFACES)
		in->ifaces[in->nifaces++] = *f;
	return 0;
}

static int add_lost(void *ctx, const struct ft_lost *l)
{
	struct info *in = ctx;

	for (size_t i = 0; i < in->nlost; i++) {
		if (in->lost[i].source == l->source && in->lost[i].cpu == l->cpu) {
			/* cumulative: the final value is the one that counts */
			in->lost[i].lost = l->lost;
			return 0;
		}
	}
	if (in->nlost < INFO_MAX_LOST) {
		in->lost[in->nlost].source = l->source;
		in->lost[in->nlost].cpu = l->cpu;
		in->lost[in->nlost].lost = l->lost;
		in->nlost++;
	} else {
		in->lost_overflow = true;
	}
	return 0;
}

static int add_slot(void *ctx, const struct ft_phase_slot *p)
{
	struct info *in = ctx;

	for (size_t i = 0; i < in->nslots; i++) {
		if (in->slots[i].slot == p->slot) {
			in->slots[i] = *p; /* the latest word on it */
			return 0;
		}
	}
	if (in->nslots < INFO_MAX_SLOTS)
		in->slots[in->nslots++] = *p;
	else
		in->slots_overflow = true;
	return 0;
}

/* A probe's coverage: one record per host at the stop, summed as the report sums them. */
static int add_coverage(void *ctx, const struct ft_coverage *r)
{
	struct info *in = ctx;
	size_t i = 0;

	while (i < in->ncov && in->cov[i].probe < r->probe)
		i++;
	if (i == in->ncov || in->cov[i].probe != r->probe) {
		if (in->ncov == INFO_MAX_PROBES)
			return 0;
		memmove(&in->cov[i + 1], &in->cov[i], (in->ncov - i) * sizeof(*in->cov));
		in->ncov++;
		in->cov[i] = (struct capture_cov){ .probe = r->probe };
		capture__cov_add(&in->cov[i], true, r);
		return 0;
	}
	capture__cov_add(&in->cov[i], false, r);
	return 0;
}

static int add_comm_info(void *ctx, const struct ft_comm_info *r)
{
	struct info *in = ctx;

	in->env_ranks += r->comm == FT_COMM_ENV;
	in->env_jobs += r->slot == FT_SLOT_JOB;
	return 0;
}

static int add_proc(void *ctx, const struct ft_proc *r)
{
	struct info *in = ctx;

	in->proc_events[r->event <= FT_PROC_EXIT ? r->event : FT_PROC_EXIT + 1]++;
	return 0;
}

static int add_end(void *ctx, const struct ft_end *r)
{
	struct info *in = ctx;

	in->have_end = true;
	in->end = *r;
	return 0;
}

static int add_trigger(void *ctx, const struct ft_trigger *r)
{
	triggerinfo__add(&((struct info *)ctx)->trig, r);
	return 0;
}

static const struct capture_visitor info_visitor = {
	.probe = add_probe, .iface = add_iface, .lost = add_lost, .phase_slot = add_slot,
	.coverage = add_coverage, .comm_info = add_comm_info, .proc = add_proc, .trigger = add_trigger,
	.end = add_end,
};

/*
 * Times that do not stretch the span info gives a capture without an END
 * record: those of the counter sampler, the configuration readings, the
 * clock pairs and a flight recorder's triggers (a trigger's moment may be
 * asked for in the past or the future: --at) (the report's span leaves out
 * others again: model_add.c).
 */
#define INFO_UNSPANNED (1ull << FT_REC_CTR_SAMPLE | 1ull << FT_REC_SAMPLER | 1ull << FT_REC_CONFIG | \
			1ull << FT_REC_CLOCK | 1ull << FT_REC_TRIGGER)

/* One record of the reader's (checked against its type as its block was loaded). */
static void account(struct info *in, const struct ft_rec_hdr *r)
{
	uint64_t t[2] = { 0 };
	int n = r->type < CAPTURE_REC_TYPES && ((INFO_UNSPANNED >> r->type) & 1) ? 0 : capture__rec_times(r, t);

	in->counts[r->type]++;
	in->total++;
	clockinfo__add(&in->clk, r);
	info_config__add(&in->cfg, r);
	/* the span: the records' times, a bin's up to its end */
	for (int i = 0; i < n; i++)
		note_ts(in, t[i]);
	if (n && capture__rec_fields(r->type)->bin && in->hdr.bin_ns && t[0] && t[0] + in->hdr.bin_ns > t[0])
		note_ts(in, t[0] + in->hdr.bin_ns);
	(void)capture__dispatch(&info_visitor, in, r);
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: fabtrace info [--json] CAPTURE\n"
		"\n"
		"Describe a capture file: its header (host, kernel, command, start time, bin\n"
		"width), whether it is complete, truncated or corrupt, the probes and\n"
		"interfaces it recorded, the phase probes (traced library functions),\n"
		"the configuration it was taken under (sysctls, qdisc trees, offloads,\n"
		"the sockets' congestion control and ECN, NIC and rank settings:\n"
		"docs/configuration.md), record counts per type, blocks and lost events.\n"
		"\n"
		"Options:\n"
		"  -j, --json   print one JSON document (errors stay valid JSON)\n"
		"  -h, --help   show this help\n"
		"\n"
		"Exit status: 0 complete or truncated (a warning says what is missing),\n"
		"1 corrupt (what was readable is printed first) or unreadable, 2 usage.\n"
		"\n"
		"Examples:\n"
		"  fabtrace info run.ftr\n"
		"  fabtrace info --json run.ftr | jq .lost.total\n"
		"  fabtrace info --json run.ftr | jq '.config.interfaces[].qdiscs'\n");
}

int cmd_info(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const struct ft_rec_hdr *rec;
	struct capture_reader *r = NULL;
	struct info in;
	bool json = util_json();
	char err[320];
	int c, ret, rc = 1;

	optind = 0; /* glibc: full re-initialisation, main may have used getopt */
	opterr = 0;
	util_json_from_args(argc, argv, (const char *const[]){ "--json", "-j", NULL });
	while ((c = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			util_set_json(true);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			ft_err_bad_opt("info", c, optopt, argv[optind - 1], opts);
			return 2;
		}
	}
	if (optind != argc - 1) {
		ft_err("info: %s; usage: fabtrace info [--json] CAPTURE",
		       optind >= argc ? "no capture file given" : "too many arguments");
		return 2;
	}

	memset(&in, 0, sizeof(in));
	in.path = argv[optind];
	ret = capture__open(&r, in.path, err, sizeof(err));
	if (ret < 0) /* the line every command gives: the path, why, what to do */
		return cli_load_failed("info", in.path, ret, err, "free some memory");
	in.hdr = *capture__header(r);
	in.counts = calloc(65536, sizeof(*in.counts));
	in.probes = calloc(INFO_MAX_PROBES, sizeof(*in.probes));
	in.cov = calloc(INFO_MAX_PROBES, sizeof(*in.cov));
	in.ifaces = calloc(INFO_MAX_IFACES, sizeof(*in.ifaces));
	in.lost = calloc(INFO_MAX_LOST, sizeof(*in.lost));
	in.slots = calloc(INFO_MAX_SLOTS, sizeof(*in.slots));
	if (!in.counts || !in.probes || !in.cov || !in.ifaces || !in.lost || !in.slots) {
		ft_err("info: out of memory");
		goto out;
	}

	while (capture__next(r, &rec) == 1)
		account(&in, rec);
	in.state = capture__state(r);
	in.good_off = capture__good_offset(r);
	in.blocks = capture__blocks(r);
	{
		uint64_t skipped;
		size_t unknown;

		in.cov_state = capture__cov_state(in.cov, in.ncov, &skipped, &unknown);
		in.cov_skipped = skipped;
		in.cov_unknown = unknown;
	}
	if (in.state != CAPTURE_OK)
		snprintf(in.error, sizeof(in.error), "%s: %s", in.path, capture__error(r));

	if (json)
		info_print_json(&in, true);
	else
		info_print_text(&in);
	fflush(stdout);

	switch (in.state) {
	case CAPTURE_OK:
		rc = 0;
		break;
	case CAPTURE_TRUNCATED:
		/* stderr in both modes: stdout holds the document */
		fprintf(stderr, "fabtrace: warning: %s; the summary above covers the readable part\n",
			in.error);
		rc = 0;
		break;
	default:
		fprintf(stderr, "fabtrace: %s; only the data before offset %llu is shown\n",
			in.error, (unsigned long long)in.good_off);
		rc = 1;
		break;
	}
out:
	capture__free(r);
	free(in.counts);
	free(in.probes);
	free(in.cov);
	free(in.ifaces);
	free(in.lost);
	free(in.slots);
	clockinfo__free(&in.clk);
	model_config__free(in.cfg);
	return rc;
}
