// SPDX-License-Identifier: GPL-2.0-or-later
/* Small helpers shared by every subcommand: errors, formatting, files, clocks. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "lib/util.h"
#include "lib/json.h"

static bool json_mode;

void util_set_json(bool on)
{
	json_mode = on;
}

void util_json_from_args(int argc, char *const *argv, const char *const *names)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		for (const char *const *n = names; *n; n++)
			if (!strcmp(argv[i], *n))
				util_set_json(true);
}

bool util_json(void)
{
	return json_mode;
}

static void vreport(const char *prefix, const char *fmt, va_list ap)
{
	char msg[1024];
	size_t n;

	vsnprintf(msg, sizeof(msg), fmt, ap);
	/* one line: drop trailing newlines, flatten embedded ones */
	n = strlen(msg);
	while (n > 0 && (msg[n - 1] == '\n' || msg[n - 1] == '\r'))
		msg[--n] = '\0';
	for (size_t i = 0; i < n; i++)
		if (msg[i] == '\n' || msg[i] == '\r')
			msg[i] = ' ';

	/* under --json errors are JSON on stdout, unless stdout is what failed
	 * (a full disk, /dev/full): then nobody would see it there */
	if (json_mode && (fflush(stdout) || ferror(stdout)))
		fprintf(stderr, "fabtrace: %s%s\n", prefix, msg);
	else if (json_mode) {
		struct json j;
		char full[1100];

		snprintf(full, sizeof(full), "%s%s", prefix, msg);
		json_init(&j, stdout, false);
		json_object_begin(&j);
		json_kv_string(&j, prefix[0] ? "warning" : "error", full);
		json_object_end(&j);
		json_finish(&j);
		if (fflush(stdout) || ferror(stdout)) /* the error itself could not be written */
			fprintf(stderr, "fabtrace: %s\n", full);
	} else {
		fflush(stdout);
		fprintf(stderr, "fabtrace: %s%s\n", prefix, msg);
	}
}

void ft_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("", fmt, ap);
	va_end(ap);
}

void ft_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (json_mode) {
		char msg[1024];

		/* stdout carries the JSON document: warnings go to stderr */
		vsnprintf(msg, sizeof(msg), fmt, ap);
		fprintf(stderr, "fabtrace: warning: %s\n", msg);
	} else {
		vreport("warning: ", fmt, ap);
	}
	va_end(ap);
}

/* ------------------------------------------------------------------ */
/* formatting: three significant digits, "1.50 ms", "12.0 MB", "150 Mbit/s" */

static const char *fmt3(double v, const char *unit, char *buf, size_t len)
{
	int prec = v < 9.995 ? 2 : v < 99.95 ? 1 : 0;

	snprintf(buf, len, "%.*f %s", prec, v, unit);
	return buf;
}

const char *fmt_ns(uint64_t ns, char *buf, size_t len)
{
	if (!buf || !len)
		return "";
	if (ns < 1000)
		snprintf(buf, len, "%llu ns", (unsigned long long)ns);
	else if (ns < 999500ull)
		fmt3(ns / 1e3, "us", buf, len);
	else if (ns < 999500000ull)
		fmt3(ns / 1e6, "ms", buf, len);
	else if (ns < 100ull * 1000000000ull)
		fmt3(ns / 1e9, "s", buf, len);
	else if (ns < 3600ull * 1000000000ull)
		snprintf(buf, len, "%.1f min", ns / 60e9);
	else
		snprintf(buf, len, "%.2f h", ns / 3600e9);
	return buf;
}

bool list_next(const char **p, const char **item, size_t *len)
{
	const char *s = *p, *e;
	size_t n;

	if (!s || !*s)
		return false;
	e = strchr(s, ',');
	n = e ? (size_t)(e - s) : strlen(s);
	*p = e ? e + 1 : s + n;
	while (n && *s == ' ') {
		s++;
		n--;
	}
	while (n && s[n - 1] == ' ')
		n--;
	*item = s;
	*len = n;
	return true;
}

