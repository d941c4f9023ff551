// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * How compare names its metrics and writes their values for people: one
 * table of metric names, one formatter per unit (the text and the HTML
 * page read both).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lib/util.h"
#include "userspace/compare/compare.h"

static const struct {
	const char *name, *label;
} labels[] = {
	{ "time_p50", "time p50" },
	{ "time_p99", "time p99" },
	{ "busbw", "bus bandwidth" },
	{ "coll_time", "time in collectives" },
	{ "waiting_share", "waiting share" },
	{ "usual_share", "usual share" },
	{ "network_share", "network share" },
	{ "unexplained_share", "unexplained share" },
	{ "drops_per_gb", "drops per GB" },
	{ "retrans_per_gb", "retransmits per GB" },
	{ "rto_per_gb", "RTO retransmits per GB" },
	{ "fast_per_gb", "fast retransmits per GB" },
	{ "ce_per_gb", "CE marks per GB" },
	{ "microbursts", "microbursts" },
	{ "burst_peak", "peak bin (of capacity)" },
	{ "sojourn_p50", "sojourn p50" },
	{ "sojourn_p99", "sojourn p99" },
	{ "sojourn_max", "sojourn max" },
	{ "max_backlog", "largest backlog" },
	{ "pause_time", "pause time" },
	{ "cnp_time", "CNP/ECN time" },
};

const char *cmp__metric_label(const char *name)
{
	for (size_t i = 0; i < sizeof(labels) / sizeof(labels[0]); i++)
		if (!strcmp(labels[i].name, name))
			return labels[i].label;
	return name;
}

const char *cmp__fmt(const char *unit, double v, char *buf, size_t len)
{
	char b[48];
	double a = fabs(v);
	const char *sign = v < 0 ? "-" : "";

	if (!isfinite(v)) {
		snprintf(buf, len, "-");
	} else if (!strcmp(unit, "s")) {
		snprintf(buf, len, "%s%s", sign, a == 0 ? "0" : fmt_ns((uint64_t)llround(a * 1e9), b, sizeof(b)));
	} else if (!strcmp(unit, "B/s")) {
		snprintf(buf, len, "%s%s/s", sign, fmt_bytes(a, b, sizeof(b)));
	} else if (!strcmp(unit, "B")) {
		snprintf(buf, len, "%s%s", sign, fmt_bytes(a, b, sizeof(b)));
	} else if (!strcmp(unit, "share")) {
		snprintf(buf, len, "%.1f%%", 100 * v);
	} else if (!strcmp(unit, "1/GB")) {
		snprintf(buf, len, a >= 100 ? "%.0f/GB" : "%.3g/GB", v);
	} else {
		snprintf(buf, len, "%.4g", v);
	}
	return buf;
}
