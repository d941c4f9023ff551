// SPDX-License-Identifier: GPL-2.0-or-later
/* `fabtrace info`: host identity, clock pairs, sync state, merged hosts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "userspace/capture/clockinfo.h"
#include "userspace/capture/records.h"
#include "lib/util.h"

#define FIELD(arr, buf) field_str((arr), sizeof(arr), (buf), sizeof(buf))

static const char *field_str(const char *src, size_t srclen, char *buf, size_t len)
{
	size_t n = strnlen(src, srclen);

	if (n >= len)
		n = len - 1;
	memcpy(buf, src, n);
	buf[n] = '\0';
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)buf[i] < 0x20 || (unsigned char)buf[i] == 0x7f)
			buf[i] = '?';
	return buf;
}

const char *clockinfo__daemons(uint16_t bits, char *buf, size_t len)
{
	static const char *const names[] = { "chronyd", "ntpd", "systemd-timesyncd", "ptp4l", "phc2sys" };
	size_t o = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (bits & (1u << i)) {
			int n = snprintf(buf + o, len - o, "%s%s", o ? "," : "", names[i]);

			if (n < 0 || (size_t)n >= len - o)
				break;
			o += (size_t)n;
		}
	return buf;
}

/* a merged capture (its FT_REC_HOST records come first) mixes every host's
 * identities and pairs: its hosts are listed instead */
static int host_id(void *ctx, const struct ft_host_id *r)
{
	struct clockinfo *c = ctx;

	if (!c->nhosts && !c->have_id) {
		c->id = *r;
		c->have_id = true;
	}
	return 0;
}

static int clock_pair(void *ctx, const struct ft_clock *k)
{
	struct clockinfo *c = ctx;

	if (c->nhosts)
		return 0;
	if (!c->nclock)
		c->first = *k;
	c->last = *k;
	c->nclock++;
	if (k->maxerror_us > c->max_maxerror_us)
		c->max_maxerror_us = k->maxerror_us;
	if (k->sync == FT_SYNC_UNSYNCED)
		c->unsynced = true;
	return 0;
}

static int host(void *ctx, const struct ft_host *h)
{
	struct clockinfo *c = ctx;

	if (h->index >= CLOCKINFO_MAX_HOSTS)
		return 0;
	if (h->index >= c->nhosts) {
		struct ft_host *p = realloc(c->hosts, (h->index + 1) * sizeof(*p));

		if (!p)
			return 0;
		memset(p + c->nhosts, 0, (h->index + 1 - c->nhosts) * sizeof(*p));
		c->hosts = p;
		c->nhosts = h->index + 1;
	}
	c->hosts[h->index] = *h;
	return 0;
}

void clockinfo__add(struct clockinfo *c, const struct ft_rec_hdr *r)
{
	static const struct capture_visitor v = { .host_id = host_id, .clock = clock_pair, .host = host };

	(void)capture__dispatch(&v, c, r);
}

double clockinfo__drift_ppb(const struct clockinfo *c)
{
	double dm;

	if (c->nclock < 2 || c->last.mono_ns <= c->first.mono_ns)
		return 0;
	dm = (double)(c->last.mono_ns - c->first.mono_ns);
	return ((double)(c->last.realtime_ns - c->first.realtime_ns) - dm) / dm * 1e9;
}

static const char *sync_name(uint8_t s)
{
	return s == FT_SYNC_OK ? "synchronised" : s == FT_SYNC_UNSYNCED ? "unsynchronised" : "unknown";
}

void clockinfo__print(const struct clockinfo *c)
{
	char b1[128], b2[128];

	if (c->have_id)
		printf("host identity:   %s, machine-id %s, boot-id %s%s%s\n", FIELD(c->id.hostname, b1),
		       c->id.machine_id[0] ? FIELD(c->id.machine_id, b2) : "?",
		       c->id.boot_id[0] ? c->id.boot_id : "?", c->id.netns_name[0] ? ", namespace " : "",
		       c->id.netns_name[0] ? c->id.netns_name : "");
	if (c->nclock) {
		printf("clock:           %s (maxerror %lld us, esterror %lld us)%s%s; %llu pairs, "
		       "read within %llu ns; REALTIME-MONOTONIC drift %+.0f ppb\n",
		       sync_name(c->last.sync), (long long)c->last.maxerror_us, (long long)c->last.esterror_us,
		       c->last.daemons ? ", " : "", clockinfo__daemons(c->last.daemons, b1, sizeof(b1)),
		       (unsigned long long)c->nclock, (unsigned long long)c->first.gap_ns,
		       clockinfo__drift_ppb(c));
		if (c->last.tai_offset)
			printf("clock TAI:       TAI-UTC %d s (CLOCK_TAI recorded with every pair)\n",
			       (int)c->last.tai_offset);
	}
	if (c->nhosts) {
		printf("merged hosts:    %zu\n", c->nhosts);
		for (size_t i = 0; i < c->nhosts; i++) {
			const struct ft_host *h = &c->hosts[i];

			printf("  %-3zu %-20s offset %+.6f s  drift %+lld ppb  uncertainty %s%s  (%s)%s\n", i,
			       FIELD(h->label, b1), (double)h->offset_ns / 1e9, (long long)h->drift_ppb,
			       (h->flags & FT_HOST_REFERENCE) ? "reference" :
			       h->uncertainty_ns == UINT64_MAX ? "unknown" : fmt_ns(h->uncertainty_ns, b2, sizeof(b2)),
			       (h->flags & FT_HOST_SAME_KERNEL) ? ", same kernel as an earlier host" :
			       (h->flags & FT_HOST_TRAFFIC) ? ", from traffic" :
			       (h->flags & FT_HOST_COARSE) ? ", realtime anchors only" : "", h->source,
			       (h->flags & FT_HOST_DAMAGED) ? "  damaged capture: as far as readable" : "");
		}
	}
}

