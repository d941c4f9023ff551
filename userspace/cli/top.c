// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fabtrace top: what the fabric is doing right now.
 *
 * The same session as `record` (userspace/record/session.h) feeds every record to
 * the live aggregator (userspace/live/live.h) and, with --record, to a capture.
 * A refresh timer in the session's loop closes a period and shows it: a
 * full-screen view (plain ANSI, no curses), or with --once/--json a
 * snapshot for scripts, with --headless nothing (an exporter for
 * --listen, userspace/live/metrics.h).
 *
 * The terminal: alternate screen, raw input (keys without Enter, no echo;
 * Ctrl-C still a signal, Ctrl-Z disabled so the screen is never left in raw
 * mode behind a stopped job).  It is restored on every way out: normal
 * exit, q, SIGINT/SIGTERM/SIGHUP (signalfd: a clean stop), exit() (atexit),
 * and crashes (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGQUIT: restore,
 * then the signal's default action).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>

#include "rdma/counters.h"
#include "userspace/cli/commands.h"
#include "userspace/correlate/correlate.h"
#include "probes/base/json.h"
#include "userspace/live/live.h"
#include "userspace/live/metrics.h"
#include "userspace/record/session.h"
#include "probes/base/util.h"

enum sort_key { SORT_RATE, SORT_PEAK, SORT_BURSTS, SORT_BACKLOG, SORT_DROPS, SORT_NAME, SORT_N };
static const char *const sort_names[SORT_N] = { "rate", "peak", "bursts", "backlog", "drops", "name" };

struct top {
	struct session_opts o;
	struct session *s;
	struct live *l;
	struct metrics_server *ms;
	/* options */
	uint64_t refresh_ns;
	bool once, json, headless, allow_remote;
	long count;                /* snapshots to print (--json/--once), 0 = until stopped */
	const char *listen;
	/* state */
	bool ui;
	long printed;
	int tfd;
	int wfd;                   /* SIGWINCH signalfd (UI) */
	bool out_failed;
	int rows, cols;
	int sort;
	char filter[64];
	bool editing, help;
	char edit[64];
	int argc;
	char **argv;
};

static void usage(FILE *f)
{
	fprintf(f,
"Usage: fabtrace top [OPTIONS]\n"
"\n"
"A live view of the fabric: per interface the current and peak rate (the peak\n"
"at bin resolution: the fullest --bin, not the 1 s average), microbursts per\n"
"second, utilisation against the link speed or tbf/htb rate, the largest qdisc\n"
"backlog and sojourn time, drops by reason, retransmits, CE marks, RDMA and\n"
"NIC congestion and pause counters, and a sparkline of the last minute; per\n"
"traced process (MPI, NCCL, Gloo, markers) the last collective, collectives\n"
"per second, the last duration and bus bandwidth, and the slowest rank (the\n"
"one the others wait for).  Lost events are always shown.\n"
"\n"
"With no option: every interface of every namespace, phase probes on every\n"
"process, a 1 s refresh, until q or Ctrl-C.\n"
"\n"
"Keys: q quit, s next sort key (rate, peak, bursts, backlog, drops, name),\n"
"      / or f filter interfaces by a substring of NAME@NETNS (Enter applies, an\n"
"      empty filter clears, Esc cancels), r reset the maxima, h help.\n"
"\n"
"Options:\n"
"  -r, --refresh DUR          refresh period (default 1s, 100ms..1h)\n"
"      --once                 print one snapshot as text after one period, exit\n"
"      --json                 print snapshots as JSON, one line each (one, or\n"
"                             -n COUNT); errors are JSON too\n"
"  -n, --count COUNT          snapshots to print with --json/--once (0: until\n"
"                             stopped)\n"
"      --headless             no screen and no snapshots (an exporter: --listen)\n"
"      --record FILE          also record everything into the capture FILE\n"
"      --listen ADDR:PORT     serve metrics at http://ADDR:PORT/metrics (Prometheus text\n"
"                             0.0.4, or OpenMetrics when the scraper's Accept asks)\n"
"                             (PORT alone: 127.0.0.1; port 0: any free port)\n"
"      --allow-remote         allow --listen on a non-loopback address\n"
"      --sort KEY             initial sort key (rate, peak, bursts, backlog,\n"
"                             drops, name)\n"
"      --filter TEXT          initial interface filter\n"
"  -i, --iface [NETNS/]IFACE  only this interface (repeatable)\n"
"      --netns NAME           only this network namespace\n"
"  -d, --duration DURATION    stop after DURATION\n"
"      --bin WIDTH            microburst bin width (default 100us, min 1us)\n"
"      --rtt-interval DUR     min gap between RTT/cwnd samples per flow\n"
"      --ringbuf SIZE         ring buffer per probe family (default 16M)\n"
"      --wakeup SIZE          wake the recorder each time SIZE more bytes wait\n"
"                             in a ring; it also drains every 20 ms (default:\n"
"                             ringbuf/8; 0: a wake-up per record, which about\n"
"                             doubles the probes' CPU time)\n"
"  -p, --pid PID[,PID...]     phase probes on these processes and their children\n"
"      --phase LIB:SYMBOL[=NAME]  also trace SYMBOL of LIB as phase NAME\n"
"      --no-phases            no phase probes\n"
"      --no-probes LIST       leave out probe families: bins, qdisc, drops, tcp,\n"
"                             rtt (costs: 'fabtrace features')\n"
"      --coverage MODE        auto, counters or kernel (see record --help)\n"
"      --counter-period DUR, --rdma-devices LIST, --rdma-counters GLOBS,\n"
"      --rdma-lifespan MS, --nic-stats GLOBS, --no-rdma, --no-nic-stats,\n"
"      --sampler-budget PCT, --sysfs-root DIR   as for record\n"
"  -v, --verbose              show libbpf and verifier messages\n"
"  -h, --help                 this help\n"
"\n"
"Examples:\n"
"  sudo fabtrace top\n"
"  sudo fabtrace top -i eth0 --bin 20us\n"
"  sudo fabtrace top --netns lab1h2 --record incident.ftr\n"
"  sudo fabtrace top --once\n"
"  sudo fabtrace top --json -n 10 -r 500ms | jq '.interfaces[0].tx.peak_bps'\n"
"  sudo fabtrace top --headless --listen 127.0.0.1:9464\n"
"  curl -s http://127.0.0.1:9464/metrics\n"
"\n"
"Needs root, or CAP_BPF + CAP_PERFMON + CAP_NET_ADMIN.  The metrics are\n"
"documented in docs/top.md.\n");
}

/* ---- the terminal ---- */

static struct termios ui_orig;
static volatile sig_atomic_t ui_active;

#define SEQ_ENTER "\x1b[?1049h\x1b[?25l\x1b[H\x1b[2J"
#define SEQ_LEAVE "\x1b[0m\x1b[?25h\x1b[?1049l"

/* Async-signal-safe: write() and tcsetattr() only. */
static void ui_restore(void)
{
	ssize_t n;

	if (!ui_active)
		return;
	ui_active = 0;
	n = write(STDOUT_FILENO, SEQ_LEAVE, sizeof(SEQ_LEAVE) - 1);
	(void)n;
	tcsetattr(STDIN_FILENO, TCSANOW, &ui_orig);
}

static void on_crash(int sig)
{
	ui_restore();
	raise(sig); /* SA_RESETHAND: the default action, once this handler returns */
}

static int ui_enter(void)
{
	static bool hooked;
	struct termios raw;
	struct sigaction sa;
	static const int crash[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGQUIT };

	if (tcgetattr(STDIN_FILENO, &ui_orig))
		return -errno;
	raw = ui_orig;
	raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO | IEXTEN);  /* ISIG stays: Ctrl-C is SIGINT */
	raw.c_iflag &= ~(tcflag_t)(IXON | ICRNL);
	raw.c_cc[VMIN] = 1;
	raw.c_cc[VTIME] = 0;
	raw.c_cc[VSUSP] = _POSIX_VDISABLE;  /* Ctrl-Z would leave a raw terminal behind */
	if (!hooked) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_crash;
		sa.sa_flags = (int)SA_RESETHAND;
		sigemptyset(&sa.sa_mask);
		for (size_t i = 0; i < sizeof(crash) / sizeof(crash[0]); i++)
			sigaction(crash[i], &sa, NULL);
		atexit(ui_restore);
		hooked = true;
	}
	ui_active = 1;
	if (tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw)) {
		ui_active = 0;
		return -errno;
	}
	if (write(STDOUT_FILENO, SEQ_ENTER, sizeof(SEQ_ENTER) - 1) < 0) {
		ui_restore();
		return -errno;
	}
	return 0;
}

