// SPDX-License-Identifier: GPL-2.0
/*
 * rdma_fixture — a fake RDMA sysfs tree for testing the counter sampler on
 * a machine without RDMA devices.
 *
 *   rdma_fixture create DIR [--netdev NAME] [--from SRC]
 *   rdma_fixture run DIR [--duration S] [--tick-us U] [--data-rate B]
 *                [--storm-at MS --storm-len MS --cnp-rate N --ecn-rate N]
 *                [--wrap] [--wrap-at MS] [--reset-at MS] [--reset-rate N]
 *                [--dev DEV] [--port N] [--ready-file F]
 *
 * create copies tests/fixtures/sysfs (mlx5_0 RoCE, mlx5_1 InfiniBand with
 * "N/A (no PMA)" counters, mlx5_2 without hw_counters/) to DIR, so that
 * DIR/class/infiniband/... is what FABTRACE_SYSFS_ROOT=DIR makes fabtrace
 * read; --netdev sets the RoCE netdev of mlx5_0 port 1 (gid_attrs/ndevs).
 * The source is --from, else $FABTRACE_SYSFS_FIXTURE, else the
 * tests/fixtures/sysfs of the source tree this binary was built in.
 *
 * run advances the counters of DEV/PORT (default mlx5_0/1) every tick
 * (default 1000 us) until --duration seconds or SIGTERM/SIGINT:
 *   counters/port_xmit_data, port_rcv_data   --data-rate bytes/s (default 1e9),
 *                                            written as octets / 4 like the PMA
 *   counters/port_xmit_packets, port_rcv_packets  data rate / 4096
 *   during the storm [--storm-at, +--storm-len):
 *     hw_counters/np_cnp_sent, rp_cnp_handled    --cnp-rate per second
 *     hw_counters/np_ecn_marked_roce_packets     --ecn-rate per second
 *   --wrap: counters/port_xmit_wait (32 bits) climbs past 2^32 and wraps at
 *     --wrap-at ms (default half the duration, 1000 without one); it is never
 *     left at 2^32-1, which readers take for a saturated PMA counter
 *   --reset-at MS: hw_counters/out_of_sequence stays put, drops to 0 at MS,
 *     then grows at --reset-rate per second (default 1000)
 * Values are exact functions of the elapsed time.  Each is written in place
 * (pwrite at offset 0 of a 20-character space-padded number and "\n"; never
 * a rename), so readers that keep the file open see every update.
 *
 * At exit it prints one JSON line (times in CLOCK_MONOTONIC ns):
 *   {"start_ns":..,"end_ns":..,"storm_start_ns":..,"storm_end_ns":..,
 *    "storm_first_write_ns":[..,..],"storm_last_write_ns":[..,..],
 *    "wrap_ns":..,"reset_ns":..,"ticks":..,"initial":{..},"deltas":{..},"final":{..}}
 * The storm's first and last writes of np_cnp_sent are each a [before, after]
 * pair around the tick that wrote them: a tick can run late on a loaded
 * machine, and a reader can only see the growth once it is written.
 * deltas are the growth of each driven counter in raw units (the data
 * counters in octets / 4), what a wrap- and reset-aware reader sums; 0 for
 * times that did not happen.
 *
 * Exit status: 0 done (also on SIGTERM/SIGINT), 1 error, 2 bad arguments.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "toolargs.h"

#define NSEC 1000000000ull
#define TWO32 (1ull << 32)

static volatile sig_atomic_t g_stop;

static void on_signal(int sig)
{
	(void)sig;
	g_stop = 1;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC + (uint64_t)ts.tv_nsec;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: rdma_fixture create DIR [--netdev NAME] [--from SRC]\n"
		"       rdma_fixture run DIR [--duration S] [--tick-us U] [--data-rate B]\n"
		"                    [--storm-at MS --storm-len MS --cnp-rate N --ecn-rate N]\n"
		"                    [--wrap] [--wrap-at MS] [--reset-at MS] [--reset-rate N]\n"
		"                    [--dev DEV] [--port N] [--ready-file F]\n"
		"examples:\n"
		"  rdma_fixture create /tmp/fx --netdev eth0\n"
		"  rdma_fixture run /tmp/fx --duration 3 --storm-at 1000 --storm-len 500 \\\n"
		"      --cnp-rate 20000 --ecn-rate 30000 --wrap\n"
		"  FABTRACE_SYSFS_ROOT=/tmp/fx fabtrace record ...\n");
}

static int die_usage(const char *what, const char *why)
{
	fprintf(stderr, "rdma_fixture: %s: %s; run 'rdma_fixture --help'\n", what, why);
	return 2;
}

static const char *need(int argc, char **argv, int *i)
{
	if (*i + 1 >= argc)
		return NULL;
	return argv[++*i];
}

/* ---- create ---- */

