/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Option values: the parsers every command uses (durations, sizes, whole
 * numbers, numbers, percentages, interfaces) and the one wording of the usage errors
 * about options.  A parser prints nothing: it returns 0 or -EINVAL, and the
 * command says what was wrong with ft_err_bad_value().
 */
#ifndef FABTRACE_OPT_H
#define FABTRACE_OPT_H

#include <stddef.h>
#include <stdint.h>

/*
 * "10s", "500ms", "20us", "100ns", "1.5s", "2m", "1h".  A bare number is in
 * `bare_unit_ns` (e.g. 1e9 for seconds); bare_unit_ns == 0 makes the unit
 * mandatory.  0 or -EINVAL (also for 0, negative, overflow, junk).
 */
int parse_duration(const char *s, uint64_t bare_unit_ns, uint64_t *out_ns);
/* parse_duration(), but 0 ("0", "0s", "0.0ms") is a value too: an offset, not a length. */
int parse_offset(const char *s, uint64_t bare_unit_ns, uint64_t *out_ns);
/* "4096", "64k", "16M", "1G", "1MiB" (powers of 1024).  0 or -EINVAL. */
int parse_size(const char *s, uint64_t *out_bytes);
/* A whole decimal number in [lo, hi], nothing after it (counts: lo >= 0).  0 or -EINVAL. */
int parse_long(const char *s, long lo, long hi, long *out);
/* A number ("2", "0.5", "1e3") in [lo, hi], nothing after it; never NaN.  0 or -EINVAL. */
int parse_double(const char *s, double lo, double hi, double *out);
/* A percentage in [0, max] ("50", "50%", "0.1"), as a fraction (0.5).  0 or -EINVAL. */
int parse_pct(const char *s, double max, double *out_frac);
/*
 * "eth0" or "NETNS/eth0" (NETNS as named by `ip netns`).  Interface names
 * follow the kernel's rules (1..15 chars, no '/', ':' or whitespace).
 * 0 or -EINVAL.  netns is "" when not given.
 */
int parse_iface_spec(const char *s, char *netns, size_t netns_len,
		     char *ifname, size_t ifname_len);

/*
 * The usage error for a bad option value, worded alike by every command
 * (one line, ft_err()):
 *   "CMD: OPT 'VALUE': not WHAT; give HINT"
 * e.g. ft_err_bad_value("report", "--top", "x", "a count", "e.g. 10 (0 = all)").
 * OPT names the option by its long name; HINT is a printf format.
 */
void ft_err_bad_value(const char *cmd, const char *opt, const char *value, const char *what,
		      const char *hint, ...) __attribute__((format(printf, 5, 6)));
/* The one-line error for an option getopt rejected (C: what getopt_long
 * returned, ':' for a missing value), naming it as typed: ARG
 * (argv[optind - 1]) when it is a long option ("--iface", without
 * "=VALUE"), else "-" OPT (getopt's optopt; inside a bundle such as "-qx"
 * ARG is the whole word), else ARG.  Every command words it alike. */
struct option;
void ft_err_bad_opt(const char *cmd, int c, int opt, const char *arg, const struct option *lopts);

#endif
