// SPDX-License-Identifier: GPL-2.0-or-later
/* Which library files traced processes load: loader search, maps, ld.so.cache (see libfind.h). */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "lib/hash.h"
#include "lib/util.h"
#include "probes/elfsyms.h"
#include "probes/libfind.h"

#if defined(__x86_64__) && defined(__ILP32__)
#define MULTIARCH "x86_64-linux-gnux32"
#elif defined(__x86_64__)
#define MULTIARCH "x86_64-linux-gnu"
#elif defined(__aarch64__)
#define MULTIARCH "aarch64-linux-gnu"
#elif defined(__i386__)
#define MULTIARCH "i386-linux-gnu"
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define MULTIARCH "powerpc64le-linux-gnu"
#elif defined(__s390x__)
#define MULTIARCH "s390x-linux-gnu"
#elif defined(__riscv) && __riscv_xlen == 64
#define MULTIARCH "riscv64-linux-gnu"
#elif defined(__arm__) && defined(__ARM_PCS_VFP)
#define MULTIARCH "arm-linux-gnueabihf"
#else
#define MULTIARCH NULL
#endif

#define LD_SO_CACHE "/etc/ld.so.cache"
#define CACHE_MAGIC "glibc-ld.so.cache1.1"
#define CACHE_HDR_SIZE 48   /* magic+version, nlibs, len_strings, flags, pad, ext, unused[3] */
#define CACHE_ENTRY_SIZE 24 /* flags, key, value, osversion, hwcap */
#define MAX_SCRIPT_DEPTH 4

/* What makes two ELF files loadable into one process. */
struct ident {
	unsigned char cls, data;
	uint16_t machine;
};

/* ---- lib_set */

void lib_set__init(struct lib_set *s)
{
	memset(s, 0, sizeof(*s));
}

void lib_set__free(struct lib_set *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->paths[i]);
	free(s->paths);
	free(s->dev);
	free(s->ino);
	lib_set__init(s);
}

/* Take ownership of PATH (already canonical, or deliberately not) with identity ST. */
static int set_add_owned(struct lib_set *s, char *path, const struct stat *st)
{
	for (size_t i = 0; i < s->n; i++) {
		if (s->dev[i] == (unsigned long long)st->st_dev &&
		    s->ino[i] == (unsigned long long)st->st_ino) {
			free(path);
			return 0;
		}
	}
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 16;
		char **p = realloc(s->paths, cap * sizeof(*p));
		unsigned long long *d, *in;

		if (p)
			s->paths = p;
		d = p ? realloc(s->dev, cap * sizeof(*d)) : NULL;
		if (d)
			s->dev = d;
		in = d ? realloc(s->ino, cap * sizeof(*in)) : NULL;
		if (!in) {
			free(path);
			return -ENOMEM;
		}
		s->ino = in;
		s->cap = cap;
	}
	s->paths[s->n] = path;
	s->dev[s->n] = st->st_dev;
	s->ino[s->n] = st->st_ino;
	s->n++;
	return 1;
}

int lib_set__add(struct lib_set *s, const char *path)
{
	char *rp = realpath(path, NULL);
	struct stat st;

	if (!rp)
		return -errno;
	if (stat(rp, &st)) {
		int ret = -errno;

		free(rp);
		return ret;
	}
	return set_add_owned(s, rp, &st);
}

/* ---- ELF identity checks */

static int read_ident(const char *path, struct ident *id)
{
	unsigned char h[EI_NIDENT + 4];
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -ENOEXEC;
	}
	n = read(fd, h, sizeof(h));
	close(fd);
	if (n < (ssize_t)sizeof(h) || memcmp(h, ELFMAG, SELFMAG) != 0)
		return -ENOEXEC;
	id->cls = h[EI_CLASS];
	id->data = h[EI_DATA];
	/* e_machine follows e_type, in the file's byte order */
	id->machine = id->data == ELFDATA2MSB ? (uint16_t)(h[18] << 8 | h[19])
					      : (uint16_t)(h[19] << 8 | h[18]);
	return 0;
}

