// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * synthcap: write a deterministic synthetic capture (no root, no kernel) for
 * golden tests, size tests and benchmarks of `fabtrace report`.  It uses
 * the real capture writer (userspace/capture/capture.h), so what it writes is what
 * `fabtrace info` and `report` read.
 *
 * The scenario: H hosts (network namespaces "h1".."hH", eth0 each), R ranks
 * per host (MPI, one communicator), one allreduce per period with marker
 * steps ("compute" before it, "optimizer" after), every host's eth0 sending
 * and receiving the ring traffic in bins while the collective transfers.
 * Injected, on chosen collectives (sequence numbers):
 *   congestion  one host's tbf queue holds ~2.5 ms, QDISC_DROPs, fast
 *               retransmits on its rank's flow, CE marks at the next host,
 *               a CNP/ECN storm and pause frames in its RDMA/NIC counters;
 *               the transfer takes --congest-factor times longer
 *               -> verdict network
 *   straggler   one rank computes --straggler's delay longer -> verdict rank
 * plus a lost-event gap (the bins of one interval missing, LOST records)
 * and the counter sampler's records (RDMA port, three counter groups).
 *
 * Everything follows from the options and --seed: the same command writes
 * the same bytes.  Records per period are printed with --verbose; --events N
 * sizes the capture to about N records by choosing the duration.
 *
 * This file is the command line; synthcap.h lists the others.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/opt.h"
#include "lib/util.h"
#include "tools/synthcap/synthcap.h"

static int parse_seqset(const char *s, struct seqset *out)
{
	char *end;
	unsigned long long a;

	memset(out, 0, sizeof(*out));
	if (!strcmp(s, "none"))
		return 0;
	errno = 0;
	a = strtoull(s, &end, 10);
	if (errno || end == s || !a)
		return -1;
	out->a = out->b = a;
	if (*end == '-' || *end == '/') {
		char sep = *end;
		unsigned long long b = strtoull(end + 1, &end, 10);

		if (errno || !b || (sep == '-' && b < a))
			return -1;
		if (sep == '-')
			out->b = b;
		else
			out->every = b;
	}
	return *end ? -1 : 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: synthcap -o FILE [OPTIONS]\n"
		"\n"
		"Write a deterministic synthetic fabtrace capture: H hosts (netns h1..hH, eth0),\n"
		"R MPI ranks per host, one allreduce per period inside marker steps, the ring\n"
		"traffic in bins, an injected congested link (queue, QDISC_DROPs, retransmits,\n"
		"CE, a CNP/pause storm in the RDMA/NIC counters: verdict network), a straggler\n"
		"rank (verdict rank) and a lost-event gap.  Same options, same bytes.\n"
		"\n"
		"  -o, --output FILE        the capture (required)\n"
		"  -d, --duration D         capture length (default 1s; 3600s = an hour)\n"
		"      --hosts N            hosts (default 2)\n"
		"      --ranks-per-host N   ranks on each host (default 1)\n"
		"      --bin D, --bin-us N  bin width (default 100us)\n"
		"      --period D           one collective per period (default 100ms)\n"
		"      --size BYTES         allreduce buffer per rank (default 1M)\n"
		"      --compute D          compute before each collective (default 20ms)\n"
		"      --optimizer D        optimizer phase after it (default 2ms)\n"
		"      --link-mbit N        link speed of every eth0 (default 10000)\n"
		"      --congest H:SEQS     congest host H (1-based) during collectives SEQS:\n"
		"                           N, N-M, N/K (N, N+K, ...) or none (default 2:2/10)\n"
		"      --congest-factor F   the congested transfer takes F times longer (default 8)\n"
		"      --straggler R:SEQS[:D]  rank R computes D longer (default 30ms) during SEQS\n"
		"                           (default: the last rank, 5/10); none to disable\n"
		"      --no-steps           no marker steps / named phases\n"
		"      --no-rdma            no RDMA port / counter groups / samples\n"
		"      --ctr-period D       counter sampling period (default 100ms)\n"
		"      --no-lost            no lost-event gap\n"
		"      --lost-seq N         lose the bins of the first half of collective N's transfer\n"
		"                           (default: the one at 60%% of the capture)\n"
		"      --only-host H        write only host H's records (1-based), as its own\n"
"                           recorder would: per-node captures for fabtrace merge\n"
"      --stop-reason N      the END's stop reason (0 duration, 1 signal, 2 command\n"
"                           exited, 3 error, 4 mixed; default 0)\n"
"      --seed N             jitter seed (default 1)\n"
		"      --events N           size the capture to about N records (sets the duration)\n"
		"  -q, --quiet              no summary line\n"
		"  -h, --help\n"
		"\n"
		"Records per period ~ ranks x (1 + 7 with steps) + hosts x 2 x bins of the\n"
		"transfer + 1 qdisc bin per transfer bin, plus 3 x hosts counter samples per\n"
		"--ctr-period; --events does that arithmetic.\n"
		"\n"
		"Examples:\n"
		"  synthcap -o tiny.ftr --duration 400ms --congest 2:2 --straggler 1:3\n"
		"  synthcap -o hour.ftr --duration 3600 --hosts 4 --bin-us 100\n"
		"  synthcap -o bench.ftr --hosts 8 --events 1000000\n");
}

