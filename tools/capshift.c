// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * capshift: rewrite a capture as if another machine had recorded it, for the
 * multi-host tests (docs/multihost.md).
 *
 *   --mono-shift DUR    that machine booted at another time: every
 *                       CLOCK_MONOTONIC timestamp moves by DUR (signed), and
 *                       the realtime anchors with it, so REALTIME is unchanged
 *   --clock-error DUR   that machine's REALTIME is off by DUR (signed): the
 *                       header's realtime offset and every clock pair's
 *                       REALTIME/TAI move, the timestamps do not.  This is the
 *                       error `fabtrace merge` must find from the traffic.
 *   --drift PPB         its MONOTONIC runs PPB parts per 10^9 fast against the
 *                       reference (timestamps stretch around the start)
 *   --maxerror US       the sync state its clock claims: synchronised, with
 *                       this maxerror (esterror = maxerror / 4)
 *   --unsynced          the sync state: unsynchronised
 *   --host NAME         its host name (header and host identity)
 *
 * The host identity's boot id is always replaced (from the original and the
 * options): merge takes captures of one boot for one kernel and one clock.
 *
 * A capture without clock pairs (an older recorder, tools/synthcap) gets a
 * pair at its start and one at its end, from its header's anchor, when
 * --maxerror or --unsynced is given.
 *
 * The truth is printed as one JSON line on stdout, so a test can compare
 * what merge recovers with what was done.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "userspace/capture/capture.h"
#include "userspace/capture/retime.h"
#include "lib/opt.h"
#include "lib/util.h"

/* BOOT (NUL-terminated) replaced by an id of its own and the options. */
static void other_boot(char *boot, size_t len, const char *host, int64_t shift, int64_t cerr, int64_t drift)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */
	char key[256];

	snprintf(key, sizeof(key), "%.*s|%s|%lld|%lld|%lld", (int)len, boot, host ? host : "", (long long)shift,
		 (long long)cerr, (long long)drift);
	for (const char *p = key; *p; p++)
		h = (h ^ (uint8_t)*p) * 1099511628211ull;
	snprintf(boot, len, "capshift-%016llx", (unsigned long long)h);
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: capshift [--mono-shift DUR] [--clock-error DUR] [--drift PPB] [--maxerror US|--unsynced]\n"
		"                [--host NAME] -o OUT IN\n"
		"Rewrite capture IN as recorded by a machine with another clock (docs/multihost.md).\n"
		"DUR is signed, e.g. -3.25s, 1500us, +2h.  Prints the applied shift as JSON.\n"
		"Example: capshift --mono-shift 3600s --clock-error -17ms --maxerror 50000 --host node2 -o h2s.ftr h2.ftr\n");
}