static const struct ident *host_ident(void)
{
	static struct ident id;
	static int state; /* 0 unknown, 1 known, -1 unreadable */

	if (!state)
		state = read_ident("/proc/self/exe", &id) ? -1 : 1;
	return state > 0 ? &id : NULL;
}

static bool ident_ok(const char *path, const struct ident *want)
{
	struct ident id = { 0 };

	if (read_ident(path, &id))
		return false;
	return !want || (id.cls == want->cls && id.data == want->data && id.machine == want->machine);
}

/* ---- /etc/ld.so.cache */

/* Return non-zero to stop the walk. */
typedef int (*cache_fn)(void *ctx, const char *key, const char *value);

static uint32_t get32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static bool cache_str_ok(const unsigned char *buf, size_t len, uint32_t off)
{
	return off < len && memchr(buf + off, '\0', len - off);
}

/*
 * The "new" format (glibc 2.32+ writes only this): a 48-byte header, nlibs
 * 24-byte entries, then strings; key/value are offsets from the start of the
 * file.  Everything is checked before the first callback.  0, or -EINVAL if
 * the file is not in that format.
 */
static int cache_parse(const unsigned char *buf, size_t len, cache_fn fn, void *ctx)
{
	uint32_t nlibs;
	uint8_t endian;

	if (len < CACHE_HDR_SIZE || memcmp(buf, CACHE_MAGIC, strlen(CACHE_MAGIC)) != 0)
		return -EINVAL;
	nlibs = get32(buf + 20);
	endian = buf[28]; /* 0 unknown (old writers), 2 little, 3 big */
	if (endian != 0 && endian != (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? 2 : 3))
		return -EINVAL;
	if (nlibs > (len - CACHE_HDR_SIZE) / CACHE_ENTRY_SIZE)
		return -EINVAL;
	for (uint32_t i = 0; i < nlibs; i++) {
		const unsigned char *e = buf + CACHE_HDR_SIZE + (size_t)i * CACHE_ENTRY_SIZE;

		if (!cache_str_ok(buf, len, get32(e + 4)) || !cache_str_ok(buf, len, get32(e + 8)))
			return -EINVAL;
	}
	for (uint32_t i = 0; i < nlibs; i++) {
		const unsigned char *e = buf + CACHE_HDR_SIZE + (size_t)i * CACHE_ENTRY_SIZE;

		if (fn(ctx, (const char *)buf + get32(e + 4), (const char *)buf + get32(e + 8)))
			break;
	}
	return 0;
}

/* "\tlibfoo.so.1 (libc6,x86-64) => /lib/x86_64-linux-gnu/libfoo.so.1" */
static int cache_ldconfig(cache_fn fn, void *ctx)
{
	static const char *const cmds[] = { "/sbin/ldconfig -p 2>/dev/null",
					    "ldconfig -p 2>/dev/null" };
	char line[PATH_MAX + 256];

	for (size_t c = 0; c < sizeof(cmds) / sizeof(cmds[0]); c++) {
		FILE *f = popen(cmds[c], "r");
		bool stop = false;
		int n = 0;

		if (!f)
			continue;
		while (fgets(line, sizeof(line), f)) {
			char *key = line, *sp, *arrow;

			if (stop)
				continue; /* drain: pclose() of an unread pipe could block the child */
			while (*key == ' ' || *key == '\t')
				key++;
			sp = strchr(key, ' ');
			arrow = strstr(key, " => ");
			if (!sp || !arrow || line[0] != '\t')
				continue;
			*sp = '\0';
			arrow += 4;
			arrow[strcspn(arrow, "\n")] = '\0';
			n++;
			stop = fn(ctx, key, arrow) != 0;
		}
		if (pclose(f) == 0 || n)
			return 0;
	}
	return -ENOENT;
}

