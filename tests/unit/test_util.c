// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for lib/util.c and lib/opt.c. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/opt.h"
#include "lib/util.h"

#define NS 1ull
#define US 1000ull
#define MS 1000000ull
#define S  1000000000ull

static void dur_ok(const char *s, uint64_t bare, uint64_t want)
{
	uint64_t v = 0;

	if (parse_duration(s, bare, &v) != 0)
		fail_msg("parse_duration(\"%s\") failed", s);
	if (v != want)
		fail_msg("parse_duration(\"%s\") = %llu, want %llu", s,
			 (unsigned long long)v, (unsigned long long)want);
}

static void dur_bad(const char *s, uint64_t bare)
{
	uint64_t v = 777;

	if (parse_duration(s, bare, &v) != -EINVAL)
		fail_msg("parse_duration(\"%s\") accepted (%llu)", s ? s : "(null)",
			 (unsigned long long)v);
	assert_int_equal(v, 777); /* untouched on error */
}

static void test_parse_duration(void **state)
{
	(void)state;
	dur_ok("10s", 0, 10 * S);
	dur_ok("500ms", 0, 500 * MS);
	dur_ok("20us", 0, 20 * US);
	dur_ok("100ns", 0, 100 * NS);
	dur_ok("1.5s", 0, 1500 * MS);
	dur_ok("0.5us", 0, 500 * NS);
	dur_ok("2.25ms", 0, 2250 * US);
	dur_ok("2m", 0, 120 * S);
	dur_ok("2min", 0, 120 * S);
	dur_ok("1h", 0, 3600 * S);
	dur_ok("1.000000001s", 0, S + 1);
	dur_ok("5", S, 5 * S);
	dur_ok("20", US, 20 * US);
	dur_ok("0.25", S, 250 * MS);
	dur_ok("18446744073709551615ns", 0, UINT64_MAX);
	dur_ok("007s", 0, 7 * S);

	dur_bad(NULL, 0);
	dur_bad("", 0);
	dur_bad("s", 0);
	dur_bad("0", S);
	dur_bad("0s", 0);
	dur_bad("0.0ms", 0);
	dur_bad("0.1ns", 0);   /* rounds to nothing */
	dur_bad("-1s", 0);
	dur_bad("+1s", 0);
	dur_bad("5", 0);       /* unit mandatory */
	dur_bad("10x", 0);
	dur_bad("10 s", 0);
	dur_bad("10s ", 0);
	dur_bad(" 10s", 0);
	dur_bad("10ss", 0);
	dur_bad("10sm", 0);
	dur_bad("1e3s", 0);
	dur_bad("1.s", 0);
	dur_bad(".5s", 0);
	dur_bad("1..5s", 0);
	dur_bad("1.5.5s", 0);
	dur_bad("0x10s", 0);
	dur_bad("10S", 0);
	dur_bad("18446744073709551616ns", 0); /* 2^64 */
	dur_bad("18446744074s", 0);           /* * 1e9 overflows */
	dur_bad("5124096h", 0);
	dur_bad("99999999999999999999999999s", 0);
}

static void size_ok(const char *s, uint64_t want)
{
	uint64_t v = 0;

	if (parse_size(s, &v) != 0)
		fail_msg("parse_size(\"%s\") failed", s);
	if (v != want)
		fail_msg("parse_size(\"%s\") = %llu, want %llu", s, (unsigned long long)v,
			 (unsigned long long)want);
}

static void size_bad(const char *s)
{
	uint64_t v = 777;

	if (parse_size(s, &v) != -EINVAL)
		fail_msg("parse_size(\"%s\") accepted (%llu)", s ? s : "(null)",
			 (unsigned long long)v);
	assert_int_equal(v, 777);
}

static void test_parse_long(void **state)
{
	static const char *const bad[] = { "", "x", "5x", "1.5", "-21", "20", "99999999999999999999", "5 " };
	long v = 0;

	(void)state;
	assert_int_equal(parse_long("-20", -20, 19, &v), 0);
	assert_int_equal(v, -20);
	assert_int_equal(parse_long("19", -20, 19, &v), 0);
	assert_int_equal(v, 19);
	assert_int_equal(parse_long("0", -20, 19, &v), 0);
	assert_int_equal(v, 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = 7;
		if (parse_long(bad[i], -20, 19, &v) != -EINVAL)
			fail_msg("parse_long(\"%s\") accepted", bad[i]);
		assert_int_equal(v, 7); /* untouched on error */
	}
}