static void ui_size(struct top *t)
{
	struct winsize ws;

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row && ws.ws_col) {
		t->rows = ws.ws_row;
		t->cols = ws.ws_col;
	} else {
		t->rows = 24;
		t->cols = 80;
	}
}

/* ---- formatting ---- */

/* Compact SI: "0", "950", "1.2k", "98.1M", "1.23G" (fits in 6 columns). */
static const char *si(double v, char *buf, size_t len)
{
	static const char suffix[] = " kMGTP";
	int i = 0;

	if (isnan(v)) {
		snprintf(buf, len, "-");
		return buf;
	}
	if (v < 0.5) {
		snprintf(buf, len, "0");
		return buf;
	}
	while (v >= 999.5 && i < 5) {
		v /= 1000.0;
		i++;
	}
	if (!i)
		snprintf(buf, len, "%.0f", v);
	else if (v < 9.995)
		snprintf(buf, len, "%.2f%c", v, suffix[i]);
	else if (v < 99.95)
		snprintf(buf, len, "%.1f%c", v, suffix[i]);
	else
		snprintf(buf, len, "%.0f%c", v, suffix[i]);
	return buf;
}

/* A duration in ns: "850ns", "12us", "2.4ms", "1.20s"; "-" for 0. */
static const char *dur(uint64_t ns, char *buf, size_t len)
{
	if (!ns)
		snprintf(buf, len, "-");
	else if (ns < 1000)
		snprintf(buf, len, "%lluns", (unsigned long long)ns);
	else if (ns < 10000)
		snprintf(buf, len, "%.1fus", ns / 1e3);
	else if (ns < 1000000)
		snprintf(buf, len, "%.0fus", ns / 1e3);
	else if (ns < 10000000)
		snprintf(buf, len, "%.1fms", ns / 1e6);
	else if (ns < 1000000000)
		snprintf(buf, len, "%.0fms", ns / 1e6);
	else
		snprintf(buf, len, "%.2fs", ns / 1e9);
	return buf;
}

/* Per second over the last period; "-" when nothing. */
static const char *per_s(const struct top *t, uint64_t n, char *buf, size_t len)
{
	return n ? si((double)n / live__period_s(t->l), buf, len) : strcpy(buf, "0");
}

/* One screen line: text with its display width tracked; escapes take no columns. */
struct line {
	char buf[2048];
	size_t len;
	int col, max;      /* columns used, allowed (<= 0: unlimited) */
};

static void ln_init(struct line *ln, int max)
{
	ln->len = 0;
	ln->col = 0;
	ln->max = max;
	ln->buf[0] = '\0';
}

/* Append S (UTF-8), cut at the line's width. */
static void ln_put(struct line *ln, const char *s)
{
	while (*s) {
		size_t n = 1;

		if ((unsigned char)*s >= 0xc0) /* a code point's length from its lead byte */
			n = (unsigned char)*s >= 0xf0 ? 4 : (unsigned char)*s >= 0xe0 ? 3 : 2;
		if ((ln->max > 0 && ln->col >= ln->max) || ln->len + n >= sizeof(ln->buf))
			return;
		memcpy(ln->buf + ln->len, s, n);
		ln->len += n;
		ln->buf[ln->len] = '\0';
		ln->col++;
		for (size_t i = 0; i < n && *s; i++)
			s++;
	}
}

static void ln_esc(struct line *ln, bool ansi, const char *seq)
{
	size_t n = strlen(seq);

	if (!ansi || ln->len + n >= sizeof(ln->buf))
		return;
	memcpy(ln->buf + ln->len, seq, n + 1);
	ln->len += n;
}

/* S in a field of WIDTH columns (right-aligned when RIGHT), then a space. */
static void ln_field(struct line *ln, const char *s, int width, bool right)
{
	char tmp[256];

	snprintf(tmp, sizeof(tmp), right ? "%*.*s " : "%-*.*s ", width, width, s);
	ln_put(ln, tmp);
}

