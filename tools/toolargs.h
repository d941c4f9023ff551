/* SPDX-License-Identifier: GPL-2.0 */
/*
 * toolargs.h — argument parsers shared by the standalone lab tools
 * (allreduce, nccl_sim, incast, ecn_send, phase_workload).
 *
 * Each tool is built from its single .c file (allreduce with mpicc), with
 * no library to link against, so the shared code lives here as static
 * inline functions rather than in a separate object file.
 */
#ifndef FABTRACE_TOOLS_TOOLARGS_H
#define FABTRACE_TOOLS_TOOLARGS_H

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Flags for toolargs_num() and toolargs_addr(). */
#define TA_SUFFIX 0x1 /* accept k/m/g (KiB/MiB/GiB), optionally followed by i and/or b */
#define TA_BASE0  0x2 /* strtoll base 0: also 0x hex and 0 octal; default is decimal */

/*
 * Parse an integer in [min, max] into *out; 0 on success, -1 on any error
 * (empty string, trailing garbage, overflow, out of range).  Negative
 * input is only accepted if min allows it.
 */
static inline int toolargs_num(const char *s, long long min, long long max, long long *out,
			       unsigned flags)
{
	char *end;
	long long v, mul = 1;

	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtoll(s, &end, (flags & TA_BASE0) ? 0 : 10);
	if (errno || end == s)
		return -1;
	if ((flags & TA_SUFFIX) && *end) {
		switch (*end) {
		case 'k': case 'K': mul = 1LL << 10; break;
		case 'm': case 'M': mul = 1LL << 20; break;
		case 'g': case 'G': mul = 1LL << 30; break;
		default: return -1;
		}
		end++;
		if (*end == 'i' || *end == 'I')
			end++;
		if (*end == 'b' || *end == 'B')
			end++;
	}
	if (*end)
		return -1;
	if (v > LLONG_MAX / mul || v < LLONG_MIN / mul)
		return -1;
	v *= mul;
	if (v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

/*
 * Parse IPv4ADDR:PORT into *sa; 0 on success, -1 on error.  The port is
 * parsed by toolargs_num() with the given flags (TA_SUFFIX makes no sense
 * here).
 */
static inline int toolargs_addr(const char *s, struct sockaddr_in *sa, unsigned flags)
{
	char host[64];
	const char *colon = strrchr(s, ':');
	long long port;
	size_t len;

	if (!colon)
		return -1;
	len = (size_t)(colon - s);
	if (len == 0 || len >= sizeof(host))
		return -1;
	memcpy(host, s, len);
	host[len] = '\0';
	if (toolargs_num(colon + 1, 1, 65535, &port, flags))
		return -1;
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_port = htons((uint16_t)port);
	return inet_pton(AF_INET, host, &sa->sin_addr) == 1 ? 0 : -1;
}

enum toolargs_list_err {
	TA_LIST_TOO_LONG = -1, /* MAXLEN characters or more */
	TA_LIST_UNKNOWN  = -2, /* a name not in the table */
	TA_LIST_TOO_MANY = -3, /* more than MAX names */
	TA_LIST_EMPTY    = -4, /* no name at all */
};

/*
 * Parse a comma-separated list of names ("allreduce,bcast"; empty
 * elements are skipped) into OUT[] as indices into NAMES[0..nnames), at
 * most MAX of them, from a string shorter than MAXLEN (<= 1024): the count
 * (>= 1), or a negative enum toolargs_list_err.
 */
static inline int toolargs_list(const char *s, size_t maxlen, const char *const *names, int nnames, int *out,
				int max)
{
	char buf[1024], *save = NULL, *tok;
	int n = 0;

	if (strlen(s) >= maxlen || strlen(s) >= sizeof(buf))
		return TA_LIST_TOO_LONG;
	strcpy(buf, s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int k = 0;

		while (k < nnames && strcmp(tok, names[k]) != 0)
			k++;
		if (k == nnames)
			return TA_LIST_UNKNOWN;
		if (n >= max)
			return TA_LIST_TOO_MANY;
		out[n++] = k;
	}
	return n ? n : TA_LIST_EMPTY;
}

#endif /* FABTRACE_TOOLS_TOOLARGS_H */