/* Offsets: durations that may be 0 (report's --from/--to). */
static void test_parse_offset(void **state)
{
	static const char *const bad[] = { "", "x", "-0", "+0", "-1s", "0x", ".5", "1.", "0 s", "0sec" };
	uint64_t v = 7;

	(void)state;
	assert_int_equal(parse_offset("0", S, &v), 0);
	assert_int_equal(v, 0);
	v = 7;
	assert_int_equal(parse_offset("0s", 0, &v), 0);
	assert_int_equal(v, 0);
	v = 7;
	assert_int_equal(parse_offset("0.000ms", S, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(parse_offset("1.25", S, &v), 0);
	assert_int_equal(v, 1250 * MS);
	assert_int_equal(parse_offset("1250ms", S, &v), 0);
	assert_int_equal(v, 1250 * MS);
	assert_int_equal(parse_offset("0", 0, &v), -EINVAL); /* a unit is still needed when asked */
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = 7;
		if (parse_offset(bad[i], S, &v) != -EINVAL)
			fail_msg("parse_offset(\"%s\") accepted", bad[i]);
		assert_int_equal(v, 7);
	}
}

static void test_parse_double(void **state)
{
	static const char *const bad[] = { "", "x", "1x", "1 ", "nan", "inf", "-inf", "0.99", "1000001", "1e400" };
	double v = 0;

	(void)state;
	assert_int_equal(parse_double("2", 1, 1e6, &v), 0);
	assert_true(v == 2.0);
	assert_int_equal(parse_double("1", 1, 1e6, &v), 0);     /* bounds are inclusive */
	assert_true(v == 1.0);
	assert_int_equal(parse_double("1e6", 1, 1e6, &v), 0);
	assert_true(v == 1e6);
	assert_int_equal(parse_double("2.5", 1, 1e6, &v), 0);
	assert_true(v == 2.5);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = 7;
		if (parse_double(bad[i], 1, 1e6, &v) != -EINVAL)
			fail_msg("parse_double(\"%s\") accepted", bad[i]);
		assert_true(v == 7);
	}
}

static void test_parse_pct(void **state)
{
	static const char *const bad[] = { "", "%", "x", "50%%", "50 %", "-1", "-0.5%", "100.5", "nan", "inf", "5x" };
	double v = 0;

	(void)state;
	assert_int_equal(parse_pct("50", 100, &v), 0);
	assert_true(v == 0.5);
	assert_int_equal(parse_pct("50%", 100, &v), 0);
	assert_true(v == 0.5);
	assert_int_equal(parse_pct("0.1", 100, &v), 0);
	assert_true(v > 0.000999 && v < 0.001001);
	assert_int_equal(parse_pct("0", 100, &v), 0);
	assert_true(v == 0);
	assert_int_equal(parse_pct("100", 100, &v), 0);
	assert_true(v == 1.0);
	assert_int_equal(parse_pct("800", 1000, &v), 0);        /* a burst threshold may pass 100 % */
	assert_true(v == 8.0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = 7;
		if (parse_pct(bad[i], 100, &v) != -EINVAL)
			fail_msg("parse_pct(\"%s\") accepted", bad[i]);
		assert_true(v == 7);
	}
}

static void test_parse_size(void **state)
{
	(void)state;
	size_ok("4096", 4096);
	size_ok("0", 0);
	size_ok("64k", 64 * 1024);
	size_ok("64K", 64 * 1024);
	size_ok("16M", 16ull << 20);
	size_ok("1G", 1ull << 30);
	size_ok("1MiB", 1ull << 20);
	size_ok("2KiB", 2048);
	size_ok("3GB", 3ull << 30);
	size_ok("1.5k", 1536);
	size_ok("100B", 100);
	size_ok("2T", 2ull << 40);

	size_bad(NULL);
	size_bad("");
	size_bad("k");
	size_bad("-1");
	size_bad("+1");
	size_bad("1X");
	size_bad("1 k");
	size_bad(" 1k");
	size_bad("1k ");
	size_bad("1kk");
	size_bad("1.k");
	size_bad("16777216T");               /* 2^64 */
	size_bad("18446744073709551616");
}

