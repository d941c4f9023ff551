// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "probes/bpflog.h"
#include "lib/util.h"

static bool verbose_log;
static char last_log[160];

static int libbpf_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char line[512];
	size_t n;

	if (verbose_log)
		return vfprintf(stderr, fmt, ap);
	if (level == LIBBPF_DEBUG)
		return 0;
	vsnprintf(line, sizeof(line), fmt, ap);
	n = strlen(line);
	while (n && line[n - 1] == '\n')
		line[--n] = 0;
	if (n)
		str_copy(last_log, line, sizeof(last_log));
	return 0;
}

void bpflog__init(bool verbose)
{
	verbose_log = verbose;
	libbpf_set_print(libbpf_log);
}

void bpflog__clear(void)
{
	last_log[0] = 0;
}

const char *bpflog__last(void)
{
	return last_log;
}

const char *bpflog__sep(void)
{
	return last_log[0] ? ": " : "";
}