int grow_array(void **p, size_t *cap, size_t need, size_t isz)
{
	size_t nc;
	void *q;

	if (need <= *cap)
		return 0;
	nc = *cap ? *cap : 16;
	while (nc < need)
		nc *= 2;
	q = realloc(*p, nc * isz);
	if (!q)
		return -ENOMEM;
	memset((char *)q + *cap * isz, 0, (nc - *cap) * isz);
	*p = q;
	*cap = nc;
	return 0;
}

const char *fmt_secs(uint64_t ns, char *buf, size_t len)
{
	snprintf(buf, len, "%llu.%06llu", (unsigned long long)(ns / 1000000000u),
		 (unsigned long long)((ns % 1000000000u) / 1000u));
	return buf;
}

const char *fmt_rel(int64_t ns, char *buf, size_t len)
{
	uint64_t a = ns < 0 ? (uint64_t)(-(ns + 1)) + 1 : (uint64_t)ns;
	char s[32];

	snprintf(buf, len, "%c%s", ns < 0 ? '-' : '+', fmt_secs(a, s, sizeof(s)));
	return buf;
}

/* V in the largest of UNITS (each BASE times the one before) that keeps it under BASE. */
static const char *fmt_scaled(double v, double base, const char *const units[], char *buf, size_t len)
{
	int i = 0;

	if (!buf || !len)
		return "";
	if (!(v == v)) { /* NaN */
		snprintf(buf, len, "? %s", units[0]);
		return buf;
	}
	if (v < 0)
		v = 0;
	if (v < base - 0.5) {
		snprintf(buf, len, "%.0f %s", v, units[0]);
		return buf;
	}
	while (v >= base - 0.5 && units[i + 1]) {
		v /= base;
		i++;
	}
	return fmt3(v, units[i], buf, len);
}

const char *fmt_bytes(double bytes, char *buf, size_t len)
{
	static const char *const u[] = { "B", "kB", "MB", "GB", "TB", "PB", NULL };

	return fmt_scaled(bytes, 1000.0, u, buf, len);
}

const char *fmt_ibytes(double bytes, char *buf, size_t len)
{
	static const char *const u[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", NULL };

	return fmt_scaled(bytes, 1024.0, u, buf, len);
}

const char *fmt_rate_bps(double bits_per_s, char *buf, size_t len)
{
	static const char *const u[] = { "bit/s", "kbit/s", "Mbit/s", "Gbit/s", "Tbit/s", NULL };

	return fmt_scaled(bits_per_s, 1000.0, u, buf, len);
}

/* ------------------------------------------------------------------ */
/* output files, written whole or not at all                           */

bool ft_same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* S as an id: all decimal digits, below (id_t)-1 (which means "none" to chown). */
static bool parse_id(const char *s, unsigned long *out)
{
	unsigned long v;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v >= (unsigned long)(uid_t)-1)
		return false;
	*out = v;
	return true;
}

bool ft_sudo_owner(uid_t *uid, gid_t *gid)
{
	unsigned long u, g;

	*uid = (uid_t)-1;
	*gid = (gid_t)-1;
	if (geteuid() != 0 || !parse_id(getenv("SUDO_UID"), &u))
		return false;
	*uid = (uid_t)u;
	if (parse_id(getenv("SUDO_GID"), &g))
		*gid = (gid_t)g;
	return true;
}

/*
 * Temporaries removed when a stop signal ends the process: an interrupted
 * report or merge left its hidden .NAME.XXXXXX files behind.  Only where the
 * signal would kill us (default disposition); a recorder blocks these
 * signals and keeps what it wrote.
 */
#define TMP_LIVE_MAX 16
static const char *live_tmp[TMP_LIVE_MAX];

static void tmp_on_signal(int sig)
{
	for (int i = 0; i < TMP_LIVE_MAX; i++) {
		const char *p = __atomic_load_n(&live_tmp[i], __ATOMIC_SEQ_CST);

		if (p)
			unlink(p); /* async-signal-safe */
	}
	signal(sig, SIG_DFL);
	raise(sig); /* delivered once we return: the usual death by SIG */
}