static void iface_ok(const char *s, const char *ns, const char *ifn)
{
	char n[32], i[16];

	memset(n, 'x', sizeof(n));
	memset(i, 'x', sizeof(i));
	if (parse_iface_spec(s, n, sizeof(n), i, sizeof(i)) != 0)
		fail_msg("parse_iface_spec(\"%s\") failed", s);
	assert_string_equal(n, ns);
	assert_string_equal(i, ifn);
}

static void iface_bad(const char *s)
{
	char n[32], i[16];

	if (parse_iface_spec(s, n, sizeof(n), i, sizeof(i)) != -EINVAL)
		fail_msg("parse_iface_spec(\"%s\") accepted", s ? s : "(null)");
}

static void test_parse_iface_spec(void **state)
{
	char n[4], i[16];

	(void)state;
	iface_ok("eth0", "", "eth0");
	iface_ok("lab1/veth0", "lab1", "veth0");
	iface_ok("ft-1234-h0/eth-h0.100", "ft-1234-h0", "eth-h0.100");
	iface_ok("fifteen_chars_x", "", "fifteen_chars_x");
	iface_ok("ns/fifteen_chars_x", "ns", "fifteen_chars_x");

	iface_bad(NULL);
	iface_bad("");
	iface_bad("/eth0");
	iface_bad("ns/");
	iface_bad("a/b/c");
	iface_bad("eth0:1");
	iface_bad("sixteen_chars_xx");
	iface_bad("has space");
	iface_bad("tab\tx");
	iface_bad(".");
	iface_bad("..");
	iface_bad("ns/..");
	iface_bad("../eth0");
	iface_bad("0123456789012345678901234567890123/eth0"); /* netns too long for the buffer */

	/* buffers too small are an error, not a silent truncation */
	assert_int_equal(parse_iface_spec("lab1/veth0", n, sizeof(n), i, sizeof(i)), -EINVAL);
	assert_int_equal(parse_iface_spec("abc/veth0", n, sizeof(n), i, sizeof(i)), 0);
	assert_int_equal(parse_iface_spec("veth0", n, sizeof(n), i, 5), -EINVAL);
}

static void test_fmt(void **state)
{
	char b[32];

	(void)state;
	assert_string_equal(fmt_ns(0, b, sizeof(b)), "0 ns");
	assert_string_equal(fmt_ns(100, b, sizeof(b)), "100 ns");
	assert_string_equal(fmt_ns(999, b, sizeof(b)), "999 ns");
	assert_string_equal(fmt_ns(1500, b, sizeof(b)), "1.50 us");
	assert_string_equal(fmt_ns(20000, b, sizeof(b)), "20.0 us");
	assert_string_equal(fmt_ns(1500000, b, sizeof(b)), "1.50 ms");
	assert_string_equal(fmt_ns(999999, b, sizeof(b)), "1.00 ms");
	assert_string_equal(fmt_ns(250000000, b, sizeof(b)), "250 ms");
	assert_string_equal(fmt_ns(10 * S, b, sizeof(b)), "10.0 s");
	assert_string_equal(fmt_ns(150 * S, b, sizeof(b)), "2.5 min");
	assert_string_equal(fmt_ns(5400 * S, b, sizeof(b)), "1.50 h");

	assert_string_equal(fmt_bytes(0, b, sizeof(b)), "0 B");
	assert_string_equal(fmt_bytes(512, b, sizeof(b)), "512 B");
	assert_string_equal(fmt_bytes(1500, b, sizeof(b)), "1.50 kB");
	assert_string_equal(fmt_bytes(12e6, b, sizeof(b)), "12.0 MB");
	assert_string_equal(fmt_bytes(3.5e9, b, sizeof(b)), "3.50 GB");
	assert_string_equal(fmt_bytes(999.9e3, b, sizeof(b)), "1.00 MB");

	/* binary: a size given as "64k" reads back as given, not as 65.5 kB */
	assert_string_equal(fmt_ibytes(64 << 10, b, sizeof(b)), "64.0 KiB");
	assert_string_equal(fmt_ibytes(1000, b, sizeof(b)), "1000 B");
	assert_string_equal(fmt_ibytes(1 << 20, b, sizeof(b)), "1.00 MiB");
	assert_string_equal(fmt_ibytes(256ull << 20, b, sizeof(b)), "256 MiB");
	assert_string_equal(fmt_ibytes(3ull << 30, b, sizeof(b)), "3.00 GiB");

	/* seconds exact to the µs, with a sign when relative */
	assert_string_equal(fmt_secs(5000100000ull, b, sizeof(b)), "5.000100");
	assert_string_equal(fmt_secs(UINT64_MAX, b, sizeof(b)), "18446744073.709551");
	assert_string_equal(fmt_rel(-1500000, b, sizeof(b)), "-0.001500");
	assert_string_equal(fmt_rel(INT64_MIN, b, sizeof(b)), "-9223372036.854775");

	assert_string_equal(fmt_rate_bps(1e9, b, sizeof(b)), "1.00 Gbit/s");
	assert_string_equal(fmt_rate_bps(150e6, b, sizeof(b)), "150 Mbit/s");
	assert_string_equal(fmt_rate_bps(64e3, b, sizeof(b)), "64.0 kbit/s");
	assert_string_equal(fmt_rate_bps(10, b, sizeof(b)), "10 bit/s");

	/* truncation keeps a terminated string */
	assert_string_equal(fmt_rate_bps(1e9, b, 5), "1.00");
}

