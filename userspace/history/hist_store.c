// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The summaries' day files (history.h): DIR/summaries/YYYY-MM-DD.jsonl by
 * the collectives' wall time (UTC), appended whole lines at once under
 * O_APPEND and fsync'd per segment, so that a crash leaves whole lines (at
 * worst a last line cut short, which the reader skips and counts); a day
 * goes once its last moment is older than --keep-summaries.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "userspace/history/history.h"

#define DAY_S 86400

void hist_store__day_name(int64_t wall_ns, char *buf, size_t len)
{
	time_t t = (time_t)(wall_ns / 1000000000);
	struct tm tm;

	gmtime_r(&t, &tm);
	snprintf(buf, len, "%04d-%02d-%02d.jsonl", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday);
}

/* The day NAME names, as seconds since the epoch at its UTC midnight; -1 not a day file. */
static int64_t day_start(const char *name)
{
	static const char shape[] = "dddd-dd-dd.jsonl";
	int y, mo, d;
	struct tm tm;

	for (size_t i = 0; i < sizeof(shape); i++) /* its NUL too: nothing after */
		if (shape[i] == 'd' ? name[i] < '0' || name[i] > '9' : name[i] != shape[i])
			return -1;
	y = (name[0] - '0') * 1000 + (name[1] - '0') * 100 + (name[2] - '0') * 10 + (name[3] - '0');
	mo = (name[5] - '0') * 10 + (name[6] - '0');
	d = (name[8] - '0') * 10 + (name[9] - '0');
	if (mo < 1 || mo > 12 || d < 1 || d > 31 || y < 1970)
		return -1;
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	return (int64_t)timegm(&tm);
}

bool hist_store__expired(const char *name, int64_t now_s, int64_t keep_s)
{
	int64_t start = day_start(name);

	return start >= 0 && keep_s > 0 && start + DAY_S <= now_s - keep_s;
}

static void sub_path(const char *dir, const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s%s%s", dir, HIST_SUBDIR, name ? "/" : "", name ? name : "");
}

int hist_store__mkdir(const char *dir, char *err, size_t errlen)
{
	char p[4200];

	sub_path(dir, NULL, p, sizeof(p));
	if (mkdir(p, 0755) && errno != EEXIST) {
		int e = errno;

		snprintf(err, errlen, "%s: %s", p, strerror(e));
		return -e;
	}
	return 0;
}

/* TEXT[from, to) to day file NAME: one write (whole lines), fsync'd. */
static int append_day(const char *dir, const char *name, const char *text, size_t from, size_t to,
		      char *err, size_t errlen)
{
	char p[4200];
	int fd, e = 0;
	size_t done = 0;

	sub_path(dir, name, p, sizeof(p));
	fd = open(p, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		e = errno;
	while (!e && done < to - from) {
		ssize_t w = write(fd, text + from + done, to - from - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			e = w < 0 ? errno : EIO;
		else
			done += (size_t)w;
	}
	if (!e && fsync(fd))
		e = errno;
	if (fd >= 0 && close(fd) && !e)
		e = errno;
	if (e)
		snprintf(err, errlen, "%s: %s", p, strerror(e));
	return -e;
}

/* The end of the line at OFF in TEXT (after its newline). */
static size_t line_end(const char *text, size_t off)
{
	const char *nl = strchr(text + off, '\n');

	return nl ? (size_t)(nl - text) + 1 : off + strlen(text + off);
}

int hist_store__append(const char *dir, const char *text, const size_t *off, const int64_t *wall_ns,
		       size_t n, char *err, size_t errlen)
{
	size_t i = 0;

	while (i < n) {
		char name[64], next[64];
		size_t k = i + 1;
		int rc;

		hist_store__day_name(wall_ns[i], name, sizeof(name));
		for (; k < n; k++) {
			hist_store__day_name(wall_ns[k], next, sizeof(next));
			if (strcmp(next, name) != 0)
				break;
		}
		rc = append_day(dir, name, text, off[i], k < n ? off[k] : line_end(text, off[n - 1]), err, errlen);
		if (rc)
			return rc;
		i = k;
	}
	return 0;
}

size_t hist_store__retain(const char *dir, int64_t now_s, int64_t keep_s)
{
	char p[4200];
	struct dirent *e;
	size_t n = 0;
	DIR *d;

	sub_path(dir, NULL, p, sizeof(p));
	d = opendir(p);
	if (!d)
		return 0;
	while ((e = readdir(d)))
		if (hist_store__expired(e->d_name, now_s, keep_s)) {
			char f[4500];

			snprintf(f, sizeof(f), "%s/%s", p, e->d_name);
			n += unlink(f) == 0;
		}
	closedir(d);
	return n;
}