static void ln_printf(struct line *ln, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ln_printf(struct line *ln, const char *fmt, ...)
{
	char tmp[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	ln_put(ln, tmp);
}

/* The lines of one frame (the screen, or a --once snapshot). */
struct frame {
	char *buf;
	size_t len, cap;
	int lines;
	int max_lines;      /* <= 0: unlimited */
	bool ansi;
	bool full;
};

static void fr_add(struct frame *fr, const struct line *ln)
{
	char pos[32];
	size_t need;
	int n = 0;

	if (fr->max_lines > 0 && fr->lines >= fr->max_lines) {
		fr->full = true;
		return;
	}
	if (fr->ansi)
		n = snprintf(pos, sizeof(pos), "\x1b[%d;1H", fr->lines + 1);
	need = fr->len + (size_t)n + ln->len + 16;
	if (need > fr->cap) {
		size_t cap = fr->cap ? fr->cap * 2 : 16384;
		char *p;

		while (cap < need)
			cap *= 2;
		p = realloc(fr->buf, cap);
		if (!p)
			return;
		fr->buf = p;
		fr->cap = cap;
	}
	if (!fr->buf)
		return;
	memcpy(fr->buf + fr->len, pos, (size_t)n);
	fr->len += (size_t)n;
	memcpy(fr->buf + fr->len, ln->buf, ln->len);
	fr->len += ln->len;
	if (fr->ansi) {
		memcpy(fr->buf + fr->len, "\x1b[0m\x1b[K", 7); /* attributes off, rest of the line cleared */
		fr->len += 7;
	} else {
		fr->buf[fr->len++] = '\n';
	}
	fr->lines++;
}

static int fr_room(const struct frame *fr)
{
	return fr->max_lines > 0 ? fr->max_lines - fr->lines : 1 << 30;
}

/* ---- the interface table ---- */

enum col_id {
	C_IFACE, C_RX, C_TX, C_PEAK, C_UTIL, C_BURST, C_BACKLOG, C_SOJOURN, C_DROPS, C_RETX,
	C_CE, C_PAUSE, C_CNP, C_PEAKMAX, C_BKLGMAX, C_SPARK, C_N
};

struct col {
	const char *title;
	int width;
	int prio;          /* the highest go first when the screen is narrow */
	bool right;
};

static const struct col cols[C_N] = {
	[C_IFACE] = { "INTERFACE", 22, 0, false },
	[C_RX] = { "RX b/s", 6, 1, true },
	[C_TX] = { "TX b/s", 6, 1, true },
	[C_PEAK] = { "PEAKBIN", 7, 2, true },
	[C_UTIL] = { "UTIL%", 5, 3, true },
	[C_BURST] = { "BURST/s", 7, 3, true },
	[C_BACKLOG] = { "BACKLOG", 7, 4, true },
	[C_SOJOURN] = { "SOJOURN", 7, 5, true },
	[C_DROPS] = { "DROP/s", 6, 4, true },
	[C_RETX] = { "RETX/s", 6, 5, true },
	[C_CE] = { "CE/s", 5, 6, true },
	[C_PAUSE] = { "PAUSE/s", 7, 7, true },
	[C_CNP] = { "CNP/s", 5, 7, true },
	[C_PEAKMAX] = { "PEAKMAX", 7, 8, true },
	[C_BKLGMAX] = { "BKLGMAX", 7, 8, true },
	[C_SPARK] = { "HISTORY", 0, 9, false },   /* width: what is left, up to LIVE_HISTORY */
};

#define SPARK_MIN 12

/* Which columns fit in WIDTH; the sparkline's width in *spark (0: none). */
static void pick_cols(int width, bool spark, bool on[C_N], int *spark_w)
{
	int used = 0, maxprio = 9;

	for (int c = 0; c < C_N; c++) {
		on[c] = c != C_SPARK || spark;
		if (on[c] && c != C_SPARK)
			used += cols[c].width + 1;
	}
	if (on[C_SPARK])
		used += SPARK_MIN;
	while (width > 0 && used > width && maxprio > 0) {
		for (int c = C_N - 1; c >= 0; c--)
			if (on[c] && cols[c].prio == maxprio) {
				on[c] = false;
				used -= c == C_SPARK ? SPARK_MIN : cols[c].width + 1;
			}
		maxprio--;
	}
	*spark_w = 0;
	if (on[C_SPARK]) {
		int left = width - (used - SPARK_MIN);

		*spark_w = left > LIVE_HISTORY ? LIVE_HISTORY : left;
	}
}

static double if_rate(const struct live_iface *f)
{
	return f->dir[0].rate_bps + f->dir[1].rate_bps;
}

static double if_peak(const struct live_iface *f)
{
	return fmax(f->dir[0].peak_bps, f->dir[1].peak_bps);
}

static bool if_idle(const struct live_iface *f)
{
	return !f->dir[0].bytes && !f->dir[1].bytes && !f->drops && !f->rtx;
}

static const struct top *sort_top; /* qsort has no context argument */

static int cmp_if(const void *a, const void *b)
{
	const struct live *l = sort_top->l;
	const struct live_iface *x = &l->ifaces[*(const uint32_t *)a], *y = &l->ifaces[*(const uint32_t *)b];
	double vx = 0, vy = 0;

	if (if_idle(x) != if_idle(y))
		return if_idle(x) ? 1 : -1;
	switch (sort_top->sort) {
	case SORT_RATE: vx = if_rate(x); vy = if_rate(y); break;
	case SORT_PEAK: vx = if_peak(x); vy = if_peak(y); break;
	case SORT_BURSTS:
		vx = (double)(x->dir[0].p_bursts + x->dir[1].p_bursts);
		vy = (double)(y->dir[0].p_bursts + y->dir[1].p_bursts);
		break;
	case SORT_BACKLOG: vx = (double)x->p_backlog; vy = (double)y->p_backlog; break;
	case SORT_DROPS: vx = (double)x->p_drops; vy = (double)y->p_drops; break;
	default: break;
	}
	if (vx != vy)
		return vx > vy ? -1 : 1;
	return strcmp(x->label, y->label);
}

/* Interfaces that pass the filter, sorted; their count. */
static size_t select_ifaces(const struct top *t, uint32_t *idx)
{
	size_t n = 0;

	for (size_t i = 0; i < t->l->nifaces; i++) {
		const struct live_iface *f = &t->l->ifaces[i];

		if (t->filter[0] && !strstr(f->label, t->filter))
			continue;
		idx[n++] = (uint32_t)i;
	}
	sort_top = t;
	if (n > 1)
		qsort(idx, n, sizeof(*idx), cmp_if);
	return n;
}

static void sparkline(const struct top *t, struct line *ln, const struct live_iface *f, int w)
{
	static const char *const blocks[] = { " ", "\u2581", "\u2582", "\u2583", "\u2584", "\u2585",
					      "\u2586", "\u2587", "\u2588" };
	static const char ascii[] = " .:-=+*#%@";
	const char *lang = getenv("LC_ALL");
	double rx[LIVE_HISTORY], tx[LIVE_HISTORY], max = 0;
	bool utf8;

	if (!lang || !*lang)
		lang = getenv("LC_CTYPE");
	if (!lang || !*lang)
		lang = getenv("LANG");
	utf8 = lang && (strstr(lang, "UTF-8") || strstr(lang, "utf8") || strstr(lang, "UTF8"));
	live__history(t->l, &f->dir[0], rx, (unsigned)w);
	live__history(t->l, &f->dir[1], tx, (unsigned)w);
	for (int i = 0; i < w; i++)
		max = fmax(max, rx[i] + tx[i]);
	for (int i = 0; i < w; i++) {
		double v = max > 0 ? (rx[i] + tx[i]) / max : 0;
		int lvl = v > 0 ? 1 + (int)(v * 7.999) : 0;

		if (utf8) {
			ln_put(ln, blocks[lvl]);
		} else {
			char c[2] = { ascii[lvl > 9 ? 9 : lvl], 0 };

			ln_put(ln, c);
		}
	}
}

static void iface_row(const struct top *t, struct line *ln, const struct live_iface *f,
		      const bool on[C_N], int spark_w, bool ansi)
{
	char b[32];
	double util = fmax(isnan(f->dir[0].util) ? -1 : f->dir[0].util, isnan(f->dir[1].util) ? -1 : f->dir[1].util);
	uint64_t bursts = f->dir[0].p_bursts + f->dir[1].p_bursts;
	uint64_t pkmax = f->dir[0].max_peak_bin > f->dir[1].max_peak_bin ? f->dir[0].max_peak_bin
									  : f->dir[1].max_peak_bin;
	double binsec = (double)t->l->opts.bin_ns / 1e9;

	for (int c = 0; c < C_N; c++) {
		const char *v = "";

		if (!on[c])
			continue;
		switch (c) {
		case C_IFACE: v = f->label; break;
		case C_RX: v = si(f->dir[FT_DIR_RX].rate_bps, b, sizeof(b)); break;
		case C_TX: v = si(f->dir[FT_DIR_TX].rate_bps, b, sizeof(b)); break;
		case C_PEAK: v = si(if_peak(f), b, sizeof(b)); break;
		case C_UTIL:
			if (util < 0)
				v = "-";
			else
				snprintf(b, sizeof(b), "%.0f", util * 100), v = b;
			break;
		case C_BURST: v = per_s(t, bursts, b, sizeof(b)); break;
		case C_BACKLOG: v = f->qdisc[0] ? si((double)f->p_backlog, b, sizeof(b)) : "-"; break;
		case C_SOJOURN: v = f->qdisc[0] ? dur(f->p_sojourn, b, sizeof(b)) : "-"; break;
		case C_DROPS: v = per_s(t, f->p_drops, b, sizeof(b)); break;
		case C_RETX: v = per_s(t, f->p_rtx, b, sizeof(b)); break;
		case C_CE: v = per_s(t, f->dir[FT_DIR_RX].p_ce, b, sizeof(b)); break;
		case C_PAUSE: v = f->has_ctr ? per_s(t, f->p_ctr[FT_CLS_PAUSE], b, sizeof(b)) : "-"; break;
		case C_CNP: v = f->has_ctr ? per_s(t, f->p_ctr[FT_CLS_CONGESTION], b, sizeof(b)) : "-"; break;
		case C_PEAKMAX: v = si((double)pkmax * 8.0 / binsec, b, sizeof(b)); break;
		case C_BKLGMAX: v = f->qdisc[0] ? si((double)f->max_backlog, b, sizeof(b)) : "-"; break;
		case C_SPARK:
			sparkline(t, ln, f, spark_w);
			continue;
		default: break;
		}
		if (c == C_BURST && bursts)
			ln_esc(ln, ansi, "\x1b[1m");
		ln_field(ln, v, cols[c].width, cols[c].right);
		if (c == C_BURST && bursts)
			ln_esc(ln, ansi, "\x1b[22m");
	}
}

static void iface_header(struct line *ln, const bool on[C_N], int spark_w)
{
	for (int c = 0; c < C_N; c++)
		if (on[c])
			ln_field(ln, cols[c].title, c == C_SPARK ? spark_w : cols[c].width, cols[c].right);
}

/* ---- the other sections ---- */

static const char *proc_comm(const struct live_proc *p, char *buf, size_t len)
{
	char path[64];
	FILE *f;

	if (p->comm[0])
		return p->comm;
	snprintf(path, sizeof(path), "/proc/%u/comm", p->pid);
	f = fopen(path, "r");
	buf[0] = '\0';
	if (f) {
		if (fgets(buf, (int)len, f))
			buf[strcspn(buf, "\n")] = '\0';
		fclose(f);
	}
	return buf[0] ? buf : "?";
}

static const char *ns_name(const struct live *l, uint32_t netns, char *buf, size_t len)
{
	const char *n = live__netns_name(l, netns);

	if (n[0])
		return n;
	snprintf(buf, len, "%u", netns);
	return buf;
}

static int cmp_proc(const void *a, const void *b)
{
	const struct live_proc *x = &sort_top->l->procs[*(const uint32_t *)a];
	const struct live_proc *y = &sort_top->l->procs[*(const uint32_t *)b];

	if ((x->rank < 0) != (y->rank < 0))
		return x->rank < 0 ? 1 : -1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/* Processes that made traced calls and are still around (or were in the last period). */
static size_t select_procs(const struct top *t, uint32_t *idx)
{
	size_t n = 0;

	for (size_t i = 0; i < t->l->nprocs; i++) {
		const struct live_proc *p = &t->l->procs[i];

		if (p->calls && live__proc_active(t->l, p))
			idx[n++] = (uint32_t)i;
	}
	sort_top = t;
	if (n > 1)
		qsort(idx, n, sizeof(*idx), cmp_proc);
	return n;
}

static void procs_section(const struct top *t, struct frame *fr, int width, int max_rows)
{
	uint32_t idx[LIVE_MAX_PROCS];
	size_t n = select_procs(t, idx);
	struct line ln;
	char b[6][32];

	if (!n)
		return;
	ln_init(&ln, width);
	fr_add(fr, &ln);
	ln_init(&ln, width);
	ln_esc(&ln, fr->ansi, "\x1b[1m");
	ln_printf(&ln, "%-8s %5s %-14s %-12s %-14s %7s %8s %8s %8s %6s %6s", "PID", "RANK", "NETNS", "COMM",
		  "LAST", "COLL/s", "LASTDUR", "SIZE", "BUSBW", "LATE", "STEP");
	fr_add(fr, &ln);
	for (size_t i = 0; i < n; i++) {
		const struct live_proc *p = &t->l->procs[idx[i]];
		char comm[32], rank[16], ns[16];

		if (max_rows > 0 && (int)i >= max_rows) {
			ln_init(&ln, width);
			ln_printf(&ln, "  ... %zu more processes", n - i);
			fr_add(fr, &ln);
			break;
		}
		snprintf(rank, sizeof(rank), p->rank >= 0 ? "%d" : "-", p->rank);
		ln_init(&ln, width);
		ln_printf(&ln, "%-8u %5s %-14.14s %-12.12s %-14.14s %7s %8s %8s %8s %6s %6s", p->pid, rank,
			  ns_name(t->l, p->netns, ns, sizeof(ns)), proc_comm(p, comm, sizeof(comm)),
			  p->last_op ? corr__op_name(p->last_op) : "-",
			  per_s(t, p->p_colls, b[0], sizeof(b[0])), dur(p->last_dur_ns, b[1], sizeof(b[1])),
			  p->last_size ? si((double)p->last_size, b[2], sizeof(b[2])) : "-",
			  si(p->last_busbw_bps, b[3], sizeof(b[3])),
			  per_s(t, p->p_late, b[4], sizeof(b[4])),
			  p->step ? (snprintf(b[5], sizeof(b[5]), "%llu", (unsigned long long)p->step), b[5]) : "-");
		fr_add(fr, &ln);
	}
	ln_init(&ln, width);
	if (t->l->slowest != LIVE_NONE) {
		const struct live_proc *p = &t->l->procs[t->l->slowest];
		char comm[32], ns[16];

		ln_printf(&ln, "slowest rank: %d (pid %u %s on %s) entered last in %llu of %llu collectives, "
			  "the others waited %s", p->rank, p->pid, proc_comm(p, comm, sizeof(comm)),
			  ns_name(t->l, p->netns, ns, sizeof(ns)), (unsigned long long)p->p_late,
			  (unsigned long long)p->p_colls, dur(p->p_late_ns, b[0], sizeof(b[0])));
	} else {
		ln_printf(&ln, "slowest rank: none in the last period");
	}
	fr_add(fr, &ln);
}

static int cmp_drop(const void *a, const void *b)
{
	const struct live_drop *x = &sort_top->l->drops[*(const uint32_t *)a];
	const struct live_drop *y = &sort_top->l->drops[*(const uint32_t *)b];

	if (x->p != y->p)
		return x->p > y->p ? -1 : 1;
	return x->total > y->total ? -1 : x->total < y->total;
}

static const char *reason_name(const struct live *l, uint32_t reason, char *buf, size_t len)
{
	const char *n = reason == LIVE_NONE ? "other" : live__reason_name(l, reason);

	if (n)
		return n;
	snprintf(buf, len, "reason %u", reason);
	return buf;
}

/* The drop reasons of the last period, most first, on one line (or a table when not ANSI). */
static void drops_section(const struct top *t, struct frame *fr, int width)
{
	uint32_t idx[LIVE_MAX_DROPS];
	size_t n = 0;
	struct line ln;
	char b[32], rb[24];

	for (size_t i = 0; i < t->l->ndrops; i++)
		if (t->l->drops[i].p || !fr->ansi)
			idx[n++] = (uint32_t)i;
	if (!n)
		return;
	sort_top = t;
	if (n > 1)
		qsort(idx, n, sizeof(*idx), cmp_drop);
	ln_init(&ln, width);
	if (fr->ansi) {
		ln_printf(&ln, "drops/s:");
		for (size_t i = 0; i < n && i < 6; i++) {
			const struct live_drop *d = &t->l->drops[idx[i]];

			ln_printf(&ln, " %s %s (%s)", reason_name(t->l, d->reason, rb, sizeof(rb)),
				  per_s(t, d->p, b, sizeof(b)),
				  d->iface != LIVE_NONE ? t->l->ifaces[d->iface].label : "no device");
		}
		fr_add(fr, &ln);
		return;
	}
	fr_add(fr, &ln);
	ln_init(&ln, width);
	ln_printf(&ln, "%-28s %-26s %8s %10s", "DROP REASON", "INTERFACE", "/s", "TOTAL");
	fr_add(fr, &ln);
	for (size_t i = 0; i < n; i++) {
		const struct live_drop *d = &t->l->drops[idx[i]];

		ln_init(&ln, width);
		ln_printf(&ln, "%-28s %-26s %8s %10llu", reason_name(t->l, d->reason, rb, sizeof(rb)),
			  d->iface != LIVE_NONE ? t->l->ifaces[d->iface].label : "-",
			  per_s(t, d->p, b, sizeof(b)), (unsigned long long)d->total);
		fr_add(fr, &ln);
	}
}

static void rdma_section(const struct top *t, struct frame *fr, int width)
{
	struct line ln;
	char b[5][32];

	if (!t->l->nports)
		return;
	ln_init(&ln, width);
	fr_add(fr, &ln);
	ln_init(&ln, width);
	ln_printf(&ln, "%-16s %-10s %8s %8s %8s %9s %9s", "RDMA PORT", "NETDEV", "CNP/s", "PAUSE/s",
		  "RETX/s", "DISCARD/s", "DATA B/s");
	fr_add(fr, &ln);
	for (size_t i = 0; i < t->l->nports; i++) {
		const struct live_port *p = &t->l->ports[i];
		char name[48];

		snprintf(name, sizeof(name), "%s/%u", p->dev, p->port_num);
		ln_init(&ln, width);
		ln_printf(&ln, "%-16s %-10s %8s %8s %8s %9s %9s", name, p->netdev[0] ? p->netdev : "-",
			  per_s(t, p->p_ctr[FT_CLS_CONGESTION], b[0], sizeof(b[0])),
			  per_s(t, p->p_ctr[FT_CLS_PAUSE], b[1], sizeof(b[1])),
			  per_s(t, p->p_ctr[FT_CLS_RETRANS], b[2], sizeof(b[2])),
			  per_s(t, p->p_ctr[FT_CLS_DISCARD], b[3], sizeof(b[3])),
			  per_s(t, p->p_ctr[FT_CLS_DATA], b[4], sizeof(b[4])));
		fr_add(fr, &ln);
	}
}

static void title_lines(const struct top *t, struct frame *fr, int width)
{
	const struct live *l = t->l;
	struct line ln;
	char b[6][32];
	uint64_t bursts = 0, drops = 0, rtx = l->p_rtx_unrouted, ce = 0, colls = 0;
	size_t busy = 0;
	uint64_t up = l->period_start_ns - l->start_ns, skipped = 0, p_skipped = 0;

	for (size_t i = 0; i < l->nifaces; i++) {
		const struct live_iface *f = &l->ifaces[i];

		bursts += f->dir[0].p_bursts + f->dir[1].p_bursts;
		rtx += f->p_rtx;
		ce += f->dir[FT_DIR_RX].p_ce;
		busy += f->dir[0].p_bytes || f->dir[1].p_bytes;
	}
	drops = l->p_drops;
	for (int i = 0; i < FT_PROBE_MAX; i++) {
		skipped += l->skipped[i];
		p_skipped += l->p_skipped[i];
	}
	for (size_t i = 0; i < l->nprocs; i++)
		colls += l->procs[i].p_colls;
	ln_init(&ln, width);
	ln_esc(&ln, fr->ansi, "\x1b[7m");
	ln_printf(&ln, "fabtrace top  %s  up %llus  refresh %s  bin %s  sort %s", session__hostname(t->s),
		  (unsigned long long)(up / 1000000000ull), dur(t->refresh_ns, b[0], sizeof(b[0])),
		  dur(l->opts.bin_ns, b[1], sizeof(b[1])), sort_names[t->sort]);
	if (t->filter[0])
		ln_printf(&ln, "  filter '%s'", t->filter);
	if (t->ms)
		ln_printf(&ln, "  metrics %s", metrics_server__address(t->ms));
	if (t->o.out_path)
		ln_printf(&ln, "  recording %s", t->o.out_path);
	if (fr->ansi) /* the bar across the whole width */
		while (ln.col < width)
			ln_put(&ln, " ");
	fr_add(fr, &ln);
	ln_init(&ln, width);
	ln_printf(&ln, "interfaces %zu (%zu busy)  bursts %s/s  drops %s/s  retransmits %s/s  CE %s/s  "
		  "collectives %s/s  ", l->nifaces, busy, per_s(t, bursts, b[0], sizeof(b[0])),
		  per_s(t, drops, b[1], sizeof(b[1])), per_s(t, rtx, b[2], sizeof(b[2])),
		  per_s(t, ce, b[3], sizeof(b[3])), per_s(t, colls, b[4], sizeof(b[4])));
	/* lost events: always there, loud when not zero */
	if (l->lost_total)
		ln_esc(&ln, fr->ansi, "\x1b[1;31m");
	ln_printf(&ln, "lost %llu (+%llu)", (unsigned long long)l->lost_total,
		  (unsigned long long)l->p_lost);
	if (l->lost_total)
		ln_esc(&ln, fr->ansi, "\x1b[0m");
	if (skipped) { /* the kernel did not run a probe: data missing without a lost count */
		ln_esc(&ln, fr->ansi, "\x1b[1;31m");
		ln_printf(&ln, "  skipped by the kernel %llu (+%llu)", (unsigned long long)skipped,
			  (unsigned long long)p_skipped);
		ln_esc(&ln, fr->ansi, "\x1b[0m");
	}
	if (l->overflow_ifaces || l->overflow_drops || l->overflow_counters || l->overflow_procs)
		ln_printf(&ln, "  untracked: %llu ifaces %llu drop series %llu counters %llu procs",
			  (unsigned long long)l->overflow_ifaces, (unsigned long long)l->overflow_drops,
			  (unsigned long long)l->overflow_counters, (unsigned long long)l->overflow_procs);
	fr_add(fr, &ln);
}

static const char *const help_text[] = {
	"fabtrace top - keys",
	"",
	"  q        quit (Ctrl-C too); with --record the capture is closed cleanly",
	"  s        next sort key: rate, peak, bursts, backlog, drops, name",
	"  / or f   filter interfaces by a substring of NAME@NETNS; Enter applies,",
	"           an empty filter clears it, Esc cancels",
	"  r        reset the maxima (PEAKMAX, BKLGMAX)",
	"  h or ?   this help (any key closes it)",
	"",
	"Columns: RX/TX b/s the average of the last period; PEAKBIN the fullest bin",
	"(--bin) as bits/s, the rate a 1 s average hides; UTIL% the busier direction",
	"against the link speed or tbf/htb rate; BURST/s runs of bins at >= 50 % of",
	"capacity; BACKLOG/SOJOURN the largest qdisc queue and wait; DROP/s kfree_skb",
	"drops on the device; RETX/s TCP segments retransmitted through it; CE/s ECN",
	"CE marks received; PAUSE/s and CNP/s NIC/RDMA pause and congestion counters;",
	"PEAKMAX/BKLGMAX the maxima since the start or r; HISTORY the rate per refresh.",
	NULL,
};

/* The whole view into FR: WIDTH columns, FR->max_lines rows (UI) or everything. */
static void render(const struct top *t, struct frame *fr, int width)
{
	uint32_t *idx = calloc(t->l->nifaces ? t->l->nifaces : 1, sizeof(*idx));
	bool on[C_N];
	int spark_w, reserve, proc_rows = 0;
	size_t n, shown = 0;
	struct line ln;
	uint32_t pidx[LIVE_MAX_PROCS];
	size_t nprocs;

	if (!idx)
		return;
	title_lines(t, fr, width);
	if (t->help && fr->ansi) {
		for (int i = 0; help_text[i]; i++) {
			ln_init(&ln, width);
			ln_put(&ln, help_text[i]);
			fr_add(fr, &ln);
		}
		free(idx);
		return;
	}
	pick_cols(fr->ansi ? width : 0, fr->ansi, on, &spark_w);
	if (on[C_SPARK] && spark_w < SPARK_MIN)
		on[C_SPARK] = false;
	ln_init(&ln, fr->ansi ? width : 0);
	ln_esc(&ln, fr->ansi, "\x1b[1m");
	iface_header(&ln, on, spark_w);
	fr_add(fr, &ln);
	n = select_ifaces(t, idx);
	nprocs = select_procs(t, pidx);
	/* rows kept below the table: processes (up to 8), drops, the footer */
	reserve = 1;
	if (nprocs) {
		proc_rows = nprocs < 8 ? (int)nprocs : 8;
		reserve += 3 + proc_rows + (nprocs > 8);
	}
	reserve += 1;
	for (size_t i = 0; i < n; i++) {
		const struct live_iface *f = &t->l->ifaces[idx[i]];

		if (fr->ansi && fr_room(fr) - reserve <= 1 && i + 1 < n) {
			ln_init(&ln, width);
			ln_printf(&ln, "... %zu more interfaces (s sorts, / filters)", n - i);
			fr_add(fr, &ln);
			break;
		}
		ln_init(&ln, fr->ansi ? width : 0);
		iface_row(t, &ln, f, on, spark_w, fr->ansi);
		fr_add(fr, &ln);
		shown++;
	}
	if (!n) {
		ln_init(&ln, width);
		ln_printf(&ln, t->l->nifaces ? "(no interface matches the filter '%s')" :
			  "(no interface seen yet%s)", t->filter);
		fr_add(fr, &ln);
	}
	(void)shown;
	drops_section(t, fr, fr->ansi ? width : 0);
	procs_section(t, fr, fr->ansi ? width : 0, fr->ansi ? proc_rows : 0);
	if (!fr->ansi)
		rdma_section(t, fr, 0);
	free(idx);
}

static void draw(struct top *t)
{
	struct frame fr = { .max_lines = t->rows, .ansi = true };
	struct line ln;
	size_t off = 0;

	fr.max_lines = t->rows - 1; /* the last row is the footer */
	render(t, &fr, t->cols);
	fr.max_lines = t->rows;
	while (fr.lines < t->rows - 1) { /* clear what an earlier, longer frame left */
		ln_init(&ln, t->cols);
		fr_add(&fr, &ln);
	}
	ln_init(&ln, t->cols - 1); /* never the last cell: some terminals scroll */
	if (t->editing) {
		ln_printf(&ln, "filter: %s", t->edit);
		ln_esc(&ln, true, "\x1b[7m \x1b[27m");
		ln_printf(&ln, "   (Enter applies, empty clears, Esc cancels)");
	} else {
		ln_esc(&ln, true, "\x1b[7m");
		ln_printf(&ln, "q quit  s sort (%s)  / filter  r reset maxima  h help", sort_names[t->sort]);
		ln_esc(&ln, true, "\x1b[27m");
	}
	fr_add(&fr, &ln);
	while (off < fr.len) {
		ssize_t w = write(STDOUT_FILENO, fr.buf + off, fr.len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	free(fr.buf);
}

/* ---- snapshots for scripts ---- */

static void print_text(struct top *t)
{
	struct frame fr = { .max_lines = 0, .ansi = false };

	render(t, &fr, 0);
	if (fr.buf && (fwrite(fr.buf, 1, fr.len, stdout) != fr.len || fflush(stdout)))
		t->out_failed = true;
	free(fr.buf);
}

static void json_num(struct json *j, const char *k, double v, int dec)
{
	json_kv_double(j, k, v, dec); /* NaN -> null */
}

static void json_dir(struct json *j, const struct top *t, const struct live_dir *d, const char *key)
{
	double secs = live__period_s(t->l);

	json_key(j, key);
	json_object_begin(j);
	json_kv_u64(j, "bytes", d->p_bytes);
	json_kv_u64(j, "packets", d->p_pkts);
	json_num(j, "rate_bps", d->rate_bps, 0);
	json_kv_u64(j, "peak_bin_bytes", d->p_peak_bin);
	json_num(j, "peak_bps", d->peak_bps, 0);
	json_kv_u64(j, "peak_bin_start_ns", d->p_peak_start_ns);
	json_num(j, "capacity_bps", d->capacity_bps > 0 ? d->capacity_bps : NAN, 0);
	json_num(j, "util", d->util, 4);
	json_num(j, "peak_util", d->peak_util, 4);
	json_kv_u64(j, "bursts", d->p_bursts);
	json_num(j, "bursts_per_s", (double)d->p_bursts / secs, 2);
	json_kv_u64(j, "ce_packets", d->p_ce);
	json_kv_u64(j, "total_bytes", d->bytes);
	json_kv_u64(j, "total_packets", d->pkts);
	json_kv_u64(j, "total_bursts", d->bursts);
	json_kv_u64(j, "max_peak_bin_bytes", d->max_peak_bin);
	json_object_end(j);
}

static void json_iface(struct json *j, const struct top *t, const struct live_iface *f)
{
	static const char *const cls[FT_CLS_MAX] = { "other", "data", "congestion", "retrans",
						     "discard", "link_err", "pause", "buffer" };
	double hist[LIVE_HISTORY];

	json_object_begin(j);
	json_kv_string(j, "interface", f->name[0] ? f->name : "");
	json_kv_string(j, "netns", f->netns_name);
	json_kv_u64(j, "netns_inode", f->netns);
	json_kv_u64(j, "ifindex", f->ifindex);
	json_kv_string(j, "label", f->label);
	json_kv_string(j, "kind", f->kind);
	json_kv_bool(j, "traced", f->traced);
	json_kv_u64(j, "speed_mbps", f->speed_mbps);
	json_kv_u64(j, "tx_rate_limit_bps", (uint64_t)f->tx_rate_kbps * 1000);
	json_dir(j, t, &f->dir[FT_DIR_RX], "rx");
	json_dir(j, t, &f->dir[FT_DIR_TX], "tx");
	json_key(j, "qdisc");
	if (f->qdisc[0]) {
		json_object_begin(j);
		json_kv_string(j, "kind", f->qdisc);
		json_kv_u64(j, "max_backlog_bytes", f->p_backlog);
		json_kv_u64(j, "max_qlen_packets", f->p_qlen);
		json_kv_u64(j, "max_sojourn_ns", f->p_sojourn);
		json_kv_u64(j, "max_backlog_bytes_since_reset", f->max_backlog);
		json_kv_u64(j, "max_sojourn_ns_since_reset", f->max_sojourn);
		json_object_end(j);
	} else {
		json_null(j);
	}
	json_kv_u64(j, "drops", f->p_drops);
	json_kv_u64(j, "total_drops", f->drops);
	json_kv_u64(j, "retransmits", f->p_rtx);
	json_kv_u64(j, "total_retransmits", f->rtx);
	json_key(j, "counters");
	if (f->has_ctr) {
		json_object_begin(j);
		for (int c = FT_CLS_DATA; c < FT_CLS_MAX; c++) {
			json_key(j, cls[c]);
			json_object_begin(j);
			json_kv_u64(j, "period", f->p_ctr[c]);
			json_kv_u64(j, "total", f->ctr[c]);
			json_object_end(j);
		}
		json_object_end(j);
	} else {
		json_null(j);
	}
	live__history(t->l, &f->dir[0], hist, LIVE_HISTORY);
	json_key(j, "history_rx_bps");
	json_array_begin(j);
	for (int i = 0; i < LIVE_HISTORY; i++)
		json_double(j, hist[i], 0);
	json_array_end(j);
	live__history(t->l, &f->dir[1], hist, LIVE_HISTORY);
	json_key(j, "history_tx_bps");
	json_array_begin(j);
	for (int i = 0; i < LIVE_HISTORY; i++)
		json_double(j, hist[i], 0);
	json_array_end(j);
	json_object_end(j);
}

static void json_proc(struct json *j, const struct top *t, const struct live_proc *p)
{
	char comm[32], ns[16];

	json_object_begin(j);
	json_kv_u64(j, "pid", p->pid);
	json_kv_string(j, "comm", proc_comm(p, comm, sizeof(comm)));
	json_kv_string(j, "netns", ns_name(t->l, p->netns, ns, sizeof(ns)));
	json_key(j, "rank");
	if (p->rank >= 0)
		json_i64(j, p->rank);
	else
		json_null(j);
	json_key(j, "size");
	if (p->size > 0)
		json_i64(j, p->size);
	else
		json_null(j);
	json_kv_string(j, "last_op", p->last_op ? corr__op_name(p->last_op) : "");
	json_kv_u64(j, "last_duration_ns", p->last_dur_ns);
	json_kv_u64(j, "last_size_bytes", p->last_size);
	json_num(j, "last_busbw_bps", p->last_busbw_bps, 0);
	json_kv_u64(j, "collectives", p->p_colls);
	json_num(j, "collectives_per_s", (double)p->p_colls / live__period_s(t->l), 2);
	json_kv_u64(j, "collective_ns", p->p_coll_ns);
	json_kv_u64(j, "late", p->p_late);
	json_kv_u64(j, "late_ns", p->p_late_ns);
	json_kv_u64(j, "total_collectives", p->colls);
	json_kv_u64(j, "total_late", p->late);
	json_kv_u64(j, "step", p->step);
	json_kv_bool(j, "exited", p->exited);
	json_object_end(j);
}

static void print_json(struct top *t)
{
	static const char *const src[FT_SRC_MAX] = { "net", "tcp", "user", "phase" };
	const struct live *l = t->l;
	uint32_t *idx = calloc(l->nifaces ? l->nifaces : 1, sizeof(*idx));
	uint32_t pidx[LIVE_MAX_PROCS];
	size_t n, np;
	struct json j;
	char rb[24];

	if (!idx) {
		t->out_failed = true;
		return;
	}
	n = select_ifaces(t, idx);
	np = select_procs(t, pidx);
	json_init(&j, stdout, false);
	json_object_begin(&j);
	json_kv_string(&j, "host", session__hostname(t->s));
	json_kv_u64(&j, "ts_ns", l->period_start_ns);
	json_kv_u64(&j, "period_ns", l->last_period_ns);
	json_kv_u64(&j, "period", l->periods);
	json_kv_u64(&j, "uptime_ns", l->period_start_ns - l->start_ns);
	json_kv_u64(&j, "bin_ns", l->opts.bin_ns);
	json_kv_double(&j, "burst_threshold", l->opts.burst_threshold, 3);
	json_key(&j, "lost");
	json_object_begin(&j);
	json_kv_u64(&j, "total", l->lost_total);
	json_kv_u64(&j, "period", l->p_lost);
	for (int s = 0; s < FT_SRC_MAX; s++)
		json_kv_u64(&j, src[s], l->lost_by_source[s]);
	json_object_end(&j);
	json_key(&j, "skipped");    /* probe runs the kernel skipped: null where not counted */
	json_object_begin(&j);
	for (int i = 0; i < FT_PROBE_MAX; i++) {
		json_key(&j, live__probe_name((unsigned)i));
		if (!l->skipped_known[i]) {
			json_null(&j);
			continue;
		}
		json_object_begin(&j);
		json_kv_u64(&j, "total", l->skipped[i]);
		json_kv_u64(&j, "period", l->p_skipped[i]);
		json_object_end(&j);
	}
	json_object_end(&j);
	json_key(&j, "untracked");
	json_object_begin(&j);
	json_kv_u64(&j, "interfaces", l->overflow_ifaces);
	json_kv_u64(&j, "drop_series", l->overflow_drops);
	json_kv_u64(&j, "counters", l->overflow_counters);
	json_kv_u64(&j, "processes", l->overflow_procs);
	json_object_end(&j);
	json_key(&j, "interfaces");
	json_array_begin(&j);
	for (size_t i = 0; i < n; i++)
		json_iface(&j, t, &l->ifaces[idx[i]]);
	json_array_end(&j);
	json_key(&j, "drops");
	json_array_begin(&j);
	for (size_t i = 0; i < l->ndrops; i++) {
		const struct live_drop *d = &l->drops[i];

		json_object_begin(&j);
		json_kv_string(&j, "reason", reason_name(l, d->reason, rb, sizeof(rb)));
		json_kv_string(&j, "interface", d->iface != LIVE_NONE ? l->ifaces[d->iface].label : "");
		json_kv_u64(&j, "period", d->p);
		json_kv_u64(&j, "total", d->total);
		json_object_end(&j);
	}
	json_array_end(&j);
	json_kv_u64(&j, "retransmits_unrouted", l->p_rtx_unrouted);
	json_key(&j, "rdma_ports");
	json_array_begin(&j);
	for (size_t i = 0; i < l->nports; i++) {
		const struct live_port *p = &l->ports[i];

		json_object_begin(&j);
		json_kv_string(&j, "device", p->dev);
		json_kv_u64(&j, "port", p->port_num);
		json_kv_string(&j, "netdev", p->netdev);
		json_kv_u64(&j, "congestion", p->p_ctr[FT_CLS_CONGESTION]);
		json_kv_u64(&j, "pause", p->p_ctr[FT_CLS_PAUSE]);
		json_kv_u64(&j, "retrans", p->p_ctr[FT_CLS_RETRANS]);
		json_kv_u64(&j, "discard", p->p_ctr[FT_CLS_DISCARD]);
		json_kv_u64(&j, "data_bytes", p->p_ctr[FT_CLS_DATA]);
		json_object_end(&j);
	}
	json_array_end(&j);
	json_key(&j, "counters");
	json_array_begin(&j);
	for (size_t i = 0; i < l->ncounters; i++) {
		const struct live_counter *c = &l->counters[i];

		if (!c->total || c->cls == FT_CLS_OTHER)
			continue;
		json_object_begin(&j);
		json_kv_string(&j, "group", l->groups[c->group].label);
		json_kv_string(&j, "counter", c->name);
		json_kv_string(&j, "class", ctr__class_name(c->cls));
		json_kv_u64(&j, "period", c->p);
		json_kv_u64(&j, "total", c->total);
		json_kv_u64(&j, "wraps", c->wraps);
		json_object_end(&j);
	}
	json_array_end(&j);
	json_key(&j, "processes");
	json_array_begin(&j);
	for (size_t i = 0; i < np; i++)
		json_proc(&j, t, &l->procs[pidx[i]]);
	json_array_end(&j);
	json_key(&j, "slowest_rank");
	if (l->slowest != LIVE_NONE)
		json_proc(&j, t, &l->procs[l->slowest]);
	else
		json_null(&j);
	json_object_end(&j);
	json_finish(&j);
	if (fflush(stdout) || ferror(stdout))
		t->out_failed = true;
	free(idx);
}

/* ---- events ---- */

/* Runs the kernel skipped (hits - runs of each hook): data lost without a lost count. */
static void refresh_skipped(struct top *t)
{
	uint64_t skipped[FT_PROBE_MAX];
	bool known[FT_PROBE_MAX];

	if (session__skipped(t->s, skipped, known) == 0)
		live__set_skipped(t->l, skipped, known);
}

static void on_refresh(void *ctx, int fd, uint32_t events)
{
	struct top *t = ctx;
	uint64_t exp;

	(void)events;
	if (read(fd, &exp, sizeof(exp)) <= 0)
		return;
	session__drain(t->s);   /* everything up to now belongs to this period */
	refresh_skipped(t);
	live__tick(t->l, mono_ns());
	if (t->ui) {
		draw(t);
		return;
	}
	if (t->headless)
		return;
	if (t->json)
		print_json(t);
	else
		print_text(t);
	t->printed++;
	if (t->out_failed || (t->count && t->printed >= t->count))
		session__stop(t->s, FT_STOP_DURATION);
}

static void on_tick(void *ctx, uint64_t now, uint64_t ticks)
{
	struct top *t = ctx;

	(void)ticks;
	metrics_server__tick(t->ms, now);
}

static void on_key(struct top *t, const char *k, size_t n)
{
	if (t->help) { /* any key closes the help */
		t->help = false;
		return;
	}
	if (t->editing) {
		for (size_t i = 0; i < n; i++) {
			char c = k[i];
			size_t len = strlen(t->edit);

			if (c == '\r' || c == '\n') {
				str_copy(t->filter, t->edit, sizeof(t->filter));
				t->editing = false;
				return;
			}
			if (c == 0x1b) { /* Esc (or an escape sequence: ignored) */
				t->editing = false;
				return;
			}
			if ((c == 0x7f || c == 0x08) && len)
				t->edit[len - 1] = '\0';
			else if ((unsigned char)c >= 0x20 && c != 0x7f && len + 1 < sizeof(t->edit)) {
				t->edit[len] = c;
				t->edit[len + 1] = '\0';
			}
		}
		return;
	}
	if (n > 1 && k[0] == 0x1b) /* arrow keys and the like */
		return;
	switch (k[0]) {
	case 'q':
	case 'Q':
		session__stop(t->s, FT_STOP_SIGNAL);
		break;
	case 's':
		t->sort = (t->sort + 1) % SORT_N;
		break;
	case 'S':
		t->sort = (t->sort + SORT_N - 1) % SORT_N;
		break;
	case '/':
	case 'f':
		t->editing = true;
		str_copy(t->edit, t->filter, sizeof(t->edit));
		break;
	case 'r':
		live__reset_peaks(t->l);
		break;
	case 'h':
	case '?':
		t->help = true;
		break;
	case 0x0c: /* Ctrl-L: redraw */
		break;
	default:
		return;
	}
}

static void on_stdin(void *ctx, int fd, uint32_t events)
{
	struct top *t = ctx;
	char k[64];
	ssize_t n;

	(void)events;
	n = read(fd, k, sizeof(k));
	if (n <= 0) { /* the terminal went away */
		session__stop(t->s, FT_STOP_SIGNAL);
		return;
	}
	on_key(t, k, (size_t)n);
	if (t->ui)
		draw(t);
}

static void on_winch(void *ctx, int fd, uint32_t events)
{
	struct top *t = ctx;
	struct signalfd_siginfo info;

	(void)events;
	while (read(fd, &info, sizeof(info)) == sizeof(info))
		;
	ui_size(t);
	draw(t);
}

/* ---- setup ---- */

static int parse_args(struct top *t, int argc, char **argv)
{
	enum { OPT_ONCE = SOPT_END, OPT_JSON, OPT_HEADLESS, OPT_RECORD, OPT_LISTEN, OPT_REMOTE,
	       OPT_SORT, OPT_FILTER };
	static const struct option opts[] = {
		SESSION_LONG_OPTS,
		{ "refresh", required_argument, NULL, 'r' },
		{ "once", no_argument, NULL, OPT_ONCE },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "count", required_argument, NULL, 'n' },
		{ "headless", no_argument, NULL, OPT_HEADLESS },
		{ "record", required_argument, NULL, OPT_RECORD },
		{ "listen", required_argument, NULL, OPT_LISTEN },
		{ "allow-remote", no_argument, NULL, OPT_REMOTE },
		{ "sort", required_argument, NULL, OPT_SORT },
		{ "filter", required_argument, NULL, OPT_FILTER },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	bool count_set = false;
	int c;

	/* --json anywhere makes even the option errors JSON */
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (!strcmp(argv[i], "--json"))
			util_set_json(true);
	opterr = 0;
	char ob[64]; /* the rejected option, fmt_bad_opt() */
	while ((c = getopt_long(argc, argv, ":" SESSION_SHORT_OPTS "r:n:h", opts, NULL)) != -1) {
		int h = session_opts__parse(&t->o, c, optarg);

		if (h < 0)
			return -1;
		if (h > 0)
			continue;
		switch (c) {
		case 'r':
			if (parse_duration(optarg, 1000000000ull, &t->refresh_ns) ||
			    t->refresh_ns < 100000000ull || t->refresh_ns > 3600000000000ull) {
				ft_err("top: bad refresh '%s'; use 100ms..1h, e.g. -r 1s", optarg);
				return -1;
			}
			break;
		case 'n': {
			char *end;
			long v;

			errno = 0;
			v = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || v < 0 || v > 1000000000L) {
				ft_err("top: bad count '%s'; use a number of snapshots, e.g. -n 10 (0: until stopped)",
				       optarg);
				return -1;
			}
			t->count = v;
			count_set = true;
			break;
		}
		case OPT_ONCE:
			t->once = true;
			break;
		case OPT_JSON:
			t->json = true;
			t->o.json = true;
			util_set_json(true);
			break;
		case OPT_HEADLESS:
			t->headless = true;
			break;
		case OPT_RECORD:
			t->o.out_path = optarg;
			break;
		case OPT_LISTEN:
			t->listen = optarg;
			break;
		case OPT_REMOTE:
			t->allow_remote = true;
			break;
		case OPT_SORT:
			t->sort = -1;
			for (int i = 0; i < SORT_N; i++)
				if (!strcmp(optarg, sort_names[i]))
					t->sort = i;
			if (t->sort < 0) {
				ft_err("top: bad --sort '%s'; use rate, peak, bursts, backlog, drops or name", optarg);
				return -1;
			}
			break;
		case OPT_FILTER:
			str_copy(t->filter, optarg, sizeof(t->filter));
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			ft_err("top: bad usage: %s '%s'; see 'fabtrace top --help'",
			       c == ':' ? "missing value for" : "unknown option",
			       fmt_bad_opt(optopt, argv[optind - 1], ob, sizeof(ob)));
			return -1;
		}
	}
	if (optind < argc) {
		ft_err("top: unexpected argument '%s'; top does not run commands: use 'fabtrace record "
		       "-- COMMAND', or -p PID to follow a running one", argv[optind]);
		return -1;
	}
	if (t->headless && (t->once || t->json)) {
		ft_err("top: --headless prints nothing; drop --%s", t->once ? "once" : "json");
		return -1;
	}
	if (count_set && !t->once && !t->json) {
		ft_err("top: -n counts --json or --once snapshots; add --json or --once");
		return -1;
	}
	if ((t->once || t->json) && !count_set)
		t->count = 1;
	if (t->allow_remote && !t->listen) {
		ft_err("top: --allow-remote goes with --listen ADDR:PORT");
		return -1;
	}
	return session_opts__check(&t->o);
}

static int start_timer(struct top *t)
{
	struct itimerspec its = {
		.it_interval = { (time_t)(t->refresh_ns / 1000000000ull), (long)(t->refresh_ns % 1000000000ull) },
		.it_value = { (time_t)(t->refresh_ns / 1000000000ull), (long)(t->refresh_ns % 1000000000ull) },
	};

	t->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (t->tfd < 0 || timerfd_settime(t->tfd, 0, &its, NULL) ||
	    session__watch(t->s, t->tfd, EPOLLIN, on_refresh, t) < 0)
		return -1;
	return 0;
}

static int start_ui(struct top *t)
{
	sigset_t mask;

	sigemptyset(&mask);
	sigaddset(&mask, SIGWINCH);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	t->wfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (t->wfd < 0 || session__watch(t->s, t->wfd, EPOLLIN, on_winch, t) < 0 ||
	    session__watch(t->s, STDIN_FILENO, EPOLLIN, on_stdin, t) < 0) {
		ft_err("top: cannot watch the terminal: %s", strerror(errno));
		return -1;
	}
	if (ui_enter()) {
		ft_err("top: cannot set up the terminal: %s; use --once or --json", strerror(errno));
		return -1;
	}
	ui_size(t);
	draw(t);
	return 0;
}

/* The sink: every record of the session, after the capture (if any). */
static int to_live(void *ctx, const struct ft_rec_hdr *rec)
{
	struct top *t = ctx;

	live__add(t->l, rec); /* a malformed record is counted there and skipped */
	return 0;
}

int cmd_top(int argc, char **argv)
{
	struct top *t = calloc(1, sizeof(*t));
	struct live_opts lo;
	struct metrics_info mi;
	char err[256];
	int ret = 1, rc;

	if (!t)
		return 1;
	t->refresh_ns = 1000000000ull;
	t->tfd = t->wfd = -1;
	t->argc = argc;
	t->argv = argv;
	signal(SIGPIPE, SIG_IGN); /* a reader that goes away is an error, not a kill */
	if (session_opts__init(&t->o, "top") || parse_args(t, argc, argv))
		goto out;
	t->ui = !t->once && !t->json && !t->headless;
	if (t->ui && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))) {
		ft_err("top: the live view needs a terminal; use --once or --json for scripts, "
		       "--headless with --listen for an exporter");
		goto out;
	}
	if (t->listen) { /* a bad address fails before any probe is loaded */
		struct sockaddr_storage ss;
		socklen_t len;

		if (metrics__parse_addr(t->listen, t->allow_remote, &ss, &len, err, sizeof(err))) {
			ft_err("top: %s", err);
			goto out;
		}
	}
	live_opts__init(&lo, t->o.bin_ns);
	t->l = live__new(&lo, mono_ns());
	if (!t->l) {
		ft_err("top: out of memory");
		goto out;
	}
	t->o.live = true; /* bins as they close: no batching (probes/netprobe.h) */
	if (session__open(&t->s, &t->o, to_live, t))
		goto out;
	rc = session__start(t->s, argc, argv);
	if (rc) {
		if (rc != -1)
			ft_err("top: writing %s failed: %s", t->o.out_path ? t->o.out_path : "the capture",
			       session__write_error(t->s)[0] ? session__write_error(t->s) : strerror(EIO));
		session__finish(t->s);
		goto out;
	}
	mi.hostname = session__hostname(t->s);
	mi.refresh_s = (double)t->refresh_ns / 1e9;
	if (t->listen &&
	    metrics_server__open(&t->ms, t->s, t->listen, t->allow_remote, t->l, &mi, err, sizeof(err))) {
		ft_err("top: %s", err);
		session__finish(t->s);
		goto out;
	}
	if (t->ms && !t->ui)
		fprintf(stderr, "fabtrace: serving metrics on http://%s/metrics\n",
			metrics_server__address(t->ms));
	if (t->headless)
		fprintf(stderr, "fabtrace: top running headless%s; Ctrl-C to stop\n",
			t->o.out_path ? ", recording" : "");
	session__on_tick(t->s, on_tick, t);
	/* the first period starts now: what the rings hold is from the probes' setup */
	session__drain(t->s);
	refresh_skipped(t);
	live__begin_period(t->l, mono_ns());
	if (start_timer(t)) {
		ft_err("top: cannot start the refresh timer: %s", strerror(errno));
		session__finish(t->s);
		goto out;
	}
	if (t->ui && start_ui(t)) {
		session__finish(t->s);
		goto out;
	}
	rc = session__run(t->s);
	ui_restore();
	/* stopped before the first snapshot (-d, a signal): show what there is */
	if (!t->ui && !t->headless && !t->printed && !t->out_failed) {
		session__drain(t->s);
		refresh_skipped(t);
		live__tick(t->l, mono_ns());
		if (t->json)
			print_json(t);
		else
			print_text(t);
	}
	if (session__finish(t->s) || rc) {
		if (rc)
			ft_err("top: the event loop failed: %s", strerror(-rc));
		else if (session__write_error(t->s)[0])
			ft_err("top: %s", session__write_error(t->s));
		else
			ft_err("top: writing %s failed; the capture is valid up to its last complete block",
			       t->o.out_path ? t->o.out_path : "the capture");
		goto out;
	}
	if (t->o.out_path && !t->json)
		fprintf(stderr, "fabtrace: recorded to %s (%llu records, %llu lost events)\n", t->o.out_path,
			(unsigned long long)session__stats(t->s)->records_written,
			(unsigned long long)session__lost_total(t->s));
	ret = t->out_failed ? 1 : 0;
out:
	ui_restore();
	metrics_server__close(t->ms);
	if (t->tfd >= 0)
		close(t->tfd);
	if (t->wfd >= 0)
		close(t->wfd);
	session__close(t->s);
	live__free(t->l);
	session_opts__free(&t->o);
	free(t);
	return ret;
}
