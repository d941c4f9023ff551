// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Host identity, clock pairs and output-name patterns for captures that are
 * meant to be merged (docs/multihost.md, docs/capture-format.md).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/timex.h>

#include "userspace/record/hostclock.h"
#include "lib/util.h"

#ifndef CLOCK_TAI
#define CLOCK_TAI 11
#endif

static int64_t ts_ns(const struct timespec *t)
{
	return (int64_t)t->tv_sec * 1000000000LL + t->tv_nsec;
}

uint16_t hostclock__daemons(void)
{
	static const struct { const char *comm; uint16_t bit; } known[] = {
		{ "chronyd", FT_CLKD_CHRONY }, { "ntpd", FT_CLKD_NTPD },
		{ "systemd-timesyn", FT_CLKD_TIMESYNCD }, { "ptp4l", FT_CLKD_PTP4L },
		{ "phc2sys", FT_CLKD_PHC2SYS },
	};
	DIR *d = opendir("/proc");
	struct dirent *e;
	uint16_t bits = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char path[64], comm[32];
		ssize_t n;
		int fd;

		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%.20s/comm", e->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		n = read(fd, comm, sizeof(comm) - 1);
		close(fd);
		if (n <= 0)
			continue;
		comm[n] = '\0';
		comm[strcspn(comm, "\n")] = '\0';
		for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
			if (!strcmp(comm, known[i].comm))
				bits |= known[i].bit;
	}
	closedir(d);
	return bits;
}

void hostclock__sample(struct ft_clock *c, uint8_t kind, uint16_t daemons)
{
	struct timex tx = { 0 };
	int64_t best = INT64_MAX;
	int st;

	memset(c, 0, sizeof(*c));
	c->hdr.type = FT_REC_CLOCK;
	c->hdr.size = sizeof(*c);
	/* Bracket REALTIME and TAI between two MONOTONIC reads; keep the tightest
	 * of a few tries (a preemption in between only widens that try). */
	for (int i = 0; i < 7; i++) {
		struct timespec a, rt, tai, b;
		int64_t ma, mb;

		clock_gettime(CLOCK_MONOTONIC, &a);
		clock_gettime(CLOCK_REALTIME, &rt);
		if (clock_gettime(CLOCK_TAI, &tai))
			tai = (struct timespec){ 0, 0 };
		clock_gettime(CLOCK_MONOTONIC, &b);
		ma = ts_ns(&a);
		mb = ts_ns(&b);
		if (mb - ma < best) {
			best = mb - ma;
			c->mono_ns = (uint64_t)(ma + (mb - ma) / 2);
			c->realtime_ns = ts_ns(&rt);
			c->tai_ns = ts_ns(&tai);
			c->gap_ns = (uint64_t)(mb - ma);
		}
	}
	st = adjtimex(&tx);
	c->kind = kind;
	c->daemons = daemons;
	if (st < 0) {
		c->sync = FT_SYNC_UNKNOWN;
		c->maxerror_us = c->esterror_us = -1;
		c->state = -1;
		return;
	}
	c->state = st;
	c->status = (uint32_t)tx.status;
	c->maxerror_us = tx.maxerror;
	c->esterror_us = tx.esterror;
	c->freq = tx.freq;
	c->offset_ns = (tx.status & STA_NANO) ? tx.offset : tx.offset * 1000;
	c->tai_offset = tx.tai;
	c->sync = (tx.status & STA_UNSYNC) || st == TIME_ERROR ? FT_SYNC_UNSYNCED : FT_SYNC_OK;
}

static void read_line(const char *path, char *out, size_t len)
{
	FILE *f = fopen(path, "re");

	out[0] = '\0';
	if (!f)
		return;
	if (fgets(out, (int)len, f))
		out[strcspn(out, "\n")] = '\0';
	fclose(f);
}

void hostclock__host_id(struct ft_host_id *h, const char *netns_name, uint32_t netns)
{
	struct timespec rt;

	memset(h, 0, sizeof(*h));
	h->hdr.type = FT_REC_HOST_ID;
	h->hdr.size = sizeof(*h);
	gethostname(h->hostname, sizeof(h->hostname) - 1);
	read_line("/etc/machine-id", h->machine_id, sizeof(h->machine_id));
	read_line("/proc/sys/kernel/random/boot_id", h->boot_id, sizeof(h->boot_id));
	if (netns_name)
		str_copy(h->netns_name, netns_name, sizeof(h->netns_name));
	h->netns = netns;
	h->pid = (uint32_t)getpid();
	clock_gettime(CLOCK_REALTIME, &rt);
	h->start_realtime_ns = ts_ns(&rt);
}

int hostclock__expand_path(const char *pattern, const char *hostname, time_t start, pid_t pid,
			   char *out, size_t outlen, char *err, size_t errlen)
{
	size_t o = 0;

	if (!outlen)
		return -ENAMETOOLONG;
	for (const char *p = pattern; *p; p++) {
		char piece[128];
		const char *add = piece;

		if (*p != '%') {
			piece[0] = *p;
			piece[1] = '\0';
		} else {
			struct tm tm;

			switch (*++p) {
			case 'h':
			case 'H': {
				size_t n = strlen(hostname);

				if (*p == 'h')
					n = strcspn(hostname, ".");
				if (!n || memchr(hostname, '/', n)) {
					snprintf(err, errlen, "output pattern '%s': the hostname '%s' cannot be part "
						 "of a file name", pattern, hostname);
					return -EINVAL;
				}
				snprintf(piece, sizeof(piece), "%.*s", (int)(n < 100 ? n : 100), hostname);
				break;
			}
			case 't':
				if (!gmtime_r(&start, &tm) || !strftime(piece, sizeof(piece), "%Y%m%dT%H%M%SZ", &tm)) {
					snprintf(err, errlen, "output pattern '%s': cannot format the start time", pattern);
					return -EINVAL;
				}
				break;
			case 'p':
				snprintf(piece, sizeof(piece), "%ld", (long)pid);
				break;
			case '%':
				add = "%";
				break;
			case '\0':
				snprintf(err, errlen, "output pattern '%s' ends in a lone '%%'; write %%%% for a '%%'",
					 pattern);
				return -EINVAL;
			default:
				snprintf(err, errlen, "output pattern '%s': unknown '%%%c'; use %%h (host), %%H (full "
					 "hostname), %%t (start time), %%p (pid) or %%%% ('%%')", pattern, *p);
				return -EINVAL;
			}
		}
		size_t n = strlen(add);

		if (o + n >= outlen) {
			snprintf(err, errlen, "output pattern '%s' expands to a name that is too long", pattern);
			return -ENAMETOOLONG;
		}
		memcpy(out + o, add, n);
		o += n;
	}
	out[o] = '\0';
	if (!o) {
		snprintf(err, errlen, "empty output path");
		return -EINVAL;
	}
	return 0;
}