static int cache_each(cache_fn fn, void *ctx)
{
	unsigned char *buf = NULL;
	struct stat st;
	int fd = open(LD_SO_CACHE, O_RDONLY | O_CLOEXEC);
	int ret = -EINVAL;

	if (fd >= 0 && !fstat(fd, &st) && st.st_size > 0 && st.st_size < (1 << 30)) {
		size_t len = (size_t)st.st_size, got = 0;

		buf = malloc(len);
		while (buf && got < len) {
			ssize_t n = read(fd, buf + got, len - got);

			if (n <= 0)
				break;
			got += (size_t)n;
		}
		if (buf && got == len)
			ret = cache_parse(buf, len, fn, ctx);
	}
	if (fd >= 0)
		close(fd);
	free(buf);
	return ret ? cache_ldconfig(fn, ctx) : 0;
}

/* ---- searching like ld.so */

struct search {
	const char *name;
	const struct ident *want;
	char *out;
	size_t outlen;
	int ret; /* -ENOENT until found, then 0 or -ENAMETOOLONG */
};

static bool try_path(struct search *q, const char *path)
{
	if (!ident_ok(path, q->want))
		return false;
	if (strlen(path) >= q->outlen)
		q->ret = -ENAMETOOLONG;
	else {
		strcpy(q->out, path);
		q->ret = 0;
	}
	return true;
}

/* Expand $ORIGIN / ${ORIGIN} in DIR into BUF.  false if it cannot be expanded. */
static bool expand_dir(const char *dir, size_t len, const char *origin, char *buf, size_t buflen)
{
	size_t o = 0;

	for (size_t i = 0; i < len;) {
		const char *tok = NULL;
		size_t toklen = 0;

		if (i + 9 <= len && !strncmp(dir + i, "${ORIGIN}", 9))
			toklen = 9;
		else if (i + 7 <= len && !strncmp(dir + i, "$ORIGIN", 7) &&
			 (i + 7 == len || dir[i + 7] == '/'))
			toklen = 7;
		if (toklen) {
			if (!origin)
				return false;
			tok = origin;
		} else if (dir[i] == '$') {
			return false; /* $LIB, $PLATFORM: not expanded here */
		}
		if (tok) {
			size_t tl = strlen(tok);

			if (o + tl >= buflen)
				return false;
			memcpy(buf + o, tok, tl);
			o += tl;
			i += toklen;
		} else {
			if (o + 1 >= buflen)
				return false;
			buf[o++] = dir[i++];
		}
	}
	buf[o] = '\0';
	return true;
}

/* Try NAME in every directory of the ':'-separated LIST. */
static bool search_list(struct search *q, const char *list, const char *origin)
{
	char dir[PATH_MAX], path[PATH_MAX];

	for (const char *p = list; p && *p;) {
		size_t len = strcspn(p, ":;");

		if (len && expand_dir(p, len, origin, dir, sizeof(dir)) &&
		    snprintf(path, sizeof(path), "%s/%s", dir, q->name) < (int)sizeof(path) &&
		    try_path(q, path))
			return true;
		p += len;
		if (*p)
			p++;
	}
	return false;
}

static int cache_match(void *ctx, const char *key, const char *value)
{
	struct search *q = ctx;

	return !strcmp(key, q->name) && try_path(q, value);
}

/*
 * One soname, in ld.so's order: RPATH (the object's, then its loader's) unless
 * the object has RUNPATH, LD_LIBRARY_PATH, RUNPATH, ld.so.cache, default dirs.
 */
static int search_soname(const char *name, const char *rpath, const char *loader_rpath,
			 const char *runpath, const char *origin, const struct ident *want,
			 char *out, size_t outlen)
{
	struct search q = { name, want, out, outlen, -ENOENT };
	static const char *const dflt[] = { "/lib/" MULTIARCH, "/usr/lib/" MULTIARCH, "/lib",
					    "/usr/lib", "/lib64", "/usr/lib64" };
	char path[PATH_MAX];

	if (!name || !*name)
		return -EINVAL;
	if (strchr(name, '/'))
		return try_path(&q, name) ? q.ret : -ENOENT;
	if (!runpath && (search_list(&q, rpath, origin) || search_list(&q, loader_rpath, NULL)))
		return q.ret;
	if (search_list(&q, getenv("LD_LIBRARY_PATH"), NULL) || search_list(&q, runpath, origin))
		return q.ret;
	cache_each(cache_match, &q);
	if (q.ret != -ENOENT)
		return q.ret;
	for (size_t i = 0; i < sizeof(dflt) / sizeof(dflt[0]); i++) {
		if (!MULTIARCH && i < 2)
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dflt[i], name) < (int)sizeof(path) &&
		    try_path(&q, path))
			return q.ret;
	}
	return -ENOENT;
}