void clockinfo__json(const struct clockinfo *c, struct json *j)
{
	char b1[128];

	json_key(j, "host_id");
	if (!c->have_id) {
		json_null(j);
	} else {
		json_object_begin(j);
		json_kv_string(j, "hostname", FIELD(c->id.hostname, b1));
		json_kv_string(j, "machine_id", FIELD(c->id.machine_id, b1));
		json_kv_string(j, "boot_id", FIELD(c->id.boot_id, b1));
		json_kv_string(j, "netns_name", FIELD(c->id.netns_name, b1));
		json_kv_u64(j, "netns", c->id.netns);
		json_kv_i64(j, "start_realtime_ns", c->id.start_realtime_ns);
		json_object_end(j);
	}
	json_key(j, "clock");
	if (!c->nclock) {
		json_null(j);
	} else {
		json_object_begin(j);
		json_kv_u64(j, "pairs", c->nclock);
		json_kv_string(j, "sync", sync_name(c->last.sync));
		json_kv_bool(j, "ever_unsynchronised", c->unsynced);
		json_kv_i64(j, "maxerror_us", c->last.maxerror_us);
		json_kv_i64(j, "max_maxerror_us", c->max_maxerror_us);
		json_kv_i64(j, "esterror_us", c->last.esterror_us);
		json_kv_u64(j, "status", c->last.status);
		json_kv_i64(j, "tai_offset_s", c->last.tai_offset);
		json_kv_string(j, "daemons", clockinfo__daemons(c->last.daemons, b1, sizeof(b1)));
		json_kv_u64(j, "first_gap_ns", c->first.gap_ns);
		json_kv_u64(j, "first_mono_ns", c->first.mono_ns);
		json_kv_i64(j, "first_realtime_ns", c->first.realtime_ns);
		json_kv_u64(j, "last_mono_ns", c->last.mono_ns);
		json_kv_i64(j, "last_realtime_ns", c->last.realtime_ns);
		json_kv_double(j, "drift_ppb", clockinfo__drift_ppb(c), 1);
		json_object_end(j);
	}
	json_key(j, "hosts");
	json_array_begin(j);
	for (size_t i = 0; i < c->nhosts; i++) {
		const struct ft_host *h = &c->hosts[i];

		json_object_begin(j);
		json_kv_u64(j, "index", i);
		json_kv_string(j, "label", FIELD(h->label, b1));
		json_kv_string(j, "hostname", FIELD(h->hostname, b1));
		json_kv_string(j, "source", FIELD(h->source, b1));
		json_kv_bool(j, "reference", (h->flags & FT_HOST_REFERENCE) != 0);
		json_kv_bool(j, "from_traffic", (h->flags & FT_HOST_TRAFFIC) != 0);
		json_kv_bool(j, "same_kernel", (h->flags & FT_HOST_SAME_KERNEL) != 0);
		json_kv_bool(j, "damaged", (h->flags & FT_HOST_DAMAGED) != 0);
		json_kv_i64(j, "offset_ns", h->offset_ns);
		json_kv_i64(j, "coarse_offset_ns", h->coarse_offset_ns);
		json_kv_i64(j, "drift_ppb", h->drift_ppb);
		if (h->uncertainty_ns == UINT64_MAX) /* no bound: no sync state, no traffic */
			json_kv_string(j, "uncertainty_ns", NULL);
		else
			json_kv_u64(j, "uncertainty_ns", h->uncertainty_ns);
		json_kv_u64(j, "pid_base", h->pid_base);
		json_object_end(j);
	}
	json_array_end(j);
}

void clockinfo__free(struct clockinfo *c)
{
	free(c->hosts);
	c->hosts = NULL;
	c->nhosts = 0;
}
