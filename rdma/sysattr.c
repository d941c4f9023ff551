// SPDX-License-Identifier: GPL-2.0-or-later
/* sysfs attribute reading and parsing for the counter sampler. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sysattr.h"

int sysattr__read(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd, err;

	if (len == 0)
		return -EINVAL;
	buf[0] = '\0';
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len);
	err = errno;
	close(fd);
	if (n < 0)
		return -err;
	if ((size_t)n >= len) {
		buf[0] = '\0';
		return -EFBIG;
	}
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' ' || buf[n - 1] == '\t' || buf[n - 1] == '\r'))
		n--;
	buf[n] = '\0';
	return (int)n;
}

void sysattr__copy(char *dst, const char *src, size_t len)
{
	size_t n;

	if (!len)
		return;
	n = src ? strnlen(src, len - 1) : 0;
	if (n)
		memcpy(dst, src, n);
	dst[n] = '\0';
}

uint64_t sysattr__now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int sysattr__path(char *buf, size_t len, const char *a, const char *b)
{
	int n = snprintf(buf, len, "%s/%s", a, b);

	if (n < 0 || (size_t)n >= len) {
		if (len)
			buf[0] = '\0';
		return -ENAMETOOLONG;
	}
	return 0;
}

int sysattr__read_in(const char *dir, const char *name, char *buf, size_t len)
{
	char path[PATH_MAX];
	int rc = sysattr__path(path, sizeof(path), dir, name);

	if (rc) {
		if (len)
			buf[0] = '\0';
		return rc;
	}
	return sysattr__read(path, buf, len);
}

static const char *skip_spaces(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* Digits at *P into *V (bounded); false without any digit. */
static bool take_uint(const char **p, uint64_t *v, uint64_t max)
{
	const char *s = *p;
	uint64_t x = 0;

	if (*s < '0' || *s > '9')
		return false;
	while (*s >= '0' && *s <= '9') {
		x = x * 10 + (uint64_t)(*s - '0');
		if (x > max)
			return false;
		s++;
	}
	*v = x;
	*p = s;
	return true;
}

int sysattr__parse_state(const char *text, unsigned *out)
{
	const char *p = skip_spaces(text);
	uint64_t v;

	if (!take_uint(&p, &v, 255))
		return -EINVAL;
	if (*p != ':' && *p != '\0')
		return -EINVAL;
	*out = (unsigned)v;
	return 0;
}

int sysattr__parse_rate(const char *text, unsigned *width, uint32_t *mbps)
{
	const char *p = skip_spaces(text);
	uint64_t gb, frac = 0, w;
	unsigned scale = 1000;

	if (!take_uint(&p, &gb, 1000000))
		return -EINVAL;
	if (*p == '.') {
		p++;
		if (*p < '0' || *p > '9')
			return -EINVAL;
		/* fraction of a Gb/s, to Mb/s: "2.5" -> 2500 */
		while (*p >= '0' && *p <= '9') {
			scale /= 10;
			frac += (uint64_t)(*p - '0') * scale;
			p++;
		}
	}
	if (strncmp(p, " Gb/sec", 7) != 0)
		return -EINVAL;
	p = skip_spaces(p + 7);
	if (*p != '(')
		return -EINVAL;
	p++;
	if (!take_uint(&p, &w, 64) || *p != 'X')
		return -EINVAL;
	if (gb * 1000 + frac > UINT32_MAX)
		return -EINVAL;
	*width = (unsigned)w;
	*mbps = (uint32_t)(gb * 1000 + frac);
	return 0;
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int sysattr__parse_guid(const char *text, uint64_t *out)
{
	const char *p = skip_spaces(text);
	uint64_t v = 0;

	/* the kernel prints "%04x:%04x:%04x:%04x" */
	for (int g = 0; g < 4; g++) {
		for (int k = 0; k < 4; k++, p++) {
			int d = hex_digit(*p);

			if (d < 0)
				return -EINVAL;
			v = (v << 4) | (uint64_t)d;
		}
		if (g < 3 && *p++ != ':')
			return -EINVAL;
	}
	if (*skip_spaces(p) != '\0')
		return -EINVAL;
	*out = v;
	return 0;
}

static int cmp_names(const void *a, const void *b, void *arg)
{
	int (*const *cmp)(const char *, const char *) = arg;

	return (*cmp)(*(char *const *)a, *(char *const *)b);
}
void sysattr__free_list(char **names, size_t n)
{
	if (!names)
		return;
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

int sysattr__list(const char *dir, bool files_only, int (*cmp)(const char *, const char *),
		  char ***names, size_t *n)
{
	char **v = NULL;
	size_t cnt = 0, cap = 0;
	struct dirent *de;
	DIR *d;
	int err = 0;

	*names = NULL;
	*n = 0;
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		struct stat st;
		bool want;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		/* follow symlinks: class/infiniband/<dev> is one in the real sysfs */
		if (fstatat(dirfd(d), de->d_name, &st, 0) != 0)
			continue;
		want = files_only ? S_ISREG(st.st_mode) : S_ISDIR(st.st_mode);
		if (!want)
			continue;
		if (cnt == cap) {
			size_t ncap = cap ? cap * 2 : 32;
			char **nv = realloc(v, ncap * sizeof(*v));

			if (!nv) {
				err = -ENOMEM;
				break;
			}
			v = nv;
			cap = ncap;
		}
		v[cnt] = strdup(de->d_name);
		if (!v[cnt]) {
			err = -ENOMEM;
			break;
		}
		cnt++;
	}
	closedir(d);
	if (err) {
		sysattr__free_list(v, cnt);
		return err;
	}
	if (cnt > 1) {
		int (*fn)(const char *, const char *) = cmp ? cmp : strcmp;

		qsort_r(v, cnt, sizeof(*v), cmp_names, &fn);
	}
	*names = v;
	*n = cnt;
	return 0;
}