static int copy_file(const char *src, const char *dst)
{
	char buf[4096];
	int in, out, rc = 0;
	ssize_t n;

	in = open(src, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -errno;
	out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0) {
		rc = -errno;
		close(in);
		return rc;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0) {
		if (write(out, buf, (size_t)n) != n) {
			rc = -EIO;
			break;
		}
	}
	if (n < 0)
		rc = -errno;
	close(in);
	if (close(out) && !rc)
		rc = -errno;
	return rc;
}

/* Copy the tree SRC into DST: directories and regular files only. */
static int copy_tree(const char *src, const char *dst)
{
	struct dirent *de;
	DIR *d;
	int rc = 0;

	if (mkdir(dst, 0755) && errno != EEXIST)
		return -errno;
	d = opendir(src);
	if (!d)
		return -errno;
	while (!rc && (de = readdir(d))) {
		char s[PATH_MAX], t[PATH_MAX];
		struct stat st;
		int n1, n2;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		n1 = snprintf(s, sizeof(s), "%s/%s", src, de->d_name);
		n2 = snprintf(t, sizeof(t), "%s/%s", dst, de->d_name);
		if (n1 < 0 || n2 < 0 || (size_t)n1 >= sizeof(s) || (size_t)n2 >= sizeof(t)) {
			rc = -ENAMETOOLONG;
			break;
		}
		if (stat(s, &st))
			continue;
		if (S_ISDIR(st.st_mode))
			rc = copy_tree(s, t);
		else if (S_ISREG(st.st_mode))
			rc = copy_file(s, t);
	}
	closedir(d);
	return rc;
}

static bool has_fixture(const char *dir)
{
	char p[PATH_MAX];
	struct stat st;
	int n = snprintf(p, sizeof(p), "%s/class/infiniband", dir);

	return n > 0 && (size_t)n < sizeof(p) && stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The fixture in the source tree: walk up from the binary (BUILD/tools/rdma_fixture). */
static int find_source(char *out, size_t len)
{
	const char *env = getenv("FABTRACE_SYSFS_FIXTURE");
	char exe[PATH_MAX];
	ssize_t n;

	if (env && *env) {
		snprintf(out, len, "%s", env);
		return has_fixture(out) ? 0 : -ENOENT;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		for (int up = 0; up < 5; up++) {
			char *slash = strrchr(exe, '/');
			int w;

			if (!slash || slash == exe)
				break;
			*slash = '\0';
			w = snprintf(out, len, "%s/tests/fixtures/sysfs", exe);
			if (w > 0 && (size_t)w < len && has_fixture(out))
				return 0;
		}
	}
	snprintf(out, len, "tests/fixtures/sysfs");
	return has_fixture(out) ? 0 : -ENOENT;
}

static int write_text(const char *root, const char *rel, const char *text)
{
	char p[PATH_MAX];
	int fd, n = snprintf(p, sizeof(p), "%s/%s", root, rel);
	size_t len = strlen(text);

	if (n < 0 || (size_t)n >= sizeof(p))
		return -ENAMETOOLONG;
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	if (write(fd, text, len) != (ssize_t)len) {
		close(fd);
		return -EIO;
	}
	return close(fd) ? -errno : 0;
}

static bool good_ifname(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > 15)
		return false;
	for (; *s; s++)
		if (*s == '/' || *s == ':' || *s == ' ' || *s == '\t' || *s == '\n')
			return false;
	return true;
}

