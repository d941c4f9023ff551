/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the configuration readers of probes/ hand back (qdisc_config.h,
 * iface_config.h, sysctl_config.h, procenv.h): one setting at a time.
 */
#ifndef FABTRACE_CFG_KV_H
#define FABTRACE_CFG_KV_H

/*
 * KEY = VALUE; or VALUE NULL and ERR (-errno) when it could not be read.
 * A non-zero return stops the reader, which returns it.
 */
typedef int (*cfg_kv_fn)(void *ctx, const char *key, const char *value, int err);

#endif