static int signed_dur(const char *s, int64_t *out)
{
	int neg = 0;
	uint64_t v;

	if (*s == '-' || *s == '+')
		neg = *s++ == '-';
	if (!strcmp(s, "0")) {
		*out = 0;
		return 0;
	}
	if (parse_duration(s, 1000000000ull, &v) || v > (uint64_t)INT64_MAX)
		return -1;
	*out = neg ? -(int64_t)v : (int64_t)v;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "mono-shift", required_argument, NULL, 'm' }, { "clock-error", required_argument, NULL, 'e' },
		{ "drift", required_argument, NULL, 'D' }, { "maxerror", required_argument, NULL, 'M' },
		{ "unsynced", no_argument, NULL, 'U' }, { "host", required_argument, NULL, 'H' },
		{ "output", required_argument, NULL, 'o' }, { "help", no_argument, NULL, 'h' }, { 0 },
	};
	struct retime *rt = calloc(1, sizeof(*rt));
	const char *out = NULL, *host = NULL;
	int64_t shift = 0, cerr = 0, drift_ppb = 0, maxerr = -1;
	int unsynced = 0, c, rc = 1, st;
	struct capture_reader *r = NULL;
	struct capture_writer *w = NULL;
	struct ft_file_header h;
	const struct ft_rec_hdr *rec;
	char err[CAPTURE_ERR_MAX], *end;
	uint8_t buf[65536];

	if (!rt)
		return 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:h", lo, NULL)) != -1) {
		switch (c) {
		case 'm':
			if (signed_dur(optarg, &shift))
				goto bad;
			break;
		case 'e':
			if (signed_dur(optarg, &cerr))
				goto bad;
			break;
		case 'D':
			drift_ppb = strtoll(optarg, &end, 10);
			if (*end || end == optarg)
				goto bad;
			break;
		case 'M':
			maxerr = strtoll(optarg, &end, 10);
			if (*end || end == optarg || maxerr < 0)
				goto bad;
			break;
		case 'U':
			unsynced = 1;
			break;
		case 'H':
			host = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case 'h':
			usage(stdout);
			free(rt);
			return 0;
		default:
			goto bad;
		}
	}
	if (!out || optind != argc - 1)
		goto bad;
	if (capture__open(&r, argv[optind], err, sizeof(err))) {
		fprintf(stderr, "capshift: %s\n", err);
		goto out;
	}
	h = *capture__header(r);
	if (shift < 0 && (uint64_t)-shift >= h.start_mono_ns) {
		/* the times would fall before the clock's zero, where retiming saturates */
		fprintf(stderr, "capshift: --mono-shift %.3f s moves the capture (started at %.3f s) before its clock's zero; "
			"shift the other captures forward instead\n", (double)shift / 1e9, (double)h.start_mono_ns / 1e9);
		goto out;
	}
	rt->offset_ns = shift;
	rt->drift = (double)drift_ppb * 1e-9;
	rt->t0_ns = h.start_mono_ns;
	rt->bin_ns = h.bin_ns; /* bins stay on the grid (exactly, when the shift is a multiple of it) */
	rt->realtime_shift_ns = cerr;
	h.start_mono_ns = retime__ts(rt, h.start_mono_ns);
	h.realtime_offset_ns += cerr - shift;
	h.boottime_offset_ns -= shift;
	if (host)
		str_copy(h.hostname, host, sizeof(h.hostname));
	if (capture__create(&w, out, &h, (uid_t)-1, (gid_t)-1, err, sizeof(err))) {
		fprintf(stderr, "capshift: %s\n", err);
		goto out;
	}
	bool had_clock = false, added = false;
	uint64_t last_ts = h.start_mono_ns;

	while ((st = capture__next(r, &rec)) == 1) {
		if (rec->type == FT_REC_CLOCK)
			had_clock = true;
		if (rec->size >= 16 && rec->type != FT_REC_IFACE && rec->type != FT_REC_PROBE &&
		    rec->type < FT_REC_IFACE) { /* kernel records: a timestamp at offset 8 */
			uint64_t t;

			memcpy(&t, (const uint8_t *)rec + 8, sizeof(t));
			t = retime__ts(rt, t);
			last_ts = t > last_ts ? t : last_ts;
		}
		if (rec->type == FT_REC_END && !had_clock && (maxerr >= 0 || unsynced)) {
			/* an older capture: pairs at its start and end from the header's anchor */
			for (int k = 0; k < 2; k++) {
				struct ft_clock ck = { .hdr = { FT_REC_CLOCK, sizeof(ck), 0 } };

				ck.kind = k ? FT_CLOCK_STOP : FT_CLOCK_START;
				ck.mono_ns = k ? last_ts : h.start_mono_ns;
				ck.realtime_ns = (int64_t)ck.mono_ns + h.realtime_offset_ns;
				ck.sync = unsynced ? FT_SYNC_UNSYNCED : FT_SYNC_OK;
				ck.status = unsynced ? 0x40 : 0;
				ck.maxerror_us = unsynced ? 16000000 : maxerr;
				ck.esterror_us = unsynced ? 16000000 : maxerr / 4;
				if (capture__append(w, &ck.hdr)) {
					fprintf(stderr, "capshift: %s\n", capture__last_error(w));
					goto out;
				}
			}
			added = true;
		}
		memcpy(buf, rec, rec->size);
		struct ft_rec_hdr *x = (struct ft_rec_hdr *)(void *)buf;

		retime__record(rt, x);
		if (x->type == FT_REC_CLOCK) {
			struct ft_clock *k = (struct ft_clock *)(void *)buf;

			if (unsynced) {
				k->sync = FT_SYNC_UNSYNCED;
				k->status |= 0x40; /* STA_UNSYNC */
			} else if (maxerr >= 0) {
				k->sync = FT_SYNC_OK;
				k->status &= ~0x40u;
				k->maxerror_us = maxerr;
				k->esterror_us = maxerr / 4;
			}
		}
		if (x->type == FT_REC_HOST_ID) {
			struct ft_host_id *id = (struct ft_host_id *)(void *)buf;

			if (host)
				str_copy(id->hostname, host, sizeof(id->hostname));
			/* another machine: another boot (merge places captures of
			 * one boot on one clock), the same for the same options */
			other_boot(id->boot_id, sizeof(id->boot_id), host, shift, cerr, drift_ppb);
		}
		if (capture__append(w, x)) {
			fprintf(stderr, "capshift: %s\n", capture__last_error(w));
			goto out;
		}
	}
	if (st < 0)
		fprintf(stderr, "capshift: warning: %s (the rest is not copied)\n", capture__error(r));
	if (capture__close(w)) {
		w = NULL;
		fprintf(stderr, "capshift: writing %s failed\n", out);
		goto out;
	}
	w = NULL;
	printf("{\"input\":\"%s\",\"output\":\"%s\",\"mono_shift_ns\":%lld,\"clock_error_ns\":%lld,\"drift_ppb\":%lld,"
	       "\"clock_pairs_added\":%s}\n", argv[optind], out, (long long)shift, (long long)cerr, (long long)drift_ppb,
	       added ? "true" : "false");
	rc = 0;
	goto out;
bad:
	fprintf(stderr, "capshift: bad usage; see 'capshift --help'\n");
	rc = 2;
out:
	if (w)
		capture__close(w);
	capture__free(r);
	free(rt);
	return rc;
}
