// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Option values (lib/opt.h): durations and sizes parsed exactly (integer
 * arithmetic, overflow checked), whole numbers, numbers, percentages,
 * interface specs, and the one wording of the usage errors about options.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/opt.h"
#include "lib/util.h"

/* ------------------------------------------------------------------ */
/* parsers                                                             */

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/*
 * Parse "123", "1.5" (no sign, no exponent, no whitespace) into an integer
 * part and up to 18 fractional digits.  Returns the end pointer or NULL.
 */
static const char *parse_decimal(const char *s, uint64_t *ip, uint64_t *frac, uint64_t *frac_div)
{
	uint64_t v = 0, f = 0, div = 1;
	const char *p = s;

	if (!is_digit(*p))
		return NULL;
	while (is_digit(*p)) {
		if (__builtin_mul_overflow(v, 10, &v) ||
		    __builtin_add_overflow(v, (uint64_t)(*p - '0'), &v))
			return NULL;
		p++;
	}
	if (*p == '.') {
		p++;
		if (!is_digit(*p))
			return NULL;
		while (is_digit(*p)) {
			if (div < 1000000000000000000ull) { /* 18 digits; the rest is below 1 unit */
				f = f * 10 + (uint64_t)(*p - '0');
				div *= 10;
			}
			p++;
		}
	}
	*ip = v;
	*frac = f;
	*frac_div = div;
	return p;
}

/* value = (ip + frac/div) * unit, exactly, with overflow checking */
static int scale(uint64_t ip, uint64_t frac, uint64_t div, uint64_t unit, uint64_t *out)
{
	unsigned __int128 fpart;
	uint64_t v;

	if (__builtin_mul_overflow(ip, unit, &v))
		return -EINVAL;
	fpart = (unsigned __int128)frac * unit / div;
	if (fpart > UINT64_MAX || __builtin_add_overflow(v, (uint64_t)fpart, &v))
		return -EINVAL;
	*out = v;
	return 0;
}

/* A suffix and what it multiplies by. */
struct unit {
	const char *sfx;
	uint64_t mul;
};

/* A decimal number times the multiplier of its suffix in UNITS (no suffix:
 * BARE, 0 refusing it), exactly.  0 or -EINVAL. */
static int parse_scaled(const char *s, const struct unit *units, size_t nunits, uint64_t bare, uint64_t *out)
{
	uint64_t ip, frac, div, mul = 0;
	const char *p;

	if (!s || !out)
		return -EINVAL;
	p = parse_decimal(s, &ip, &frac, &div);
	if (!p)
		return -EINVAL;
	if (*p == '\0')
		mul = bare;
	for (size_t i = 0; *p && i < nunits; i++)
		if (strcmp(p, units[i].sfx) == 0)
			mul = units[i].mul;
	if (!mul)
		return -EINVAL;
	return scale(ip, frac, div, mul, out);
}

static int duration(const char *s, uint64_t bare_unit_ns, bool zero_ok, uint64_t *out_ns)
{
	static const struct unit units[] = {
		{ "ns", 1ull },
		{ "us", 1000ull },
		{ "ms", 1000000ull },
		{ "s",  1000000000ull },
		{ "m",  60ull * 1000000000ull },
		{ "min", 60ull * 1000000000ull },
		{ "h",  3600ull * 1000000000ull },
		{ "d",  86400ull * 1000000000ull },
	};
	uint64_t v;

	if (!out_ns || parse_scaled(s, units, sizeof(units) / sizeof(units[0]), bare_unit_ns, &v) ||
	    (v == 0 && !zero_ok))
		return -EINVAL;
	*out_ns = v;
	return 0;
}

int parse_duration(const char *s, uint64_t bare_unit_ns, uint64_t *out_ns)
{
	return duration(s, bare_unit_ns, false, out_ns);
}

int parse_offset(const char *s, uint64_t bare_unit_ns, uint64_t *out_ns)
{
	return duration(s, bare_unit_ns, true, out_ns);
}

int parse_long(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return -EINVAL;
	*out = v;
	return 0;
}

int parse_size(const char *s, uint64_t *out_bytes)
{
	static const struct unit units[] = {
		{ "b",   1ull },   { "B",   1ull },
		{ "k",   1ull << 10 }, { "K",   1ull << 10 },
		{ "kb",  1ull << 10 }, { "KB",  1ull << 10 }, { "KiB", 1ull << 10 },
		{ "m",   1ull << 20 }, { "M",   1ull << 20 },
		{ "mb",  1ull << 20 }, { "MB",  1ull << 20 }, { "MiB", 1ull << 20 },
		{ "g",   1ull << 30 }, { "G",   1ull << 30 },
		{ "gb",  1ull << 30 }, { "GB",  1ull << 30 }, { "GiB", 1ull << 30 },
		{ "t",   1ull << 40 }, { "T",   1ull << 40 },
		{ "tb",  1ull << 40 }, { "TB",  1ull << 40 }, { "TiB", 1ull << 40 },
	};
	uint64_t v;

	if (!out_bytes || parse_scaled(s, units, sizeof(units) / sizeof(units[0]), 1, &v))
		return -EINVAL;
	*out_bytes = v;
	return 0;
}

/* A number in [LO, HI] followed by nothing or by SUFFIX; never NaN.  0 or -EINVAL. */
static int parse_number(const char *s, double lo, double hi, const char *suffix, double *out)
{
	char *end;
	double v;

	if (!s)
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || (*end && strcmp(end, suffix) != 0) || !(v >= lo && v <= hi))
		return -EINVAL;
	*out = v;
	return 0;
}