void tmpfile_track(const char *path)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	static bool installed;

	if (!__atomic_exchange_n(&installed, true, __ATOMIC_SEQ_CST))
		for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
			struct sigaction old, sa = { .sa_handler = tmp_on_signal };

			sigemptyset(&sa.sa_mask);
			if (!sigaction(sigs[i], NULL, &old) && old.sa_handler == SIG_DFL)
				sigaction(sigs[i], &sa, NULL);
		}
	for (int i = 0; i < TMP_LIVE_MAX; i++) {
		const char *none = NULL;

		if (__atomic_compare_exchange_n(&live_tmp[i], &none, path, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
			return;
	}
}

void tmpfile_untrack(const char *path)
{
	for (int i = 0; i < TMP_LIVE_MAX; i++) {
		const char *p = path;

		__atomic_compare_exchange_n(&live_tmp[i], &p, NULL, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	}
}

int outfile_open(struct outfile *o, const char *path, char *err, size_t errlen)
{
	const char *slash, *base;
	struct stat st;
	uid_t uid;
	gid_t gid;
	size_t dlen;
	int fd;

	memset(o, 0, sizeof(*o));
	if (!path || !path[0]) {
		snprintf(err, errlen, "empty output path");
		return -EINVAL;
	}
	if (!strcmp(path, "-")) {
		o->f = stdout;
		o->path = strdup("-");
		return o->path ? 0 : -ENOMEM;
	}
	if (lstat(path, &st) == 0) {
		if (S_ISLNK(st.st_mode)) {
			snprintf(err, errlen, "%s: is a symbolic link; refusing to write through it; remove it or "
				 "choose another path", path);
			return -ELOOP;
		}
		if (!S_ISREG(st.st_mode)) {
			snprintf(err, errlen, "%s: exists and is not a regular file; choose another path", path);
			return -EEXIST;
		}
	}
	slash = strrchr(path, '/');
	base = slash ? slash + 1 : path;
	dlen = slash ? (size_t)(slash - path) + 1 : 0;
	if (!base[0]) {
		snprintf(err, errlen, "%s: is a directory; give a file name", path);
		return -EISDIR;
	}
	o->path = strdup(path);
	o->tmp = malloc(dlen + strlen(base) + 16);
	if (!o->path || !o->tmp) {
		outfile_abort(o);
		snprintf(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	/* a hidden name in the same directory: rename() is then atomic */
	sprintf(o->tmp, "%.*s.%s.XXXXXX", (int)dlen, path, base);
	fd = mkostemp(o->tmp, O_CLOEXEC);   /* 0600, O_EXCL */
	if (fd < 0) {
		int e = errno;

		free(o->tmp);
		o->tmp = NULL;
		outfile_abort(o);
		snprintf(err, errlen, "%s: cannot create: %s%s", path, strerror(e), create_hint(e, path));
		return -e;
	}
	tmpfile_track(o->tmp);
	if (ft_sudo_owner(&uid, &gid) && fchown(fd, uid, gid) < 0) {
		int e = errno;

		close(fd);
		outfile_abort(o);
		snprintf(err, errlen, "%s: cannot give the file to uid %lu: %s", path, (unsigned long)uid, strerror(e));
		return -e;
	}
	o->f = fdopen(fd, "w");
	if (!o->f) {
		int e = errno;

		close(fd);
		outfile_abort(o);
		snprintf(err, errlen, "%s: cannot open: %s", path, strerror(e));
		return -e;
	}
	return 0;
}

/* Why the last write through a text_safe_stream() or errno_kept_stream() failed: a cookie stream
 * keeps no errno of the stream below it (0: none failed). */
static int safe_errno;

int stream_errno(FILE *f)
{
	struct statvfs v;
	struct stat st;

	if (safe_errno && f == stdout) /* written through a cookie stream, whose write said why */
		return safe_errno;
	/* a file on a full file system (what is left is less than a buffered
	 * write needs); pipes and terminals report no blocks */
	if (f && !fstat(fileno(f), &st) && S_ISREG(st.st_mode) && !fstatvfs(fileno(f), &v) && v.f_blocks > 0 &&
	    (uint64_t)v.f_bavail * v.f_frsize < 65536)
		return ENOSPC;
	/* a pipe whose reader went away (| head -1) polls as an error */
	if (f && !fstat(fileno(f), &st) && S_ISFIFO(st.st_mode)) {
		struct pollfd p = { .fd = fileno(f), .events = POLLOUT };

		if (poll(&p, 1, 0) == 1 && (p.revents & POLLERR))
			return EPIPE;
	}
	return EIO;
}

char *path_dir(const char *path, char *buf, size_t len)
{
	const char *slash = strrchr(path, '/');

	if (slash == path)
		snprintf(buf, len, "/");
	else if (slash)
		snprintf(buf, len, "%.*s", (int)(slash - path), path);
	else
		snprintf(buf, len, ".");
	return buf;
}

const char *create_hint(int e, const char *path)
{
	char dir[4096];
	struct stat st;

	switch (e) {
	case ENOENT: /* a missing directory; or one that exists and makes no files (/proc) */
		return path && !stat(path_dir(path, dir, sizeof(dir)), &st) && S_ISDIR(st.st_mode) ?
			"; its directory takes no new files (choose another)" :
			"; create the directory first (mkdir -p)";
	case EACCES:
	case EPERM:
	case EROFS:
		return "; choose a directory this user can write";
	case ENOSPC:
	case EDQUOT:
		return "; free some space or choose another file system";
	default:
		return "";
	}
}

int outfile_errno(const struct outfile *o)
{
	return stream_errno(o->f);
}

int outfile_commit(struct outfile *o, char *err, size_t errlen)
{
	int e = 0;

	if (!o->f)
		return -EINVAL;
	errno = 0;
	if (!o->tmp) {
		if (fflush(o->f) || ferror(o->f))
			e = errno ? errno : outfile_errno(o);
		o->f = NULL;
		free(o->path);
		o->path = NULL;
		if (e)
			snprintf(err, errlen, "stdout: %s", strerror(e));
		return -e;
	}
	if (fflush(o->f) || ferror(o->f) || fsync(fileno(o->f)))
		e = errno ? errno : outfile_errno(o);
	if (fclose(o->f) && !e)
		e = errno ? errno : EIO;
	o->f = NULL;
	if (!e && rename(o->tmp, o->path))
		e = errno;
	if (e) {
		snprintf(err, errlen, "%s: cannot write: %s", o->path, strerror(e));
		outfile_abort(o);
		return -e;
	}
	tmpfile_untrack(o->tmp);
	free(o->tmp);
	free(o->path);
	o->tmp = o->path = NULL;
	return 0;
}

void outfile_abort(struct outfile *o)
{
	if (o->f && o->tmp)
		fclose(o->f);
	else if (o->f)
		fflush(o->f);
	o->f = NULL;
	if (o->tmp) {
		unlink(o->tmp);
		tmpfile_untrack(o->tmp);
	}
	free(o->tmp);
	free(o->path);
	o->tmp = o->path = NULL;
}

uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void str_copy(char *dst, const char *src, size_t dstlen)
{
	size_t n;

	if (!dst || dstlen == 0)
		return;
	if (!src) {
		dst[0] = '\0';
		return;
	}
	n = strnlen(src, dstlen - 1);
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* Wall-clock ns since the epoch as RFC 3339 UTC with microseconds: "2026-11-24T22:26:41.598355Z" */
void str_appendf(char *buf, size_t len, size_t *k, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*k >= len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *k, len - *k, fmt, ap);
	va_end(ap);
	if (n > 0)
		*k = *k + (size_t)n < len ? *k + (size_t)n : len;
}

const char *fmt_wall(int64_t ns, char *buf, size_t len)
{
	int64_t sec = ns / 1000000000;
	int64_t rem = ns % 1000000000;
	struct tm tm;
	time_t t;
	char d[40];

	if (rem < 0) {
		rem += 1000000000;
		sec--;
	}
	t = (time_t)sec;
	if (!gmtime_r(&t, &tm)) {
		snprintf(buf, len, "?");
		return buf;
	}
	strftime(d, sizeof(d), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, len, "%s.%06lldZ", d, (long long)(rem / 1000));
	return buf;
}

/* /proc/PID/FILE (PID 0: this process) into BUF, NUL-terminated, in one read(): bytes, or -errno. */
static ssize_t proc_file_read(pid_t pid, const char *file, char *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	if (!len)
		return -EINVAL;
	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
	else
		snprintf(path, sizeof(path), "/proc/self/%s", file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	buf[n < 0 ? 0 : n] = '\0';
	return n;
}

ssize_t proc_status_read(pid_t pid, char *buf, size_t len)
{
	return proc_file_read(pid, "status", buf, len);
}

ssize_t proc_stat_read(pid_t pid, char *buf, size_t len)
{
	return proc_file_read(pid, "stat", buf, len);
}

const char *proc_stat_fields(const char *text)
{
	const char *rp = strrchr(text, ')');

	return rp && rp[1] == ' ' && rp[2] ? rp + 2 : NULL;
}

const char *proc_status_field(const char *text, const char *key)
{
	size_t k = strlen(key);
	const char *at = text;

	/* at the start of a line only: "Pid:" must not find "PPid:" or "TracerPid:" */
	while (at && strncmp(at, key, k) != 0) {
		at = strchr(at, '\n');
		if (at)
			at++;
	}
	return at ? at + k : NULL;
}

struct safe_stream {
	FILE *f;
	bool c2;  /* a 0xc2 held back: with 0x80-0x9f it is a C1 control in UTF-8 */
	bool raw; /* errno_kept_stream(): every byte as it is */
};

static int safe_put(struct safe_stream *s, unsigned char c)
{
	if (s->c2) {
		s->c2 = false;
		if (c >= 0x80 && c <= 0x9f)
			return putc('?', s->f);
		if (putc(0xc2, s->f) == EOF)
			return EOF;
	}
	if (c == 0xc2) {
		s->c2 = true;
		return c;
	}
	/* C0 but newline and tab, DEL, and raw C1 (0x9b is CSI to an 8-bit terminal);
	 * 0x80-0x9f inside other UTF-8 sequences are continuation bytes: kept */
	return putc((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f ? '?' : c, s->f);
}

static ssize_t safe_write(void *cookie, const char *buf, size_t len)
{
	struct safe_stream *s = cookie;

	if (s->raw) {
		size_t n = fwrite(buf, 1, len, s->f);

		if (n < len) {
			safe_errno = errno;
			return n ? (ssize_t)n : -1;
		}
		return (ssize_t)len;
	}
	for (size_t i = 0; i < len; i++)
		if (safe_put(cookie, (unsigned char)buf[i]) == EOF) {
			safe_errno = errno;
			return i ? (ssize_t)i : -1;
		}
	return (ssize_t)len;
}

static int safe_close(void *cookie)
{
	struct safe_stream *s = cookie;
	int ret = 0;

	if (s->c2 && putc(0xc2, s->f) == EOF)
		ret = -1;
	if (fflush(s->f))
		ret = -1;
	if (ret && errno)
		safe_errno = errno;
	free(s);
	return ret;
}

static FILE *cookie_stream(FILE *f, bool raw)
{
	cookie_io_functions_t io = { .write = safe_write, .close = safe_close };
	struct safe_stream *s = calloc(1, sizeof(*s));
	FILE *out;

	if (!s)
		return NULL;
	s->f = f;
	s->raw = raw;
	out = fopencookie(s, "w", io);
	if (!out)
		free(s);
	return out;
}

FILE *text_safe_stream(FILE *f)
{
	return cookie_stream(f, false);
}

FILE *errno_kept_stream(FILE *f)
{
	return cookie_stream(f, true);
}
