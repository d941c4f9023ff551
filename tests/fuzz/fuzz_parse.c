// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target: the small parsers of outside input.  The first byte picks
 * the parser, the rest is its text:
 *
 *   0  parse_duration (-d, --bin, --gap, ...; the bare unit from byte 1)
 *   1  parse_size (--ringbuf)
 *   2  parse_iface_spec (-i NETNS/IFACE; buffer sizes from byte 1)
 *   3  session_opts__parse: NUL-separated "OPTION-BYTE ARGUMENT" items, then
 *      session_opts__check (record and top's shared options)
 *   4  phase_spec__parse (--phase LIB:SYMBOL[=NAME]) and catalog__short_name
 *   5  metrics__parse_addr (top --listen; byte 1 bit 0: --allow-remote)
 *   6  ctr__glob_match (--rdma-counters, --nic-stats): "LIST\0NAME"
 *   7  ctr__parse (a sysfs counter file's text)
 *   8  sysattr__parse_state / _rate / _guid (sysfs port attributes)
 *   9  metrics__parse_request (an HTTP request, as read so far)
 *
 * Errors go through ft_err in JSON mode: every message must be one valid
 * JSON document (stdout is a memfd, checked after each run).
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <math.h>
#include <netinet/in.h>

#include "tests/fuzz/fuzz.h"
#include "probes/catalog.h"
#include "rdma/counters.h"
#include "rdma/sysattr.h"
#include "userspace/live/metrics.h"
#include "userspace/record/session.h"
#include "lib/opt.h"
#include "lib/util.h"

static int out_fd;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	out_fd = memfd_create("fuzz_parse_stdout", MFD_CLOEXEC);
	FZ_CHECK(out_fd >= 0 && dup2(out_fd, STDOUT_FILENO) == STDOUT_FILENO, "stdout to a memfd");
	util_set_json(true);
	return 0;
}

/* What ft_err printed: one {"error": ...} line per message. */
static void check_errors(void)
{
	char buf[1 << 14];
	ssize_t n;

	fflush(stdout);
	n = pread(STDOUT_FILENO, buf, sizeof(buf) - 1, 0);
	FZ_CHECK(n >= 0, "read stdout back");
	buf[n] = '\0';
	if ((size_t)n == sizeof(buf) - 1) {   /* more than fits: check the complete lines */
		char *last = strrchr(buf, '\n');

		if (last)
			last[1] = '\0';
	}
	for (char *line = buf, *nl; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		FZ_CHECK(nl != NULL, "error message without a newline");
		*nl = '\0';
		FZ_CHECK(fz_json_ok(line, (size_t)(nl - line)), "error message is not JSON: %s", line);
	}
	FZ_CHECK(ftruncate(STDOUT_FILENO, 0) == 0 && lseek(STDOUT_FILENO, 0, SEEK_SET) == 0, "reset stdout");
}

static const struct { const char *sfx; uint64_t ns; } units[] = {
	{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 }, { "m", 60000000000 },
	{ "min", 60000000000 }, { "h", 3600000000000 }, { "d", 86400000000000 },
};

static void t_duration(const char *s, uint8_t arg)
{
	static const uint64_t bare[] = { 0, 1, 1000, 1000000, 1000000000, 60000000000 };
	uint64_t unit = bare[arg % (sizeof(bare) / sizeof(bare[0]))], v = 0, w = 0;
	char again[32];

	if (parse_duration(s, unit, &v))
		return;
	FZ_CHECK(v > 0, "parse_duration('%s') accepted 0", s);
	{
		/* long double arithmetic agrees (a wrapped overflow would not); the unit's scale from it */
		char *end;
		long double ref = strtold(s, &end), scale = unit;   /* no suffix: the bare unit */

		for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (!strcmp(end, units[i].sfx))
				scale = units[i].ns;
		ref *= scale;
		FZ_CHECK(fabsl(ref - (long double)v) <= 1.0L + ref * 1e-15L, "parse_duration('%s') = %llu, expected about %Lg",
			 s, (unsigned long long)v, ref);
	}
	/* the value in ns, written back, reads the same */
	snprintf(again, sizeof(again), "%lluns", (unsigned long long)v);
	FZ_CHECK(parse_duration(again, 0, &w) == 0 && w == v, "'%s' -> %llu -> '%s' -> %llu", s,
		 (unsigned long long)v, again, (unsigned long long)w);
	/* a unit makes no difference to what the bare unit means */
	if (unit && strspn(s, "0123456789.") == strlen(s)) {
		FZ_CHECK(parse_duration(s, 0, &w) != 0, "'%s' without a unit accepted with none allowed", s);
	}
}

static void t_size(const char *s)
{
	uint64_t v = 0, w = 0;
	char again[32];

	if (parse_size(s, &v))
		return;
	snprintf(again, sizeof(again), "%llu", (unsigned long long)v);
	FZ_CHECK(parse_size(again, &w) == 0 && w == v, "'%s' -> %llu -> %llu", s, (unsigned long long)v,
		 (unsigned long long)w);
}

static void t_iface(const char *s, uint8_t arg)
{
	char netns[300], ifname[32], again[340];
	size_t nl = 1 + arg % sizeof(netns), il = 1 + (arg >> 4) % sizeof(ifname);

	memset(netns, 'X', sizeof(netns));
	memset(ifname, 'X', sizeof(ifname));
	if (parse_iface_spec(s, netns, nl, ifname, il))
		return;
	FZ_CHECK(memchr(netns, '\0', nl) && memchr(ifname, '\0', il), "parse_iface_spec: no terminator");
	FZ_CHECK(ifname[0] && strlen(ifname) <= 15 && !strchr(ifname, '/') && !strchr(ifname, ':'),
		 "parse_iface_spec('%s'): bad interface name accepted", s);
	snprintf(again, sizeof(again), "%s%s%s", netns, netns[0] ? "/" : "", ifname);
	FZ_CHECK(!strcmp(again, s), "parse_iface_spec('%s') split into '%s' and '%s'", s, netns, ifname);
}

/* The options record and top share, as getopt_long would hand them over. */
static void t_session(const uint8_t *data, size_t size)
{
	static const int codes[] = {
		'i', 'd', 'p', 'v', SOPT_NETNS, SOPT_BIN, SOPT_RTT, SOPT_RINGBUF, SOPT_PHASE, SOPT_NO_PHASES,
		SOPT_CTR_PERIOD, SOPT_RDMA_DEVS, SOPT_RDMA_CTRS, SOPT_LIFESPAN, SOPT_NIC_STATS, SOPT_NO_RDMA,
		SOPT_NO_NIC, SOPT_BUDGET, SOPT_SYSFS, 'o', SOPT_WAKEUP,
	}; /* a byte modulo the length picks one: SOPT_WAKEUP replaced an unhandled 0, so the corpus keeps its meaning */
	struct session_opts o;
	char *buf = fz_strndup(data, size), *p = buf, *end = buf + size;
	bool failed = false;   /* a refused value may be left in the struct: the caller exits */

	FZ_CHECK(session_opts__init(&o, "record") == 0, "session_opts__init");
	while (p < end) {
		int c = codes[(uint8_t)*p % (sizeof(codes) / sizeof(codes[0]))], ret;
		const char *arg = p + 1;

		ret = session_opts__parse(&o, c, arg);
		FZ_CHECK(ret >= -1 && ret <= 1, "session_opts__parse returned %d", ret);
		FZ_CHECK((ret == 0) == (c == 'o'), "option %d: handled %d", c, ret);
		failed |= ret < 0;
		p += strlen(p) + 1;
	}
	FZ_CHECK(o.n_iface_args <= SESSION_MAX_IFACE_ARGS && o.npids <= SESSION_MAX_PIDS &&
		 o.nspecs <= SESSION_MAX_PHASE_SPECS, "session options overflowed");
	FZ_CHECK(failed || (o.so.period_ns >= 100000 && o.so.period_ns <= 60000000000ull),
		 "--counter-period out of range");
	FZ_CHECK(failed || (o.bin_ns >= 1000 && o.bin_ns <= 1000000000ull), "--bin out of range: %llu",
		 (unsigned long long)o.bin_ns);
	FZ_CHECK(o.ringbuf_bytes >= 16384 && !(o.ringbuf_bytes & (o.ringbuf_bytes - 1)), "--ringbuf %zu",
		 o.ringbuf_bytes);
	for (int i = 0; i < o.npids; i++)
		FZ_CHECK(o.pids[i] > 0, "-p accepted %d", (int)o.pids[i]);
	FZ_CHECK(session_opts__check(&o) || session_opts__wake_bytes(&o) < o.ringbuf_bytes,
		 "--wakeup %zu accepted with --ringbuf %zu", session_opts__wake_bytes(&o), o.ringbuf_bytes);
	session_opts__free(&o);
	free(buf);
}

static bool plain_name(const char *s)
{
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-' && *s != '.')
			return false;
	return true;
}

static void t_phase(const char *s, uint8_t arg)
{
	struct phase_spec ps;
	char err[160], shortn[64];
	size_t len = 1 + arg % sizeof(shortn);

	memset(err, 'X', sizeof(err));
	if (phase_spec__parse(s, &ps, err, sizeof(err))) {
		FZ_CHECK(memchr(err, '\0', sizeof(err)) && err[0], "phase_spec__parse: no reason given");
		return;
	}
	FZ_CHECK(ps.lib[0] && ps.symbol[0] && strlen(ps.lib) < sizeof(ps.lib) &&
		 strlen(ps.symbol) < sizeof(ps.symbol) && strlen(ps.name) < sizeof(ps.name),
		 "phase_spec__parse('%s'): empty or unterminated part", s);
	FZ_CHECK(plain_name(ps.name), "phase_spec__parse('%s'): NAME '%s' is not plain", s, ps.name);
	FZ_CHECK(!strncmp(s, ps.lib, strlen(ps.lib)) && s[strlen(ps.lib)] == ':' &&
		 !strncmp(s + strlen(ps.lib) + 1, ps.symbol, strlen(ps.symbol)),
		 "phase_spec__parse('%s') split into '%s' '%s'", s, ps.lib, ps.symbol);
	memset(shortn, 'X', sizeof(shortn));
	catalog__short_name(ps.symbol, shortn, len);
	FZ_CHECK(memchr(shortn, '\0', len), "catalog__short_name: not terminated in %zu bytes", len);
	FZ_CHECK(!strchr(shortn, '('), "catalog__short_name('%s') kept the parameters", ps.symbol);
}

static void t_addr(const char *s, uint8_t arg)
{
	struct sockaddr_storage ss;
	socklen_t sl = 0;
	char err[256];
	int ret;

	memset(err, 'X', sizeof(err));
	ret = metrics__parse_addr(s, arg & 1, &ss, &sl, err, sizeof(err));
	FZ_CHECK(ret == 0 || ret == -EINVAL || ret == -EPERM, "metrics__parse_addr returned %d", ret);
	if (ret) {
		FZ_CHECK(memchr(err, '\0', sizeof(err)) && err[0], "metrics__parse_addr: no reason given");
		FZ_CHECK(ret != -EPERM || !(arg & 1), "refused as remote with --allow-remote");
		return;
	}
	FZ_CHECK((ss.ss_family == AF_INET && sl == sizeof(struct sockaddr_in)) ||
		 (ss.ss_family == AF_INET6 && sl == sizeof(struct sockaddr_in6)), "family %d len %u",
		 ss.ss_family, (unsigned)sl);
	if (!(arg & 1) && ss.ss_family == AF_INET)
		FZ_CHECK(ntohl(((struct sockaddr_in *)&ss)->sin_addr.s_addr) >> 24 == 127,
			 "'%s': a remote address accepted without --allow-remote", s);
}

static void t_glob(const uint8_t *data, size_t size)
{
	char *buf = fz_strndup(data, size);
	const char *name = buf + strlen(buf) + 1 <= buf + size ? buf + strlen(buf) + 1 : "";

	if (ctr__glob_match(buf, name))
		FZ_CHECK(buf[0], "an empty list matched");
	FZ_CHECK(!ctr__glob_match("", name) && !ctr__glob_match(NULL, name), "empty list matched");
	free(buf);
}

static void t_counter(const uint8_t *data, size_t size)
{
	uint64_t v = 12345;
	char *buf = fz_strndup(data, size);
	int ret = ctr__parse(buf, size, &v);
	uint64_t w = 0;

	FZ_CHECK(ret == 0 || ret == -ENODATA || ret == -EINVAL, "ctr__parse returned %d", ret);
	/* no read past LEN: parse a prefix without its NUL */
	if (size > 1) {
		char *cut = malloc(size - 1);

		FZ_CHECK(cut != NULL, "out of memory");
		memcpy(cut, data, size - 1);
		(void)ctr__parse(cut, size - 1, &w);
		free(cut);
	}
	if (!ret) {
		char again[32], *t = buf, *end;
		int ret2;
		unsigned long long ref;

		snprintf(again, sizeof(again), "%llu\n", (unsigned long long)v);
		ret2 = ctr__parse(again, strlen(again), &w);
		FZ_CHECK(ret2 == 0 && w == v, "ctr__parse: '%llu' does not read back", (unsigned long long)v);
		/* the C library agrees on the value (a wrapped overflow would not) */
		while (*t == ' ' || *t == '\t' || *t == '\n' || *t == '\r')
			t++;
		errno = 0;
		ref = strtoull(t, &end, t[0] == '0' && (t[1] == 'x' || t[1] == 'X') ? 16 : 10);
		FZ_CHECK(errno != ERANGE && ref == v, "ctr__parse('%s') = %llu, strtoull says %llu%s", buf,
			 (unsigned long long)v, ref, errno == ERANGE ? " (out of range)" : "");
	}
	free(buf);
}

static void t_sysattr(const char *s)
{
	unsigned st = 0, width = 0;
	uint32_t mbps = 0;
	uint64_t guid = 0;

	if (!sysattr__parse_state(s, &st))
		FZ_CHECK(st <= 255, "state %u", st);
	if (!sysattr__parse_rate(s, &width, &mbps))
		FZ_CHECK(width <= 64, "width %u", width);
	if (!sysattr__parse_guid(s, &guid)) {
		uint64_t g2 = 0;
		char again[32];

		snprintf(again, sizeof(again), "%04x:%04x:%04x:%04x", (unsigned)(guid >> 48),
			 (unsigned)(guid >> 32) & 0xffff, (unsigned)(guid >> 16) & 0xffff, (unsigned)guid & 0xffff);
		FZ_CHECK(!sysattr__parse_guid(again, &g2) && g2 == guid, "guid does not read back");
	}
}

static void t_http(const uint8_t *data, size_t size)
{
	/* the server's buffer holds at most METRICS_MAX_REQUEST bytes; exact-size copy for ASan */
	size_t len = size < METRICS_MAX_REQUEST ? size : METRICS_MAX_REQUEST;
	char *buf = malloc(len);   /* len >= 1: the caller passes the bytes after the selector */
	int st;

	FZ_CHECK(buf != NULL, "out of memory");
	memcpy(buf, data, len);
	st = metrics__parse_request(buf, len);
	FZ_CHECK(st == 0 || st == 200 || st == 400 || st == 404 || st == 405 || st == 431, "status %d", st);
	FZ_CHECK(st || len < METRICS_MAX_REQUEST, "a full buffer left the request pending");
	if (st == 200)
		FZ_CHECK(len >= 14 && !memcmp(buf, "GET /metrics", 12), "200 for a request that is no GET /metrics");
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t sel, arg;
	char *s;

	if (size < 2 || size > 8192)
		return -1;
	sel = data[0];
	arg = data[1];
	s = fz_strndup(data + 2, size - 2);
	/* again per run: -close_fd_mask=1 points stdout at /dev/null after LLVMFuzzerInitialize */
	fflush(stdout);
	FZ_CHECK(dup2(out_fd, STDOUT_FILENO) == STDOUT_FILENO, "stdout to the memfd");
	switch (sel % 10) {
	case 0: t_duration(s, arg); break;
	case 1: t_size(s); break;
	case 2: t_iface(s, arg); break;
	case 3: t_session(data + 1, size - 1); break;
	case 4: t_phase(s, arg); break;
	case 5: t_addr(s, arg); break;
	case 6: t_glob(data + 1, size - 1); break;
	case 7: t_counter(data + 1, size - 1); break;
	case 8: t_sysattr(s); break;
	default: t_http(data + 1, size - 1); break;
	}
	free(s);
	check_errors();
	return 0;
}