int parse_double(const char *s, double lo, double hi, double *out)
{
	return parse_number(s, lo, hi, "", out);
}

int parse_pct(const char *s, double max, double *out_frac)
{
	double v;

	if (parse_number(s, 0, max, "%", &v))
		return -EINVAL;
	*out_frac = v / 100.0;
	return 0;
}

/* ------------------------------------------------------------------ */
/* interface specs                                                     */

/* A file-name-like NAME of 1..MAX bytes: not "." or "..", no '/', control
 * character, DEL or byte of BANNED. */
static bool valid_name(const char *s, size_t len, size_t max, const char *banned)
{
	if (len == 0 || len > max)
		return false;
	if ((len == 1 && s[0] == '.') || (len == 2 && s[0] == '.' && s[1] == '.'))
		return false;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '/' || c < ' ' || c == 0x7f || strchr(banned, c))
			return false;
	}
	return true;
}

/* the kernel's dev_valid_name() rules */
static bool valid_ifname(const char *s, size_t len)
{
	return valid_name(s, len, 15, ": ");
}

/* names `ip netns` accepts: a file name in /run/netns */
static bool valid_netns(const char *s, size_t len)
{
	return valid_name(s, len, 255, "");
}

int parse_iface_spec(const char *s, char *netns, size_t netns_len,
		     char *ifname, size_t ifname_len)
{
	const char *slash, *name;
	size_t nslen = 0, iflen;

	if (!s || !netns || !ifname || netns_len == 0 || ifname_len == 0)
		return -EINVAL;
	slash = strchr(s, '/');
	if (slash) {
		nslen = (size_t)(slash - s);
		if (!valid_netns(s, nslen) || nslen >= netns_len)
			return -EINVAL;
		name = slash + 1;
	} else {
		name = s;
	}
	iflen = strlen(name);
	if (!valid_ifname(name, iflen) || iflen >= ifname_len)
		return -EINVAL;
	memcpy(netns, s, nslen);
	netns[nslen] = '\0';
	memcpy(ifname, name, iflen + 1);
	return 0;
}

/* ------------------------------------------------------------------ */
/* usage errors                                                        */

void ft_err_bad_value(const char *cmd, const char *opt, const char *value, const char *what,
		      const char *hint, ...)
{
	char h[512];
	va_list ap;

	va_start(ap, hint);
	vsnprintf(h, sizeof(h), hint, ap);
	va_end(ap);
	ft_err("%s: %s '%s': not %s; give %s", cmd, opt, value ? value : "", what, h);
}

/* The option LOPTS has whose name starts with the NAME of "--NAME[=V]", NULL if none. */
static const struct option *long_opt(const struct option *lopts, const char *arg)
{
	size_t n = strcspn(arg + 2, "=");

	for (const struct option *o = lopts; o && o->name; o++)
		if (n && !strncmp(o->name, arg + 2, n))
			return o;
	return NULL;
}

/* The long options ARG ("--t") abbreviates, when more than one: "--threshold, --top"; else "". */
static const char *ambiguous(const struct option *lopts, const char *arg, char *buf, size_t len)
{
	size_t n = strcspn(arg + 2, "="), k = 0, at = 0;

	buf[0] = '\0';
	for (const struct option *o = lopts; n && o && o->name; o++) {
		if (strncmp(o->name, arg + 2, n) != 0)
			continue;
		if (strlen(o->name) == n) /* an exact name is never ambiguous */
			return "";
		if (at < len)
			at += (size_t)snprintf(buf + at, len - at, "%s--%s", k ? ", " : "", o->name);
		k++;
	}
	if (k < 2)
		buf[0] = '\0';
	return buf;
}

void ft_err_bad_opt(const char *cmd, int c, int opt, const char *arg, const struct option *lopts)
{
	const struct option *lo = arg && !strncmp(arg, "--", 2) ? long_opt(lopts, arg) : NULL;
	/* ARG is the culprit when it is a long option getopt refused: unknown
	 * (optopt 0), or known and given a value it does not take, or lacking
	 * one (optopt its val).  Inside a bundle ("-qx") optind has not moved:
	 * ARG is the word before, and the culprit is the letter. */
	bool word = arg && !strncmp(arg, "--", 2) && (!opt || (lo && !lo->flag && lo->val == opt));
	char buf[64], many[256];

	if (word)
		snprintf(buf, sizeof(buf), "%.*s", (int)strcspn(arg, "="), arg);
	else if (opt > ' ' && opt < 127)
		snprintf(buf, sizeof(buf), "-%c", opt);
	else
		snprintf(buf, sizeof(buf), "%s", arg ? arg : "?");
	if (word && !opt && c != ':' && ambiguous(lopts, arg, many, sizeof(many))[0])
		ft_err("%s: option '%s' is ambiguous: %s; see 'fabtrace %s --help'", cmd, buf, many, cmd);
	else if (word && c != ':' && opt && strchr(arg, '='))
		ft_err("%s: option '%s' takes no value; see 'fabtrace %s --help'", cmd, buf, cmd);
	else
		ft_err("%s: %s '%s'; see 'fabtrace %s --help'", cmd,
		       c == ':' ? "missing value for" : "unknown option", buf, cmd);
}