int libfind__soname(const char *soname, const char *runpath, const char *origin,
		    char *out, size_t outlen)
{
	return search_soname(soname, NULL, NULL, runpath, origin, host_ident(), out, outlen);
}

/* ---- closure of an executable */

static void set_err(char *err, size_t errlen, const char *fmt, const char *a, const char *b)
{
	if (err && errlen)
		snprintf(err, errlen, fmt, a, b);
}

/* NAME with no '/' searched in $PATH like execvp(). */
static int find_in_path(const char *name, char *out, size_t outlen)
{
	const char *p = getenv("PATH");
	char path[PATH_MAX];

	if (strchr(name, '/')) {
		if (strlen(name) >= outlen)
			return -ENAMETOOLONG;
		strcpy(out, name);
		return 0;
	}
	if (!p)
		p = "/usr/local/bin:/usr/bin:/bin";
	while (*p) {
		size_t len = strcspn(p, ":");
		struct stat st;
		int n = len ? snprintf(path, sizeof(path), "%.*s/%s", (int)len, p, name)
			    : snprintf(path, sizeof(path), "./%s", name);

		if (n < (int)sizeof(path) && !stat(path, &st) && S_ISREG(st.st_mode) &&
		    !access(path, X_OK)) {
			if ((size_t)n >= outlen)
				return -ENAMETOOLONG;
			strcpy(out, path);
			return 0;
		}
		p += len;
		if (*p)
			p++;
	}
	return -ENOENT;
}

/*
 * If PATH is a "#!" script, replace it with its interpreter (through
 * "/usr/bin/env NAME" too).  0 (PATH may be unchanged), or -errno.
 */
static int script_interp(char *path, size_t pathlen)
{
	char line[256], *p, *interp;
	FILE *f = fopen(path, "re");
	bool ok;

	if (!f)
		return -errno;
	ok = fgets(line, sizeof(line), f) != NULL;
	fclose(f);
	if (!ok || strncmp(line, "#!", 2) != 0)
		return 0;
	p = line + 2;
	p += strspn(p, " \t");
	interp = p;
	p += strcspn(p, " \t\r\n");
	if (*p)
		*p++ = '\0';
	if (!*interp)
		return -ENOEXEC;
	if (!strcmp(interp, "/usr/bin/env") || !strcmp(interp, "/bin/env")) {
		/* the first argument that is not an option or a VAR=value */
		for (;;) {
			char *arg;

			p += strspn(p, " \t");
			arg = p;
			p += strcspn(p, " \t\r\n");
			if (*p)
				*p++ = '\0';
			if (!*arg)
				break;
			if (arg[0] != '-' && !strchr(arg, '='))
				return find_in_path(arg, path, pathlen);
		}
	}
	if (strlen(interp) >= pathlen)
		return -ENAMETOOLONG;
	memmove(path, interp, strlen(interp) + 1);
	return 0;
}

static char *dir_of(const char *path)
{
	char *d = strdup(path);
	char *slash = d ? strrchr(d, '/') : NULL;

	if (slash)
		*(slash == d ? slash + 1 : slash) = '\0';
	return d;
}

static int push_where(char ***where, size_t *n, const char *path)
{
	char **w = realloc(*where, (*n + 1) * sizeof(*w));

	if (!w)
		return -ENOMEM;
	*where = w;
	w[*n] = strdup(path);
	if (!w[*n])
		return -ENOMEM;
	(*n)++;
	return 0;
}