/* The owner of files written under sudo: only well-formed ids are used. */
static void test_sudo_owner(void **state)
{
	uid_t u;
	gid_t g;

	(void)state;
	if (geteuid() != 0)
		skip();
	setenv("SUDO_UID", "1000", 1);
	setenv("SUDO_GID", "1001", 1);
	assert_true(ft_sudo_owner(&u, &g));
	assert_int_equal(u, 1000);
	assert_int_equal(g, 1001);
	/* a malformed group is left alone (strtoul read "abc" as 0: group root) */
	setenv("SUDO_GID", "abc", 1);
	assert_true(ft_sudo_owner(&u, &g));
	assert_int_equal(u, 1000);
	assert_int_equal(g, (gid_t)-1);
	setenv("SUDO_GID", "12x", 1);
	assert_true(ft_sudo_owner(&u, &g));
	assert_int_equal(g, (gid_t)-1);
	setenv("SUDO_GID", "4294967295", 1); /* (gid_t)-1 itself: not an id */
	assert_true(ft_sudo_owner(&u, &g));
	assert_int_equal(g, (gid_t)-1);
	unsetenv("SUDO_GID");
	assert_true(ft_sudo_owner(&u, &g));
	assert_int_equal(g, (gid_t)-1);
	/* no user to give files to */
	setenv("SUDO_UID", "-5", 1);
	assert_false(ft_sudo_owner(&u, &g));
	assert_int_equal(u, (uid_t)-1);
	setenv("SUDO_UID", "", 1);
	assert_false(ft_sudo_owner(&u, &g));
	setenv("SUDO_UID", "99999999999999999999", 1);
	assert_false(ft_sudo_owner(&u, &g));
	unsetenv("SUDO_UID");
	assert_false(ft_sudo_owner(&u, &g));
}

static void test_str_copy(void **state)
{
	char d[8];

	(void)state;
	memset(d, 'x', sizeof(d));
	str_copy(d, "abc", sizeof(d));
	assert_string_equal(d, "abc");
	str_copy(d, "0123456789", sizeof(d));
	assert_string_equal(d, "0123456");
	str_copy(d, NULL, sizeof(d));
	assert_string_equal(d, "");
	d[0] = 'q';
	str_copy(d, "abc", 0); /* no room: untouched */
	assert_int_equal(d[0], 'q');
	str_copy(d, "abc", 1);
	assert_string_equal(d, "");
}

