// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The flight recorder's options (flight.h): defaults, parsing, checks.
 * Named as perf and tcpdump users know them: perf record's --switch-output
 * and --switch-max-files; the bounds as --keep/--keep-size; snapshots as
 * --snapshot-*, with LTTng's rate policies (every:N, once-after:N).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/opt.h"
#include "lib/util.h"
#include "userspace/record/flight.h"
#include "userspace/record/flight_control.h"

#define SEC 1000000000ull

void flight_opts__init(struct flight_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->seg_ns = 10 * SEC;
	o->lim.keep_ns = 300 * SEC;
	o->lim.keep_bytes = 1ull << 30;
	o->pol.pre_ns = 30 * SEC;
	o->pol.post_ns = 10 * SEC;
	o->pol.max_ns = 300 * SEC;
	o->control = FLIGHT_CTL_DEFAULT;
}

/* --switch-output TIME|SIZE: a duration ("10s", "2m": m is minutes, as
 * perf has it), else a size ("64M"). */
static int parse_switch(struct flight_opts *o, const char *arg)
{
	uint64_t v;

	if (!parse_duration(arg, 0, &v)) {
		if (v < SEC) { /* it was taken and made 1 s, the status line naming 500 ms */
			ft_err("record: --switch-output %s is too short: segments close to the second (the recorder "
			       "looks once a second); give 1s or more", arg);
			return -1;
		}
		if (o->seg_ns_set) {
			ft_err("record: --switch-output gives a time twice (%s); give one time and, if you like, one "
			       "size", arg);
			return -1;
		}
		o->seg_ns = v;
		o->seg_ns_set = true;
		return 1;
	}
	if (!parse_size(arg, &v) && v >= (16u << 10)) {
		if (o->seg_bytes_set) {
			ft_err("record: --switch-output gives a size twice (%s); give one size and, if you like, one "
			       "time", arg);
			return -1;
		}
		o->seg_bytes = v;
		o->seg_bytes_set = true;
		return 1;
	}
	ft_err_bad_value("record", "--switch-output", arg, "a time or a size",
			 "e.g. 10s, 2m or a size of 16k or more (64M, 1G)");
	return -1;
}

static int dur(const char *opt, const char *arg, bool zero_ok, uint64_t *out)
{
	if (zero_ok && !strcmp(arg, "0")) {
		*out = 0;
		return 1;
	}
	if (parse_duration(arg, SEC, out)) {
		ft_err_bad_value("record", opt, arg, "a duration", "e.g. 30s, 500ms, 5m%s", zero_ok ? " (0: none)" : "");
		return -1;
	}
	return 1;
}

int flight_opts__parse(struct flight_opts *o, int c, const char *arg)
{
	long n;

	switch (c) {
	case FOPT_SWITCH_OUTPUT:
		o->on = true;
		return parse_switch(o, arg);
	case FOPT_MAX_FILES:
		o->bound_opt = o->bound_opt ? o->bound_opt : "--switch-max-files";
		if (parse_long(arg, 2, 1000000, &n)) {
			ft_err_bad_value("record", "--switch-max-files", arg, "a number of segments", "2 or more");
			return -1;
		}
		o->lim.max_files = (uint32_t)n;
		return 1;
	case FOPT_KEEP:
		o->bound_opt = o->bound_opt ? o->bound_opt : "--keep";
		return dur("--keep", arg, true, &o->lim.keep_ns);
	case FOPT_KEEP_SIZE:
		o->bound_opt = o->bound_opt ? o->bound_opt : "--keep-size";
		if (!strcmp(arg, "0")) {
			o->lim.keep_bytes = 0;
			return 1;
		}
		if (parse_size(arg, &o->lim.keep_bytes) || o->lim.keep_bytes < (64u << 10)) {
			ft_err_bad_value("record", "--keep-size", arg, "a size of 64k or more",
					 "e.g. 2G, or 0 for no bound");
			return -1;
		}
		return 1;
	case FOPT_PRE:
		o->snap_opt = true;
		return dur("--snapshot-pre", arg, true, &o->pol.pre_ns);
	case FOPT_POST:
		o->snap_opt = true;
		return dur("--snapshot-post", arg, true, &o->pol.post_ns);
	case FOPT_SNAP_MAX:
		o->snap_opt = true;
		return dur("--snapshot-max", arg, false, &o->pol.max_ns);
	case FOPT_COOLDOWN:
		o->snap_opt = true;
		return dur("--snapshot-cooldown", arg, true, &o->pol.cooldown_ns);
	case FOPT_POLICY:
		o->snap_opt = true;
		if (!strcmp(arg, "all")) {
			o->pol.rate.kind = FLIGHT_RATE_ALL;
			return 1;
		}
		if (flight_rate__parse(arg, &o->pol.rate)) {
			ft_err_bad_value("record", "--snapshot-policy", arg, "a rate policy",
					 "every:N (every Nth trigger of a rule), once-after:N (its Nth only) or all");
			return -1;
		}
		return 1;
	case FOPT_SNAP_DIR:
		o->snap_opt = true;
		if (!arg[0]) {
			ft_err("record: --snapshot-dir needs a directory");
			return -1;
		}
		o->snap_dir = arg;
		return 1;
	case FOPT_CONTROL:
		o->snap_opt = true;
		if (!flight_ctl__name_ok(arg)) {
			ft_err_bad_value("record", "--control", arg, "a socket name", FLIGHT_CTL_NAME_HINT);
			return -1;
		}
		o->control = arg;
		return 1;
	default:
		return 0;
	}
}

int flight_opts__check(const struct flight_opts *o, const struct session_opts *so, bool out_given)
{
	char a[32];

	if (!o->on) {
		if (o->snap_opt) {
			ft_err("record: snapshots come from the flight recorder: add --switch-output TIME "
			       "(and -o DIR)");
			return -1;
		}
		if (o->bound_opt) {
			ft_err("record: %s bounds the flight recorder's segments: add --switch-output TIME "
			       "(and -o DIR)", o->bound_opt);
			return -1;
		}
		return 0;
	}
	if (!out_given) {
		ft_err("record: the flight recorder (--switch-output) needs -o DIR, the directory its "
		       "segments go into");
		return -1;
	}
	if (so->format_version == 1) {
		ft_err("record: --format-version 1 has no segments or triggers; convert snapshots with "
		       "'fabtrace merge --format-version 1' instead");
		return -1;
	}
	if (!o->lim.keep_ns && !o->lim.keep_bytes && !o->lim.max_files) {
		ft_err("record: the flight recorder needs a bound: --keep, --keep-size or --switch-max-files");
		return -1;
	}
	if (o->lim.keep_ns && o->pol.pre_ns + o->seg_ns > o->lim.keep_ns) {
		char b[32];

		ft_err("record: --keep %s cannot hold a --snapshot-pre of %s and a segment; keep at least their sum",
		       fmt_ns(o->lim.keep_ns, a, sizeof(a)), fmt_ns(o->pol.pre_ns, b, sizeof(b)));
		return -1;
	}
	if (o->pol.pre_ns + o->pol.post_ns > o->pol.max_ns) {
		ft_err("record: --snapshot-max %s is shorter than --snapshot-pre plus --snapshot-post",
		       fmt_ns(o->pol.max_ns, a, sizeof(a)));
		return -1;
	}
	return 0;
}