static int num(const char *s, unsigned long long min, unsigned long long max, unsigned long long *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	if (!s[0] || s[0] == '-')
		return -1;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

/* Duration: "100ms", bare numbers in seconds. */
static int dur(const char *s, uint64_t *out)
{
	return parse_duration(s, SEC, out) ? -1 : 0;
}

static int parse(struct opts *o, int argc, char **argv)
{
	enum { O_HOSTS = 256, O_RPP, O_BIN, O_BIN_US, O_PERIOD, O_SIZE, O_COMPUTE, O_OPT, O_LINK, O_CONGEST,
	       O_CFACTOR, O_STRAG, O_NOSTEPS, O_NORDMA, O_CTRP, O_NOLOST, O_LOSTSEQ, O_SEED, O_EVENTS,
	       O_ONLY, O_STOP };
	static const struct option lo[] = {
		{ "output", required_argument, NULL, 'o' }, { "duration", required_argument, NULL, 'd' },
		{ "hosts", required_argument, NULL, O_HOSTS }, { "ranks-per-host", required_argument, NULL, O_RPP },
		{ "bin", required_argument, NULL, O_BIN }, { "bin-us", required_argument, NULL, O_BIN_US },
		{ "period", required_argument, NULL, O_PERIOD }, { "size", required_argument, NULL, O_SIZE },
		{ "compute", required_argument, NULL, O_COMPUTE }, { "optimizer", required_argument, NULL, O_OPT },
		{ "link-mbit", required_argument, NULL, O_LINK }, { "congest", required_argument, NULL, O_CONGEST },
		{ "congest-factor", required_argument, NULL, O_CFACTOR },
		{ "straggler", required_argument, NULL, O_STRAG }, { "no-steps", no_argument, NULL, O_NOSTEPS },
		{ "no-rdma", no_argument, NULL, O_NORDMA }, { "ctr-period", required_argument, NULL, O_CTRP },
		{ "no-lost", no_argument, NULL, O_NOLOST }, { "lost-seq", required_argument, NULL, O_LOSTSEQ },
		{ "seed", required_argument, NULL, O_SEED }, { "events", required_argument, NULL, O_EVENTS },
		{ "only-host", required_argument, NULL, O_ONLY },
		{ "stop-reason", required_argument, NULL, O_STOP },
		{ "quiet", no_argument, NULL, 'q' }, { "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	const char *strag = NULL, *congest = "2:2/10";
	unsigned long long v;
	size_t k = 0;
	int c;

	*o = (struct opts){ .duration = SEC, .bin = 100 * US, .period = 100 * MS, .compute = 20 * MS,
			    .optimizer = 2 * MS, .ctr_period = 100 * MS, .seed = 1, .size = 1 << 20, .hosts = 2,
			    .rpp = 1, .link_mbit = 10000, .congest_factor = 8, .steps = true, .rdma = true,
			    .lost = true, .straggle_ns = 30 * MS };
	/* the header's command line: the options without the output path */
	k += (size_t)snprintf(o->cmdline, sizeof(o->cmdline), "synthcap");
	for (int i = 1; i < argc && k < sizeof(o->cmdline); i++) {
		if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) {
			i++;
			continue;
		}
		if (!strncmp(argv[i], "--output=", 9) || !strncmp(argv[i], "-o", 2))
			continue;
		k += (size_t)snprintf(o->cmdline + k, sizeof(o->cmdline) - k, " %s", argv[i]);
	}
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:d:qh", lo, NULL)) != -1) {
		switch (c) {
		case 'o': o->out = optarg; break;
		case 'd': if (dur(optarg, &o->duration)) goto bad; break;
		case O_HOSTS: if (num(optarg, 1, 250, &v)) goto bad; o->hosts = (unsigned)v; break;
		case O_RPP: if (num(optarg, 1, 64, &v)) goto bad; o->rpp = (unsigned)v; break;
		case O_BIN: if (dur(optarg, &o->bin) || o->bin < US) goto bad; break;
		case O_BIN_US: if (num(optarg, 1, 1000000, &v)) goto bad; o->bin = v * US; break;
		case O_PERIOD: if (dur(optarg, &o->period)) goto bad; break;
		case O_SIZE: if (parse_size(optarg, &o->size) || o->size < 4) goto bad; break;
		case O_COMPUTE: if (dur(optarg, &o->compute)) goto bad; break;
		case O_OPT: if (dur(optarg, &o->optimizer)) goto bad; break;
		case O_LINK: if (num(optarg, 1, 10000000, &v)) goto bad; o->link_mbit = (unsigned)v; break;
		case O_CONGEST: congest = optarg; break;
		case O_CFACTOR: if (num(optarg, 1, 1000, &v)) goto bad; o->congest_factor = (unsigned)v; break;
		case O_STRAG: strag = optarg; break;
		case O_NOSTEPS: o->steps = false; break;
		case O_NORDMA: o->rdma = false; break;
		case O_CTRP: if (dur(optarg, &o->ctr_period) || o->ctr_period < MS) goto bad; break;
		case O_NOLOST: o->lost = false; break;
		case O_LOSTSEQ: if (num(optarg, 1, UINT32_MAX, &v)) goto bad; o->lost_seq = v; break;
		case O_SEED: if (num(optarg, 0, UINT64_MAX, &v)) goto bad; o->seed = v; break;
		case O_EVENTS: if (num(optarg, 100, 1000000000000ull, &v)) goto bad; o->events = v; break;
		case O_ONLY: if (num(optarg, 1, 250, &v)) goto bad; o->only_host = (unsigned)v; break;
		case O_STOP: if (num(optarg, 0, FT_STOP_MIXED, &v)) goto bad; o->stop_reason = (unsigned)v; break;
		case 'q': o->quiet = true; break;
		case 'h': usage(stdout); exit(0);
		default:
			fprintf(stderr, "synthcap: unknown option or missing value '%s'; see --help\n", argv[optind - 1]);
			return -1;
		}
	}
	if (optind != argc || !o->out) {
		fprintf(stderr, "synthcap: %s; see --help\n", optind != argc ? "unexpected argument" : "give -o FILE");
		return -1;
	}
	/* --congest H:SEQS */
	if (strcmp(congest, "none") != 0) {
		const char *colon = strchr(congest, ':');

		if (!colon || colon - congest > 8) {
			fprintf(stderr, "synthcap: --congest '%s': give HOST:SEQS, e.g. 2:3 or 2:2/10\n", congest);
			return -1;
		}
		{
			char h[16];

			memcpy(h, congest, (size_t)(colon - congest));
			h[colon - congest] = '\0';
			if (num(h, 1, o->hosts, &v) || parse_seqset(colon + 1, &o->congest)) {
				fprintf(stderr, "synthcap: --congest '%s': host 1..%u and SEQS N, N-M or N/K\n", congest,
					o->hosts);
				return -1;
			}
			o->congest_host = (unsigned)v;
		}
	}
	if (!o->congest_host)
		o->congest_host = o->hosts > 1 ? 2 : 1;
	/* --straggler R:SEQS[:D] */
	o->straggler = (int)(o->hosts * o->rpp) - 1;
	parse_seqset("5/10", &o->straggle);
	if (strag && !strcmp(strag, "none")) {
		o->straggler = -1;
	} else if (strag) {
		char buf[64], *a, *b;

		snprintf(buf, sizeof(buf), "%s", strag);
		a = strchr(buf, ':');
		if (!a) {
			fprintf(stderr, "synthcap: --straggler '%s': give RANK:SEQS[:DELAY], e.g. 1:3:30ms\n", strag);
			return -1;
		}
		*a++ = '\0';
		b = strchr(a, ':');
		if (b)
			*b++ = '\0';
		if (num(buf, 0, o->hosts * o->rpp - 1, &v) || parse_seqset(a, &o->straggle) || (b && dur(b, &o->straggle_ns))) {
			fprintf(stderr, "synthcap: --straggler '%s': rank 0..%u, SEQS N, N-M or N/K, delay e.g. 30ms\n",
				strag, o->hosts * o->rpp - 1);
			return -1;
		}
		o->straggler = (int)v;
	}
	return 0;
bad:
	fprintf(stderr, "synthcap: bad value '%s' for %s; see --help\n", optarg, argv[optind - 1]);
	return -1;
}

int main(int argc, char **argv)
{
	struct gen g;
	uint64_t busy, per_period, host_bytes, xfer_max;
	int ret;

	memset(&g, 0, sizeof(g));
	if (parse(&g.o, argc, argv))
		return 2;
	g.nranks = g.o.hosts * g.o.rpp;
	host_bytes = (g.nranks > 1 ? g.o.size * 2 * (g.nranks - 1) / g.nranks : g.o.size) * g.o.rpp;
	xfer_max = (host_bytes * 8 * 1000 / g.o.link_mbit + 50 * US) * g.o.congest_factor;
	busy = g.o.compute + 40 * US + 20 * US + (g.o.straggler >= 0 ? g.o.straggle_ns : 0) + xfer_max + 10 * US +
	       (g.o.steps ? g.o.optimizer + 22 * US : 0);
	if (busy >= g.o.period) {
		fprintf(stderr, "synthcap: a period of %" PRIu64 " us is too short for compute + straggler delay + "
			"transfer + optimizer (%" PRIu64 " us); raise --period or lower the others\n",
			g.o.period / US, busy / US);
		return 2;
	}
	if (g.o.events) {
		/* records per period, as generate() writes them: phases, bins (a congested transfer
		 * takes congest_factor times the bins, on one collective in `every`), evidence, samples */
		uint64_t xfer = host_bytes * 8 * 1000 / g.o.link_mbit + 50 * US;
		/* whole bins, as the generator writes them */
		uint64_t nbins = xfer / g.o.bin + 2, ncbins = xfer * g.o.congest_factor / g.o.bin + 2;
		double bins = (double)nbins, every = g.o.congest.every ? (double)g.o.congest.every : 0;
		double per = (double)g.nranks * (g.o.steps ? 8 : 1) + bins * (2.0 * g.o.hosts + 1);

		if (every > 0)
			per += ((double)ncbins - bins) * (2.0 * g.o.hosts + 1) / every +
			       18.0 / every;
		if (g.o.rdma)
			per += 3.0 * g.o.hosts * (double)g.o.period / (double)g.o.ctr_period;
		per_period = (uint64_t)per + 1;
		g.o.duration = OFFSET_NS + (g.o.events + per_period - 1) / per_period * g.o.period;
	}
	if (g.o.duration <= OFFSET_NS + busy) {
		fprintf(stderr, "synthcap: --duration must leave room for one period (> %" PRIu64 " ms)\n",
			(OFFSET_NS + busy) / MS + 1);
		return 2;
	}
	g.end_ns = START_NS + g.o.duration;
	g.ncoll = (g.o.duration - OFFSET_NS - busy) / g.o.period + 1;
	g.rng = g.o.seed;
	if (g.o.lost) {
		uint64_t last, xfer;

		if (!g.o.lost_seq)
			g.o.lost_seq = g.ncoll * 6 / 10 ? g.ncoll * 6 / 10 : 1;
		if (g.o.lost_seq > g.ncoll) {
			fprintf(stderr, "synthcap: --lost-seq %" PRIu64 ": only %" PRIu64 " collectives\n", g.o.lost_seq,
				g.ncoll);
			return 2;
		}
		/* roughly the first half of that collective's transfer (entries vary by jitter) */
		last = START_NS + OFFSET_NS + (g.o.lost_seq - 1) * g.o.period + g.o.compute;
		xfer = host_bytes * 8 * 1000 / g.o.link_mbit;
		g.lost_from = last / g.o.bin * g.o.bin;
		g.lost_to = g.lost_from + (xfer / 2 / g.o.bin + 1) * g.o.bin;
	}
	g.tx_bytes = calloc(g.o.hosts, sizeof(uint64_t));
	g.tx_pkts = calloc(g.o.hosts, sizeof(uint64_t));
	g.rx_bytes = calloc(g.o.hosts, sizeof(uint64_t));
	g.rx_pkts = calloc(g.o.hosts, sizeof(uint64_t));
	g.qdrops = calloc(g.o.hosts, sizeof(uint64_t));
	g.hw = calloc(g.o.hosts, sizeof(*g.hw));
	g.pc = calloc(g.o.hosts, sizeof(*g.pc));
	g.eth = calloc(g.o.hosts, sizeof(*g.eth));
	if (!g.tx_bytes || !g.tx_pkts || !g.rx_bytes || !g.rx_pkts || !g.qdrops || !g.hw || !g.pc || !g.eth) {
		fprintf(stderr, "synthcap: out of memory\n");
		ret = -ENOMEM;
		goto out;
	}
	for (unsigned h = 0; h < g.o.hosts; h++) {
		/* counters that were already running when "recording" began */
		g.tx_bytes[h] = g.rx_bytes[h] = 1000000000ull * (h + 1);
		g.tx_pkts[h] = g.rx_pkts[h] = 1000000ull * (h + 1);
		g.pc[h][0] = g.pc[h][1] = 5000000ull * (h + 1);
	}
	ret = generate(&g);
out:
	if (!ret && !g.o.quiet)
		fprintf(stderr, "synthcap: wrote %s: %" PRIu64 " records, %" PRIu64 " collectives on %u ranks (%u hosts), "
			"%.3f s%s\n", g.o.out, g.records, g.ncoll, g.nranks, g.o.hosts, (double)g.o.duration / 1e9,
			g.o.lost ? ", with a lost-event gap" : "");
	free(g.tx_bytes);
	free(g.tx_pkts);
	free(g.rx_bytes);
	free(g.rx_pkts);
	free(g.qdrops);
	free(g.hw);
	free(g.pc);
	free(g.eth);
	return ret ? 1 : 0;
}