/* LIST split by list_next into "a|b|..." (items trimmed; empty ones as "") */
static const char *split(const char *list, char *out, size_t outlen)
{
	const char *p = list, *it;
	size_t len, o = 0;
	int n = 0;

	out[0] = '\0';
	while (list_next(&p, &it, &len))
		o += (size_t)snprintf(out + o, outlen - o, "%s%.*s", n++ ? "|" : "", (int)len, it);
	return out;
}

static void test_list_next(void **state)
{
	char b[128];

	(void)state;
	assert_string_equal(split("mlx5_0,mlx5_1:1", b, sizeof(b)), "mlx5_0|mlx5_1:1");
	assert_string_equal(split(" *pause* , *pfc*", b, sizeof(b)), "*pause*|*pfc*");
	assert_string_equal(split("a,,b", b, sizeof(b)), "a||b");   /* an empty item */
	assert_string_equal(split("  ", b, sizeof(b)), "");          /* one empty item */
	assert_string_equal(split("a,", b, sizeof(b)), "a");         /* a trailing comma ends it */
	assert_string_equal(split("", b, sizeof(b)), "");
	assert_string_equal(split(",,,", b, sizeof(b)), "||");      /* ctr__glob_match's cases: test_counters */
}

static void test_mono(void **state)
{
	uint64_t a, b;

	(void)state;
	a = mono_ns();
	b = mono_ns();
	assert_true(a > 0);
	assert_true(b >= a);
}

/* Run fn with stdout and stderr captured into out/err. */
static void capture_output(void (*fn)(void), char *out, size_t outlen, char *err, size_t errlen)
{
	FILE *fo = tmpfile(), *fe = tmpfile();
	int so = dup(1), se = dup(2);
	size_t n;

	assert_non_null(fo);
	assert_non_null(fe);
	fflush(stdout);
	fflush(stderr);
	dup2(fileno(fo), 1);
	dup2(fileno(fe), 2);
	fn();
	fflush(stdout);
	fflush(stderr);
	dup2(so, 1);
	dup2(se, 2);
	close(so);
	close(se);
	rewind(fo);
	rewind(fe);
	n = fread(out, 1, outlen - 1, fo);
	out[n] = '\0';
	n = fread(err, 1, errlen - 1, fe);
	err[n] = '\0';
	fclose(fo);
	fclose(fe);
}

static void emit_err(void)
{
	ft_err("open \"%s\": %s; try again", "a\\b", "No such file\nor directory");
}

static void emit_warn(void)
{
	ft_warn("%d records lost", 3);
}

static void emit_bad_value(void)
{
	ft_err_bad_value("report", "--jobs", "0", "a count of windows", "1 to %d (the windows read at once)", 64);
}

static void test_errors(void **state)
{
	char out[512], err[512];

	(void)state;
	util_set_json(false);
	assert_false(util_json());
	capture_output(emit_err, out, sizeof(out), err, sizeof(err));
	assert_string_equal(out, "");
	assert_string_equal(err,
		"fabtrace: open \"a\\b\": No such file or directory; try again\n");
	capture_output(emit_warn, out, sizeof(out), err, sizeof(err));
	assert_string_equal(out, "");
	assert_string_equal(err, "fabtrace: warning: 3 records lost\n");
	/* the one wording of a bad option value */
	capture_output(emit_bad_value, out, sizeof(out), err, sizeof(err));
	assert_string_equal(out, "");
	assert_string_equal(err, "fabtrace: report: --jobs '0': not a count of windows; "
			    "give 1 to 64 (the windows read at once)\n");

	util_set_json(true);
	assert_true(util_json());
	capture_output(emit_err, out, sizeof(out), err, sizeof(err));
	assert_string_equal(out,
		"{\"error\":\"open \\\"a\\\\b\\\": No such file or directory; try again\"}\n");
	assert_string_equal(err, "");
	/* warnings never touch the JSON document on stdout */
	capture_output(emit_warn, out, sizeof(out), err, sizeof(err));
	assert_string_equal(out, "");
	assert_string_equal(err, "fabtrace: warning: 3 records lost\n");
	capture_output(emit_bad_value, out, sizeof(out), err, sizeof(err));
	assert_string_equal(out, "{\"error\":\"report: --jobs '0': not a count of windows; "
			    "give 1 to 64 (the windows read at once)\"}\n");
	assert_string_equal(err, "");
	util_set_json(false);
}