static int cmd_create(int argc, char **argv)
{
	const char *dir = NULL, *netdev = NULL, *from = NULL;
	char src[PATH_MAX];
	int rc;

	for (int i = 2; i < argc; i++) {
		const char *a = argv[i], *val;

		if (a[0] != '-') {
			if (dir)
				return die_usage(a, "one DIR only");
			dir = a;
			continue;
		}
		val = need(argc, argv, &i);
		if (!val)
			return die_usage(a, "unknown option or missing value");
		if (!strcmp(a, "--netdev")) {
			if (!good_ifname(val))
				return die_usage("--netdev", "an interface name of 1..15 characters");
			netdev = val;
		} else if (!strcmp(a, "--from")) {
			from = val;
		} else {
			return die_usage(a, "unknown option");
		}
	}
	if (!dir)
		return die_usage("create", "DIR missing");
	if (from) {
		snprintf(src, sizeof(src), "%s", from);
		if (!has_fixture(src)) {
			fprintf(stderr, "rdma_fixture: --from %s: no class/infiniband in it\n", from);
			return 1;
		}
	} else if (find_source(src, sizeof(src))) {
		fprintf(stderr, "rdma_fixture: cannot find tests/fixtures/sysfs; give --from SRC or set "
				"FABTRACE_SYSFS_FIXTURE\n");
		return 1;
	}
	if (has_fixture(dir)) {
		fprintf(stderr, "rdma_fixture: %s/class/infiniband exists already; use an empty directory\n", dir);
		return 1;
	}
	if (mkdir(dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "rdma_fixture: mkdir %s: %s\n", dir, strerror(errno));
		return 1;
	}
	rc = copy_tree(src, dir);
	if (!rc && netdev) {
		char line[64];

		snprintf(line, sizeof(line), "%s\n", netdev);
		rc = write_text(dir, "class/infiniband/mlx5_0/ports/1/gid_attrs/ndevs/0", line);
		if (!rc)
			rc = write_text(dir, "class/infiniband/mlx5_0/ports/1/gid_attrs/ndevs/1", line);
	}
	if (rc) {
		fprintf(stderr, "rdma_fixture: copying %s to %s: %s\n", src, dir, strerror(-rc));
		return 1;
	}
	printf("{\"root\":\"%s\",\"source\":\"%s\",\"netdev\":\"%s\"}\n", dir, src,
	       netdev ? netdev : "enp1s0f0np0");
	return 0;
}

/* ---- run ---- */

enum drive {
	DRIVE_DATA,     /* grows at data_rate / 4 per second */
	DRIVE_PACKETS,  /* grows at data_rate / 4096 per second */
	DRIVE_CNP,      /* cnp_rate during the storm */
	DRIVE_ECN,      /* ecn_rate during the storm */
	DRIVE_WRAP,     /* 32-bit, wraps at wrap_at */
	DRIVE_RESET,    /* drops to 0 at reset_at, then grows */
};

struct counter {
	const char *sub, *name;
	enum drive how;
	int fd;
	uint64_t v0;        /* value when the run began */
	uint64_t growth;    /* growth as last written */
	uint64_t written;   /* value in the file */
	bool active;
};

struct run_opts {
	uint64_t duration_ns;   /* 0: until a signal */
	uint64_t tick_ns;
	uint64_t data_rate;     /* bytes per second */
	uint64_t storm_at, storm_len; /* ns from the start */
	uint64_t cnp_rate, ecn_rate;
	bool wrap, reset;
	uint64_t wrap_at, reset_at;   /* ns from the start */
	uint64_t reset_rate;
	uint64_t wrap_rate;     /* ticks per second, derived */
};

/* rate per second over NS nanoseconds, exactly (floor). */
static uint64_t grow(uint64_t rate, uint64_t ns)
{
	return (uint64_t)((unsigned __int128)rate * ns / NSEC);
}

static uint64_t overlap(uint64_t t, uint64_t from, uint64_t len)
{
	if (t <= from)
		return 0;
	return t - from < len ? t - from : len;
}

/* Growth of C at T ns into the run. */
static uint64_t growth_at(const struct counter *c, const struct run_opts *o, uint64_t t)
{
	switch (c->how) {
	case DRIVE_DATA: return grow(o->data_rate, t) / 4;
	case DRIVE_PACKETS: return grow(o->data_rate, t) / 4096;
	case DRIVE_CNP: return grow(o->cnp_rate, overlap(t, o->storm_at, o->storm_len));
	case DRIVE_ECN: return grow(o->ecn_rate, overlap(t, o->storm_at, o->storm_len));
	case DRIVE_WRAP: return grow(o->wrap_rate, t);
	case DRIVE_RESET: return t >= o->reset_at ? grow(o->reset_rate, t - o->reset_at) : 0;
	}
	return 0;
}

static uint64_t value_of(const struct counter *c, const struct run_opts *o, uint64_t growth, uint64_t t)
{
	if (c->how == DRIVE_WRAP)
		return (c->v0 + growth) % TWO32;
	if (c->how == DRIVE_RESET)
		return t >= o->reset_at ? growth : c->v0;
	return c->v0 + growth;
}