int libfind__closure(const char *exe, struct lib_set *set, char *err, size_t errlen)
{
	char path[PATH_MAX], found[PATH_MAX];
	struct lib_set seen;
	char **where = NULL; /* path each seen object was found at (its $ORIGIN) */
	size_t nwhere = 0;
	struct elf_syms *o = NULL;
	struct ident want;
	char *exe_rpath = NULL;
	int ret;

	if (err && errlen)
		err[0] = '\0';
	ret = find_in_path(exe, path, sizeof(path));
	if (ret) {
		set_err(err, errlen, "%s: %s", exe,
			ret == -ENOENT ? "command not found in $PATH" : strerror(-ret));
		return ret;
	}
	for (int depth = 0;; depth++) { /* a script: its interpreter's closure */
		char before[PATH_MAX];

		ret = read_ident(path, &want);
		if (ret != -ENOEXEC || depth == MAX_SCRIPT_DEPTH)
			break;
		strcpy(before, path);
		if (script_interp(path, sizeof(path)) || !strcmp(before, path))
			break;
	}
	if (ret) {
		set_err(err, errlen, "%s: %s", path,
			ret == -ENOEXEC ? "not an ELF executable" : strerror(-ret));
		return ret;
	}
	ret = elf_syms__open_dynamic(path, &o, err, errlen);
	if (ret)
		return ret;
	if (!elf_syms__has_runpath(o) && elf_syms__rpath(o)) {
		exe_rpath = strdup(elf_syms__rpath(o));
		if (!exe_rpath) {
			elf_syms__close(o);
			set_err(err, errlen, "%s: %s", path, strerror(ENOMEM));
			return -ENOMEM;
		}
	}
	lib_set__init(&seen);
	ret = lib_set__add(&seen, path);
	if (ret == 1) { /* the executable's $ORIGIN is its real directory (/proc/self/exe) */
		char *rp = realpath(path, NULL);

		ret = rp ? push_where(&where, &nwhere, rp) : -ENOMEM;
		free(rp);
	} else if (!ret) {
		ret = -EEXIST; /* cannot happen: seen was empty */
	}
	/* breadth first: seen grows while we walk it; where[i] is seen.paths[i] as found */
	for (size_t i = 0; !ret && i < nwhere; i++) {
		char *origin;

		if (i > 0 && elf_syms__open_dynamic(where[i], &o, NULL, 0))
			continue; /* an unreadable library: ld.so would fail, we just skip it */
		origin = dir_of(where[i]);
		if (!origin)
			ret = -ENOMEM;
		for (size_t k = 0; !ret && k < elf_syms__nneeded(o); k++) {
			bool runpath = elf_syms__has_runpath(o);
			int r = search_soname(elf_syms__needed(o, k), runpath ? NULL : elf_syms__rpath(o),
					      runpath || i == 0 ? NULL : exe_rpath,
					      runpath ? elf_syms__runpath(o) : NULL, origin, &want,
					      found, sizeof(found));

			if (r)
				continue; /* unresolvable: skip silently */
			r = lib_set__add(&seen, found);
			if (r == 1) {
				ret = push_where(&where, &nwhere, found);
			} else if (r < 0 && r != -ENOENT) {
				ret = r;
			}
		}
		free(origin);
		elf_syms__close(o);
		o = NULL;
	}
	elf_syms__close(o);
	for (size_t i = 0; !ret && i < seen.n; i++) {
		int r = lib_set__add(set, seen.paths[i]);

		if (r < 0)
			ret = r;
	}
	if (ret)
		set_err(err, errlen, "%s: %s", path, strerror(-ret));
	for (size_t i = 0; i < nwhere; i++)
		free(where[i]);
	free(where);
	free(exe_rpath);
	lib_set__free(&seen);
	return ret;
}

/* ---- running processes */

/*
 * A mapped path as seen by PID.  In our mount namespace if that is the same
 * file, else through /proc/PID/root (containers).
 */