/* A status field is found at a line's start only; this process's own status reads. */
static void test_proc_status(void **state)
{
	const char *text = "Name:\tx\nPPid:\t1\nTracerPid:\t0\nPid:\t42\nVmExe:\t  12 kB\n";
	char buf[4096];
	const char *at;
	ssize_t n;

	(void)state;
	at = proc_status_field(text, "Pid:");
	assert_non_null(at);
	assert_int_equal(strtol(at, NULL, 10), 42);
	assert_int_equal(strtol(proc_status_field(text, "VmExe:"), NULL, 10), 12);
	assert_string_equal(proc_status_field(text, "Name:"), "\tx\nPPid:\t1\nTracerPid:\t0\nPid:\t42\nVmExe:\t  12 kB\n");
	assert_null(proc_status_field(text, "Tgid:"));
	assert_null(proc_status_field(text, "id:"));
	assert_null(proc_status_field("", "Pid:"));

	n = proc_status_read(0, buf, sizeof(buf));
	assert_true(n > 0 && (size_t)n < sizeof(buf));
	at = proc_status_field(buf, "Tgid:");
	assert_non_null(at);
	assert_int_equal(strtol(at, NULL, 10), getpid());
	n = proc_status_read(getpid(), buf, 8); /* cut short, still terminated */
	assert_int_equal(n, 7);
	assert_int_equal(strlen(buf), 7);
	assert_int_equal(proc_status_read(-5, buf, sizeof(buf)), -ENOENT);
	assert_int_equal(proc_status_read(1, buf, 0), -EINVAL);
}

/* /proc/PID/stat: the fields after a comm that holds spaces and parentheses. */
static void test_proc_stat(void **state)
{
	char buf[1024];
	const char *f;
	ssize_t n;

	(void)state;
	assert_string_equal(proc_stat_fields("7 (a) (b c) S 1 7 7"), "S 1 7 7");
	assert_null(proc_stat_fields("7 (a"));
	assert_null(proc_stat_fields("7 (a)"));
	assert_null(proc_stat_fields(""));
	n = proc_stat_read(0, buf, sizeof(buf));
	assert_true(n > 0 && (size_t)n < sizeof(buf));
	assert_int_equal(strtol(buf, NULL, 10), getpid());
	f = proc_stat_fields(buf);
	assert_non_null(f);
	assert_int_equal(f[0], 'R'); /* we run */
	assert_int_equal(strtol(f + 2, NULL, 10), getppid());
	assert_int_equal(proc_stat_read(-5, buf, sizeof(buf)), -ENOENT);
}

/* Control characters reach the terminal as '?', text (UTF-8 included) as is. */
static void test_text_safe_stream(void **state)
{
	static const char in[] = "a\x1b[1mb\tc\n\x7f\xc2\x9b" "d\xc2\xb5\xe2\x80\x94\xc2";
	static const char want[] = "a?[1mb\tc\n??d\xc2\xb5\xe2\x80\x94\xc2";
	char got[64] = "";
	FILE *f = tmpfile(), *s;

	(void)state;
	assert_non_null(f);
	s = text_safe_stream(f);
	assert_non_null(s);
	assert_int_equal(fwrite(in, 1, sizeof(in) - 1, s), sizeof(in) - 1);
	assert_int_equal(fclose(s), 0);
	rewind(f);
	assert_int_equal(fread(got, 1, sizeof(got) - 1, f), sizeof(want) - 1);
	assert_memory_equal(got, want, sizeof(want) - 1);
	fclose(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_duration),
		cmocka_unit_test(test_parse_long),
		cmocka_unit_test(test_parse_offset),
		cmocka_unit_test(test_parse_double),
		cmocka_unit_test(test_parse_pct),
		cmocka_unit_test(test_list_next),
		cmocka_unit_test(test_parse_size),
		cmocka_unit_test(test_parse_iface_spec),
		cmocka_unit_test(test_fmt),
		cmocka_unit_test(test_sudo_owner),
		cmocka_unit_test(test_str_copy),
		cmocka_unit_test(test_mono),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_proc_status),
		cmocka_unit_test(test_proc_stat),
		cmocka_unit_test(test_text_safe_stream),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