static int put_value(int fd, uint64_t v)
{
	char buf[32];
	int n = snprintf(buf, sizeof(buf), "%-20" PRIu64 "\n", v);

	return pwrite(fd, buf, (size_t)n, 0) == n ? 0 : -errno;
}

static int read_value(int fd, uint64_t *v)
{
	char buf[64], *end;
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return -EINVAL;
	buf[n] = '\0';
	errno = 0;
	*v = strtoull(buf, &end, 0);
	while (*end == ' ' || *end == '\n')
		end++;
	return errno || *end || buf[0] == '-' || end == buf ? -EINVAL : 0;
}

/* Write every counter's value at T (ns into the run). */
static int step(struct counter *cs, size_t n, const struct run_opts *o, uint64_t t)
{
	for (size_t i = 0; i < n; i++) {
		struct counter *c = &cs[i];
		uint64_t g, v;
		int rc;

		if (!c->active)
			continue;
		g = growth_at(c, o, t);
		v = value_of(c, o, g, t);
		/* 2^32-1 would read as a saturated PMA counter: wait for the next tick */
		if (c->how == DRIVE_WRAP && v == UINT32_MAX)
			continue;
		if (v == c->written && g == c->growth)
			continue;
		rc = put_value(c->fd, v);
		if (rc)
			return rc;
		c->written = v;
		c->growth = g;
	}
	return 0;
}

/*
 * After the tick that began at NOW wrote C (np_cnp_sent): when its storm
 * growth first appeared, and when it reached the whole storm, as
 * [NOW, time after the writes].
 */
static void note_storm_write(const struct counter *c, const struct run_opts *o, uint64_t now,
			     uint64_t first[2], uint64_t last[2])
{
	if (!c || !c->active || !c->growth)
		return;
	if (!first[0]) {
		first[0] = now;
		first[1] = mono_ns();
	}
	if (!last[0] && c->growth == grow(o->cnp_rate, o->storm_len)) {
		last[0] = now;
		last[1] = mono_ns();
	}
}

static int ms_opt(const char *name, const char *val, uint64_t *out_ns)
{
	long long v;

	if (toolargs_num(val, 0, 86400000LL, &v, 0))
		return die_usage(name, "expected milliseconds, 0..86400000");
	*out_ns = (uint64_t)v * 1000000ull;
	return 0;
}

static int rate_opt(const char *name, const char *val, uint64_t *out)
{
	long long v;

	if (toolargs_num(val, 0, 1LL << 50, &v, 0))
		return die_usage(name, "expected a rate per second, 0..2^50");
	*out = (uint64_t)v;
	return 0;
}

static void print_map(const char *key, const struct counter *cs, size_t n, int what)
{
	bool first = true;

	printf(",\"%s\":{", key);
	for (size_t i = 0; i < n; i++) {
		uint64_t v = what == 0 ? cs[i].v0 : what == 1 ? cs[i].growth : cs[i].written;

		if (!cs[i].active)
			continue;
		printf("%s\"%s\":%" PRIu64, first ? "" : ",", cs[i].name, v);
		first = false;
	}
	printf("}");
}