static int add_mapped(struct lib_set *set, pid_t pid, const char *path)
{
	char theirs[PATH_MAX + 32];
	struct stat st_ours, st_theirs;
	bool ours, their_ok;
	char *dup;

	snprintf(theirs, sizeof(theirs), "/proc/%d/root%s", (int)pid, path);
	ours = !stat(path, &st_ours);
	their_ok = !stat(theirs, &st_theirs);
	if (ours && (!their_ok || (st_ours.st_dev == st_theirs.st_dev &&
				   st_ours.st_ino == st_theirs.st_ino)))
		return lib_set__add(set, path);
	if (!their_ok)
		return -ENOENT;
	dup = strdup(theirs); /* not canonicalised: realpath would leave their namespace */
	return dup ? set_add_owned(set, dup, &st_theirs) : -ENOMEM;
}

static char *skip_field(char *p)
{
	p += strcspn(p, " \t");
	return p + strspn(p, " \t");
}

int libfind__maps(pid_t pid, struct lib_set *set)
{
	char file[64], line[PATH_MAX + 256];
	FILE *f;
	int ret = 0;

	snprintf(file, sizeof(file), "/proc/%d/maps", (int)pid);
	f = fopen(file, "re");
	if (!f)
		return -errno;
	/* "start-end perms offset dev inode   path" */
	while (fgets(line, sizeof(line), f)) {
		char *perms = skip_field(line), *path = perms;
		size_t len;
		int r;

		for (int i = 0; i < 4; i++)
			path = skip_field(path);
		len = strcspn(path, "\n");
		if (strlen(perms) < 4 || perms[2] != 'x' || path[0] != '/')
			continue;
		if (len > 10 && !strncmp(path + len - 10, " (deleted)", 10))
			continue;
		path[len] = '\0';
		r = add_mapped(set, pid, path);
		if (r == -ENOMEM) {
			ret = r;
			break;
		}
	}
	fclose(f);
	return ret;
}

int libfind__maps_sig(pid_t pid, uint64_t *sig)
{
	char file[64], line[PATH_MAX + 256];
	uint64_t h = FNV1A_SEED;
	FILE *f;

	snprintf(file, sizeof(file), "/proc/%d/maps", (int)pid);
	f = fopen(file, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *perms = skip_field(line), *dev = skip_field(skip_field(perms));

		if (strlen(perms) >= 4 && perms[2] == 'x')
			h = fnv1a(h, dev, strlen(dev)); /* "dev inode   path\n" */
	}
	fclose(f);
	*sig = h;
	return 0;
}

/* The number after KEY (e.g. "VmExe:") in /proc/PID/status text; -1 if absent. */
static long long status_number(const char *text, const char *key)
{
	const char *at = proc_status_field(text, key);

	return at ? strtoll(at, NULL, 10) : -1;
}

int libfind__exec_size(pid_t pid, uint64_t *size)
{
	char buf[4096];
	long long exe, lib;
	ssize_t n;

	/* one read(): the Vm lines come early; a status cut short by the buffer still has them */
	n = proc_status_read(pid, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	exe = status_number(buf, "VmExe:");
	lib = status_number(buf, "VmLib:");
	if (exe < 0 || lib < 0)
		return -ENODATA;
	*size = (uint64_t)exe << 32 ^ (uint64_t)lib;
	return 0;
}

/* ---- the loader cache */

struct cache_add {
	const char *prefix;
	size_t plen;
	struct lib_set *set;
	int ret;
};

static int cache_add_one(void *ctx, const char *key, const char *value)
{
	struct cache_add *c = ctx;
	int r;

	if (strncmp(key, c->prefix, c->plen) != 0 || !ident_ok(value, host_ident()))
		return 0;
	r = lib_set__add(c->set, value);
	if (r == -ENOMEM) {
		c->ret = r;
		return 1;
	}
	return 0;
}

int libfind__cache(const char *prefix, struct lib_set *set)
{
	struct cache_add c = { prefix ? prefix : "", prefix ? strlen(prefix) : 0, set, 0 };
	int ret = cache_each(cache_add_one, &c);

	return ret ? ret : c.ret;
}
