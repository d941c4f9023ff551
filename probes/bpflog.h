/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libbpf's messages for every probe family: all of them on stderr with -v;
 * otherwise only the last warning is kept, to explain a failure in the
 * one-line error ("load: Permission denied: <libbpf's last warning>").
 */
#ifndef FABTRACE_BPFLOG_H
#define FABTRACE_BPFLOG_H

#include <stdbool.h>

/* Install the handler; VERBOSE prints every message. */
void bpflog__init(bool verbose);
/* Forget the last warning (before an operation whose failure it explains). */
void bpflog__clear(void);
/* The last warning since bpflog__clear(), "" if none; and ": " when there is one. */
const char *bpflog__last(void);
const char *bpflog__sep(void);

#endif