static int cmd_run(int argc, char **argv)
{
	struct run_opts o = { .tick_ns = 1000000, .data_rate = 1000000000, .reset_rate = 1000 };
	const char *dir = NULL, *dev = "mlx5_0", *ready = NULL;
	long long port = 1, v;
	bool storm = false, have_wrap_at = false;
	struct counter cs[] = {
		{ "counters", "port_xmit_data", DRIVE_DATA, -1, 0, 0, 0, true },
		{ "counters", "port_rcv_data", DRIVE_DATA, -1, 0, 0, 0, true },
		{ "counters", "port_xmit_packets", DRIVE_PACKETS, -1, 0, 0, 0, true },
		{ "counters", "port_rcv_packets", DRIVE_PACKETS, -1, 0, 0, 0, true },
		{ "hw_counters", "np_cnp_sent", DRIVE_CNP, -1, 0, 0, 0, false },
		{ "hw_counters", "rp_cnp_handled", DRIVE_CNP, -1, 0, 0, 0, false },
		{ "hw_counters", "np_ecn_marked_roce_packets", DRIVE_ECN, -1, 0, 0, 0, false },
		{ "counters", "port_xmit_wait", DRIVE_WRAP, -1, 0, 0, 0, false },
		{ "hw_counters", "out_of_sequence", DRIVE_RESET, -1, 0, 0, 0, false },
	};
	const size_t ncs = sizeof(cs) / sizeof(cs[0]);
	const struct counter *cnp = &cs[4];   /* np_cnp_sent */
	uint64_t t0, now, next, end_t, wrap_ns = 0, reset_ns = 0, ticks = 0;
	uint64_t storm_first[2] = { 0, 0 }, storm_last[2] = { 0, 0 };
	struct sigaction sa;
	int rc = 0;

	for (int i = 2; i < argc; i++) {
		const char *a = argv[i], *val;

		if (a[0] != '-') {
			if (dir)
				return die_usage(a, "one DIR only");
			dir = a;
			continue;
		}
		if (!strcmp(a, "--wrap")) {
			o.wrap = true;
			continue;
		}
		val = need(argc, argv, &i);
		if (!val)
			return die_usage(a, "unknown option or missing value");
		if (!strcmp(a, "--duration")) {
			char *end;
			double d;

			errno = 0;
			d = strtod(val, &end);
			if (errno || *end || end == val || !(d > 0) || d > 86400)
				return die_usage("--duration", "expected seconds, above 0 and at most 86400");
			o.duration_ns = (uint64_t)(d * 1e9);
		} else if (!strcmp(a, "--tick-us")) {
			if (toolargs_num(val, 10, 10000000, &v, 0))
				return die_usage("--tick-us", "expected 10..10000000");
			o.tick_ns = (uint64_t)v * 1000;
		} else if (!strcmp(a, "--data-rate")) {
			if (rate_opt(a, val, &o.data_rate))
				return 2;
		} else if (!strcmp(a, "--storm-at")) {
			if (ms_opt(a, val, &o.storm_at))
				return 2;
			storm = true;
		} else if (!strcmp(a, "--storm-len")) {
			if (ms_opt(a, val, &o.storm_len))
				return 2;
			storm = true;
		} else if (!strcmp(a, "--cnp-rate")) {
			if (rate_opt(a, val, &o.cnp_rate))
				return 2;
		} else if (!strcmp(a, "--ecn-rate")) {
			if (rate_opt(a, val, &o.ecn_rate))
				return 2;
		} else if (!strcmp(a, "--wrap-at")) {
			if (ms_opt(a, val, &o.wrap_at) || !o.wrap_at)
				return die_usage(a, "expected milliseconds above 0");
			have_wrap_at = true;
			o.wrap = true;
		} else if (!strcmp(a, "--reset-at")) {
			if (ms_opt(a, val, &o.reset_at))
				return 2;
			o.reset = true;
		} else if (!strcmp(a, "--reset-rate")) {
			if (rate_opt(a, val, &o.reset_rate))
				return 2;
		} else if (!strcmp(a, "--dev")) {
			if (!*val || strchr(val, '/'))
				return die_usage("--dev", "a device name such as mlx5_0");
			dev = val;
		} else if (!strcmp(a, "--port")) {
			if (toolargs_num(val, 1, 255, &port, 0))
				return die_usage("--port", "expected 1..255");
		} else if (!strcmp(a, "--ready-file")) {
			ready = val;
		} else {
			return die_usage(a, "unknown option");
		}
	}
	if (!dir)
		return die_usage("run", "DIR missing");
	if (storm && (!o.storm_len || (!o.cnp_rate && !o.ecn_rate)))
		return die_usage("--storm-at", "a storm needs --storm-len and --cnp-rate and/or --ecn-rate");
	if (!have_wrap_at)
		o.wrap_at = o.duration_ns ? o.duration_ns / 2 : NSEC;
	if (o.wrap && !o.wrap_at)
		return die_usage("--wrap", "the wrap time is 0; give --wrap-at");

	for (size_t i = 0; i < ncs; i++) {
		struct counter *c = &cs[i];
		char p[PATH_MAX];
		int n;

		if (c->how == DRIVE_CNP || c->how == DRIVE_ECN)
			c->active = storm;
		else if (c->how == DRIVE_WRAP)
			c->active = o.wrap;
		else if (c->how == DRIVE_RESET)
			c->active = o.reset;
		if (!c->active)
			continue;
		n = snprintf(p, sizeof(p), "%s/class/infiniband/%s/ports/%lld/%s/%s", dir, dev, port, c->sub, c->name);
		if (n < 0 || (size_t)n >= sizeof(p)) {
			fprintf(stderr, "rdma_fixture: %s: path too long\n", dir);
			return 1;
		}
		c->fd = open(p, O_RDWR | O_CLOEXEC);
		if (c->fd < 0 || read_value(c->fd, &c->v0)) {
			fprintf(stderr, "rdma_fixture: %s: %s\n", p,
				c->fd < 0 ? strerror(errno) : "not a number (a N/A counter cannot be driven)");
			rc = 1;
			goto out;
		}
		c->written = c->v0;
		if (c->how == DRIVE_WRAP) {
			/* start close enough under 2^32 that one read interval never spans 2^31 */
			if (c->v0 >= TWO32 || c->v0 < TWO32 - (1ull << 28)) {
				c->v0 = TWO32 - 1000000;
				c->written = c->v0;
				if (put_value(c->fd, c->v0)) {
					rc = 1;
					goto out;
				}
			}
			o.wrap_rate = (uint64_t)((unsigned __int128)(TWO32 - c->v0) * NSEC / o.wrap_at) + 1;
		}
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	if (ready) {
		int fd = open(ready, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

		if (fd < 0) {
			fprintf(stderr, "rdma_fixture: --ready-file %s: %s\n", ready, strerror(errno));
			rc = 1;
			goto out;
		}
		close(fd);
	}

	t0 = mono_ns();
	next = t0;
	end_t = o.duration_ns ? t0 + o.duration_ns : UINT64_MAX;
	for (;;) {
		struct timespec ts;
		uint64_t before_wrap = 0;

		now = mono_ns();
		if (g_stop || now >= end_t)
			break;
		for (size_t i = 0; i < ncs; i++)
			if (cs[i].active && cs[i].how == DRIVE_WRAP)
				before_wrap = cs[i].written;
		if (step(cs, ncs, &o, now - t0)) {
			fprintf(stderr, "rdma_fixture: writing counters: %s\n", strerror(errno));
			rc = 1;
			goto out;
		}
		note_storm_write(cnp, &o, now, storm_first, storm_last);
		for (size_t i = 0; i < ncs; i++) {
			if (!cs[i].active)
				continue;
			if (cs[i].how == DRIVE_WRAP && !wrap_ns && cs[i].written < before_wrap)
				wrap_ns = now;
			if (cs[i].how == DRIVE_RESET && !reset_ns && now - t0 >= o.reset_at)
				reset_ns = now;
		}
		ticks++;
		next += o.tick_ns;
		if (next < now)
			next = now; /* fell behind (a slow VM): no burst of catch-up ticks */
		if (next > end_t)
			next = end_t;
		ts.tv_sec = (time_t)(next / NSEC);
		ts.tv_nsec = (long)(next % NSEC);
		while (!g_stop && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
	}
	/* the last write, at the end time, so final values are exact */
	now = end_t != UINT64_MAX && !g_stop ? end_t : mono_ns();
	if (step(cs, ncs, &o, now - t0)) {
		rc = 1;
		goto out;
	}
	note_storm_write(cnp, &o, now, storm_first, storm_last);
	if (o.reset && !reset_ns && now - t0 >= o.reset_at)
		reset_ns = now;
	printf("{\"start_ns\":%" PRIu64 ",\"end_ns\":%" PRIu64, t0, now);
	if (storm && now > t0 + o.storm_at)
		printf(",\"storm_start_ns\":%" PRIu64 ",\"storm_end_ns\":%" PRIu64, t0 + o.storm_at,
		       t0 + o.storm_at + o.storm_len < now ? t0 + o.storm_at + o.storm_len : now);
	else
		printf(",\"storm_start_ns\":0,\"storm_end_ns\":0");
	printf(",\"storm_first_write_ns\":[%" PRIu64 ",%" PRIu64 "],\"storm_last_write_ns\":[%" PRIu64 ",%" PRIu64 "]",
	       storm_first[0], storm_first[1], storm_last[0], storm_last[1]);
	printf(",\"wrap_ns\":%" PRIu64 ",\"reset_ns\":%" PRIu64 ",\"ticks\":%" PRIu64, wrap_ns, reset_ns, ticks);
	print_map("initial", cs, ncs, 0);
	print_map("deltas", cs, ncs, 1);
	print_map("final", cs, ncs, 2);
	printf("}\n");
	fflush(stdout);
out:
	for (size_t i = 0; i < ncs; i++)
		if (cs[i].fd >= 0)
			close(cs[i].fd);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	}
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		}
	}
	if (!strcmp(argv[1], "create"))
		return cmd_create(argc, argv);
	if (!strcmp(argv[1], "run"))
		return cmd_run(argc, argv);
	return die_usage(argv[1], "unknown command (create or run)");
}
