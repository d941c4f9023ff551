/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The TCP counters of a network namespace (/proc/net/snmp's "Tcp:" lines)
 * that say whether its connected sockets can have changed since the last
 * look: connections opened either way, and those established now.  One
 * read is a small text; a sock_diag dump walks the kernel's whole
 * established hash (shared by every namespace, 2^18 buckets on this VM and
 * more on a large node) for each namespace asked.
 */
#ifndef FABTRACE_TCP_MIB_H
#define FABTRACE_TCP_MIB_H

#include <stdbool.h>
#include <stdint.h>

struct tcp_mib {
	uint64_t active_opens;  /* connect()s: CLOSED -> SYN_SENT */
	uint64_t passive_opens; /* accepted: SYN_RECV -> a new socket */
	uint64_t curr_estab;    /* ESTABLISHED or CLOSE_WAIT now */
};

/* The counters' file in the calling thread's namespace (kept open, it
 * reads that namespace's counters wherever the reader is): fd or -errno. */
int tcp_mib__open(void);

/* The counters from FD (tcp_mib__open) into M: 0, -errno, or -EINVAL when
 * the text has no "Tcp:" header and values with the three. */
int tcp_mib__read(int fd, struct tcp_mib *m);

/* The same from TEXT (what the file holds), for tests. */
int tcp_mib__parse(const char *text, struct tcp_mib *m);

/* Can a socket have come, gone to ESTABLISHED or left between A and B? */
bool tcp_mib__changed(const struct tcp_mib *a, const struct tcp_mib *b);

#endif
