/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef FABTRACE_PRIVS_H
#define FABTRACE_PRIVS_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Check the effective capabilities tracing needs: CAP_BPF and CAP_PERFMON
 * (or CAP_SYS_ADMIN, which implies both) and CAP_NET_ADMIN.  Returns true
 * when all are held; otherwise `missing` lists them ("CAP_BPF, CAP_PERFMON").
 * FABTRACE_FAKE_NOPRIV=1 in the environment pretends none are held (tests).
 */
bool privs_ok(char *missing, size_t len);
/* CAP_SYS_ADMIN, needed to enter other network namespaces. */
bool privs_sys_admin(void);

#endif
