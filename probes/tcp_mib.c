// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A namespace's TCP counters from /proc/net/snmp (tcp_mib.h).  The file is
 * opened through /proc/thread-self: setns() moves only the calling thread,
 * and /proc/self would name the thread group leader's namespace.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probes/tcp_mib.h"

int tcp_mib__open(void)
{
	int fd = open("/proc/thread-self/net/snmp", O_RDONLY | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/* The next space-separated word of *S (advanced past it) into W; its length, 0 at the line's end. */
static size_t word(const char **s, const char **w)
{
	const char *p = *s;
	size_t n;

	while (*p == ' ')
		p++;
	*w = p;
	n = strcspn(p, " \n");
	*s = p + n;
	return n;
}

/* The first line of TEXT starting with "Tcp: ", past that; NULL none. */
static const char *tcp_line(const char *text)
{
	const char *p = text;

	if (!strncmp(p, "Tcp: ", 5))
		return p + 5;
	p = strstr(p, "\nTcp: ");
	return p ? p + 6 : NULL;
}

int tcp_mib__parse(const char *text, struct tcp_mib *m)
{
	const char *hdr = tcp_line(text), *val = hdr ? tcp_line(hdr) : NULL;
	int found = 0;

	if (!val)
		return -EINVAL;
	memset(m, 0, sizeof(*m));
	for (;;) {
		const char *name, *num;
		size_t nl = word(&hdr, &name), vl = word(&val, &num);
		uint64_t *dst = NULL;
		char *end;

		if (!nl || !vl)
			break;
		if (nl == 11 && !strncmp(name, "ActiveOpens", nl))
			dst = &m->active_opens;
		else if (nl == 12 && !strncmp(name, "PassiveOpens", nl))
			dst = &m->passive_opens;
		else if (nl == 9 && !strncmp(name, "CurrEstab", nl))
			dst = &m->curr_estab;
		if (!dst)
			continue;
		errno = 0;
		*dst = strtoull(num, &end, 10);
		if (errno || end != num + vl)
			return -EINVAL;
		found++;
	}
	return found == 3 ? 0 : -EINVAL;
}

int tcp_mib__read(int fd, struct tcp_mib *m)
{
	char buf[4096];
	size_t len = 0;
	ssize_t n;

	/* a seq_file: read from the start until it ends (about 1.5 kB) */
	while (len < sizeof(buf) - 1 && (n = pread(fd, buf + len, sizeof(buf) - 1 - len, (off_t)len)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		len += (size_t)n;
	}
	buf[len] = '\0';
	return tcp_mib__parse(buf, m);
}

bool tcp_mib__changed(const struct tcp_mib *a, const struct tcp_mib *b)
{
	return a->active_opens != b->active_opens || a->passive_opens != b->passive_opens ||
	       a->curr_estab != b->curr_estab;
}
