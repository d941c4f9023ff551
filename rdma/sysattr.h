/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading sysfs attributes of RDMA devices and parsing their text: the
 * port state ("4: ACTIVE"), rate ("100 Gb/sec (4X EDR)"), node GUID
 * ("0c42:a103:00a4:5f20") and directory listings.  Internal to rdma/.
 */
#ifndef FABTRACE_RDMA_SYSATTR_H
#define FABTRACE_RDMA_SYSATTR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Read the attribute PATH into BUF (NUL terminated, trailing whitespace
 * removed): its length, or -errno (also -EFBIG when it does not fit).
 */
int sysattr__read(const char *path, char *buf, size_t len);
/* Copy SRC into DST[LEN], truncated and NUL terminated (the rest of DST is left as is). */
void sysattr__copy(char *dst, const char *src, size_t len);
/* CLOCK_MONOTONIC in ns. */
uint64_t sysattr__now_ns(void);
/* BUF = "A/B": 0, or -ENAMETOOLONG (BUF is then ""). */
int sysattr__path(char *buf, size_t len, const char *a, const char *b);
/* The same for DIR/NAME. */
int sysattr__read_in(const char *dir, const char *name, char *buf, size_t len);

/* Leading number of "4: ACTIVE" / "5: LinkUp"; -EINVAL without one. */
int sysattr__parse_state(const char *text, unsigned *out);
/* "100 Gb/sec (4X EDR)", "2.5 Gb/sec (1X SDR)": lanes and total Mb/s; -EINVAL. */
int sysattr__parse_rate(const char *text, unsigned *width, uint32_t *mbps);
/* "0c42:a103:00a4:5f20" -> 0x0c42a10300a45f20; -EINVAL. */
int sysattr__parse_guid(const char *text, uint64_t *out);

/*
 * Entries of DIR (no "." or ".."), malloc'd array of malloc'd names,
 * sorted by CMP (strcmp when NULL).  FILES_ONLY keeps regular files (and
 * what stat follows to one); otherwise only directories.  0 or -errno
 * (-ENOENT when DIR does not exist).
 */
int sysattr__list(const char *dir, bool files_only, int (*cmp)(const char *, const char *),
		  char ***names, size_t *n);
void sysattr__free_list(char **names, size_t n);

#endif
