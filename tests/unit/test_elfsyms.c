// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for ELF function symbols (probes/elfsyms.c) and library discovery
 * (probes/libfind.c), against real system files and small ELF files built here
 * with gcc.  A test whose system file is missing is skipped.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "probes/elfsyms.h"
#include "probes/libfind.h"

#define MPICH "/usr/lib/x86_64-linux-gnu/libmpich.so.12"
#define LIBSTDCXX "/usr/lib/x86_64-linux-gnu/libstdc++.so.6"

#define TMPDIR_NAME "elfsyms"
#include "tests/unit/tmpdir.h"

static void need_file(const char *path)
{
	if (access(path, R_OK)) {
		print_message("skip: %s not installed\n", path);
		skip();
	}
}

static void need_tool(const char *tool)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", tool);
	if (system(cmd) != 0) {
		print_message("skip: %s not installed\n", tool);
		skip();
	}
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

static void sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if (system(cmd) != 0)
		fail_msg("command failed: %s", cmd);
}

/* Symbol value (virtual address) as `nm` reports it; dynamic: nm -D. */
static bool nm_value(const char *path, const char *sym, bool dynamic, uint64_t *val)
{
	char cmd[PATH_MAX + 64], line[1024];
	bool found = false;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "nm %s --defined-only '%s'", dynamic ? "-D" : "", path);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		char *end, *name;
		uint64_t v = strtoull(line, &end, 16);

		if (end == line || end[0] != ' ' || !end[1] || end[2] != ' ')
			continue;
		name = end + 3;
		name[strcspn(name, "\n")] = '\0';
		if (!found && !strcmp(name, sym)) {
			*val = v;
			found = true;
		}
	}
	pclose(f);
	return found;
}

/*
 * The file offset of virtual address VADDR computed from `readelf -lW`'s
 * executable LOAD segments: independent of libelf.
 */
static bool readelf_offset(const char *path, uint64_t vaddr, uint64_t *off)
{
	char cmd[PATH_MAX + 64], line[1024];
	bool found = false;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "readelf -lW '%s'", path);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, "LOAD"), *end;
		uint64_t o, va, filesz;

		if (!p || (!strstr(p, " R E ") && !strstr(p, " RWE ")))
			continue;
		o = strtoull(p + 4, &end, 16);
		va = strtoull(end, &end, 16);
		(void)strtoull(end, &end, 16); /* paddr */
		filesz = strtoull(end, &end, 16);
		if (!found && vaddr >= va && vaddr < va + filesz) {
			*off = vaddr - va + o;
			found = true;
		}
	}
	pclose(f);
	return found;
}

static void read_at(const char *path, uint64_t off, unsigned char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);

	assert_true(fd >= 0);
	assert_int_equal(pread(fd, buf, len, (off_t)off), (ssize_t)len);
	close(fd);
}

/* "mov $IMM, %eax; ret" at OFF in PATH, maybe after an endbr64. */
static void assert_returns_imm(const char *path, uint64_t off, uint32_t imm)
{
	static const unsigned char endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };
	unsigned char b[10], want[6] = { 0xb8, imm & 0xff, (imm >> 8) & 0xff, (imm >> 16) & 0xff,
					 imm >> 24, 0xc3 };
	const unsigned char *p = b;

	read_at(path, off, b, sizeof(b));
	if (!memcmp(b, endbr64, sizeof(endbr64)))
		p += sizeof(endbr64);
	assert_memory_equal(p, want, sizeof(want));
}

static bool set_has_file(const struct lib_set *s, const char *path)
{
	struct stat st;

	if (stat(path, &st))
		return false;
	for (size_t i = 0; i < s->n; i++) {
		if (s->dev[i] == (unsigned long long)st.st_dev &&
		    s->ino[i] == (unsigned long long)st.st_ino)
			return true;
	}
	return false;
}

static bool set_has_substr(const struct lib_set *s, const char *sub)
{
	for (size_t i = 0; i < s->n; i++) {
		if (strstr(s->paths[i], sub))
			return true;
	}
	return false;
}

/* ---- elfsyms */

static void test_mpich_allreduce(void **state)
{
	struct elf_syms *s = NULL;
	const struct elf_sym *mpi, *pmpi, *bcast;
	uint64_t nmval = 0, want = 0;
	unsigned char a[16], b[16];
	char err[256];
	bool libc = false;

	(void)state;
	need_file(MPICH);
	assert_int_equal(elf_syms__open(MPICH, &s, err, sizeof(err)), 0);
	mpi = elf_syms__find(s, "MPI_Allreduce");
	pmpi = elf_syms__find(s, "PMPI_Allreduce");
	bcast = elf_syms__find(s, "MPI_Bcast");
	assert_non_null(mpi);
	assert_non_null(pmpi);
	assert_non_null(bcast);
	assert_string_equal(mpi->name, "MPI_Allreduce");
	assert_ptr_equal(mpi->demangled, mpi->name);
	assert_true(mpi->offset == pmpi->offset);
	assert_true(mpi->offset != bcast->offset);
	assert_false(mpi->global); /* MPI_ is the weak alias of PMPI_ */
	assert_true(pmpi->global);
	assert_true(mpi->size > 0);

	/* the same value nm -D reports, turned into an offset through readelf's segments */
	need_tool("nm");
	need_tool("readelf");
	assert_true(nm_value(MPICH, "MPI_Allreduce", true, &nmval));
	assert_true(readelf_offset(MPICH, nmval, &want));
	assert_true(mpi->offset == want);
	assert_true(nm_value(MPICH, "MPI_Bcast", true, &nmval));
	assert_true(readelf_offset(MPICH, nmval, &want));
	assert_true(bcast->offset == want);
	read_at(MPICH, mpi->offset, a, sizeof(a));
	read_at(MPICH, bcast->offset, b, sizeof(b));
	assert_memory_not_equal(a, b, sizeof(a));

	assert_string_equal(elf_syms__soname(s), "libmpich.so.12");
	assert_null(elf_syms__runpath(s));
	for (size_t i = 0; i < elf_syms__nneeded(s); i++)
		libc |= !strcmp(elf_syms__needed(s, i), "libc.so.6");
	assert_true(libc);
	assert_null(elf_syms__needed(s, elf_syms__nneeded(s)));
	assert_null(elf_syms__find(s, "MPI_No_such_function"));

	/* sorted by name, then offset, no duplicate (name, offset) pairs */
	for (size_t i = 1; i < elf_syms__count(s); i++) {
		const struct elf_sym *x = elf_syms__get(s, i - 1), *y = elf_syms__get(s, i);
		int c = strcmp(x->name, y->name);

		assert_true(c < 0 || (c == 0 && x->offset < y->offset));
	}
	assert_null(elf_syms__get(s, elf_syms__count(s)));
	elf_syms__close(s);
}

/* A non-PIE executable: text at 0x401000 in memory but 0x1000 in the file. */
static void test_exec_offset(void **state)
{
	const char *src = tpath("e.c"), *exe = tpath("e");
	struct elf_syms *s = NULL;
	const struct elf_sym *f;
	uint64_t vaddr = 0;
	char err[256];

	(void)state;
	need_tool("gcc");
	need_tool("nm");
	write_file(src, "__attribute__((noinline, used)) int ft_magic_fn(void) { return 0x12345678; }\n"
			"int main(void) { return ft_magic_fn() == 1; }\n");
	sh("gcc -O2 -no-pie -fno-pie -o '%s' '%s'", exe, src);
	assert_int_equal(elf_syms__open(exe, &s, err, sizeof(err)), 0);
	f = elf_syms__find(s, "ft_magic_fn");
	assert_non_null(f);
	assert_true(f->global);
	assert_true(nm_value(exe, "ft_magic_fn", false, &vaddr));
	assert_true(f->offset != vaddr); /* an address is not an offset here */
	assert_returns_imm(exe, f->offset, 0x12345678);
	assert_non_null(elf_syms__find(s, "main"));
	assert_null(elf_syms__soname(s));
	elf_syms__close(s);
}

/* .symtab "foo@V1" / "foo@@V2" and .dynsym foo + .gnu.version: two foos, the default wins. */
static void test_versions(void **state)
{
	const char *src = tpath("v.c"), *map = tpath("v.map"), *lib = tpath("libv.so");
	struct elf_syms *s = NULL;
	const struct elf_sym *f;
	size_t nfoo = 0;
	char err[256];

	(void)state;
	need_tool("gcc");
	write_file(src, "__attribute__((noinline)) int foo_old(void) { return 0x11111111; }\n"
			"__attribute__((noinline)) int foo_new(void) { return 0x22222222; }\n"
			"__asm__(\".symver foo_old, foo@V1\");\n"
			"__asm__(\".symver foo_new, foo@@V2\");\n"
			"static int hidden_helper(void) { return 3; }\n"
			"int (*keep)(void) = hidden_helper;\n");
	write_file(map, "V1 { global: foo; keep; local: *; };\nV2 { global: foo; } V1;\n");
	sh("gcc -O2 -shared -fPIC -Wl,-soname,libv.so.1 -Wl,-rpath,'$ORIGIN/x' "
	   "-Wl,--enable-new-dtags -Wl,--version-script='%s' -o '%s' '%s'", map, lib, src);
	assert_int_equal(elf_syms__open(lib, &s, err, sizeof(err)), 0);
	for (size_t i = 0; i < elf_syms__count(s); i++) {
		const struct elf_sym *e = elf_syms__get(s, i);

		assert_null(strchr(e->name, '@'));
		nfoo += !strcmp(e->name, "foo");
	}
	assert_int_equal(nfoo, 2); /* each version once, though in both tables */
	f = elf_syms__find(s, "foo");
	assert_non_null(f);
	assert_returns_imm(lib, f->offset, 0x22222222);
	assert_null(elf_syms__find(s, "hidden_helper")); /* local */
	assert_null(elf_syms__find(s, "foo_old"));       /* made local by the version script */
	assert_string_equal(elf_syms__soname(s), "libv.so.1");
	assert_string_equal(elf_syms__runpath(s), "$ORIGIN/x");
	assert_true(elf_syms__has_runpath(s));
	assert_null(elf_syms__rpath(s));
	elf_syms__close(s);

	/* the dynamic-only view: same facts, no symbols */
	assert_int_equal(elf_syms__open_dynamic(lib, &s, err, sizeof(err)), 0);
	assert_int_equal(elf_syms__count(s), 0);
	assert_string_equal(elf_syms__soname(s), "libv.so.1");
	elf_syms__close(s);
}

static void test_demangle(void **state)
{
	struct elf_syms *s = NULL;
	const struct elf_sym *e;
	size_t it = 0, n = 0;
	char err[256], *d;

	(void)state;
	d = elf_demangle("_Z3fooi");
	assert_non_null(d);
	assert_string_equal(d, "foo(int)");
	free(d);
	assert_null(elf_demangle("MPI_Init"));
	assert_null(elf_demangle("_Znot a mangled name"));
	assert_null(elf_demangle(NULL));

	need_file(LIBSTDCXX);
	assert_int_equal(elf_syms__open(LIBSTDCXX, &s, err, sizeof(err)), 0);
	while ((e = elf_syms__next_prefix(s, "std::", &it))) {
		assert_int_equal(strncmp(e->name, "_Z", 2), 0);
		assert_int_equal(strncmp(e->demangled, "std::", 5), 0);
		assert_ptr_not_equal(e->name, e->demangled);
		n++;
	}
	assert_true(n > 100);
	assert_null(elf_syms__next_prefix(s, "std::", &it)); /* stays done */
	it = 0;
	e = elf_syms__next_prefix(s, "std::terminate()", &it);
	assert_non_null(e);
	assert_string_equal(e->name, "_ZSt9terminatev");
	elf_syms__close(s);
}

static void test_open_errors(void **state)
{
	const char *txt = tpath("not-elf.so"), *obj = tpath("o.o"), *src = tpath("o.c");
	struct elf_syms *s = (struct elf_syms *)&s;
	char err[256];

	(void)state;
	assert_int_equal(elf_syms__open("/nonexistent/libfoo.so", &s, err, sizeof(err)), -ENOENT);
	assert_null(s);
	assert_non_null(strstr(err, "/nonexistent/libfoo.so: "));
	assert_null(strchr(err, '\n'));

	write_file(txt, "this is not an ELF file\n");
	assert_int_equal(elf_syms__open(txt, &s, err, sizeof(err)), -ENOEXEC);
	assert_null(s);
	assert_non_null(strstr(err, "not-elf.so: not an ELF file"));
	write_file(txt, "");
	assert_int_equal(elf_syms__open(txt, &s, err, sizeof(err)), -ENOEXEC);
	assert_int_equal(elf_syms__open(tmpdir, &s, err, sizeof(err)), -ENOEXEC);
	assert_int_equal(elf_syms__open(txt, &s, NULL, 0), -ENOEXEC);

	need_tool("gcc");
	write_file(src, "int f(void) { return 1; }\n");
	sh("gcc -c -o '%s' '%s'", obj, src);
	assert_int_equal(elf_syms__open(obj, &s, err, sizeof(err)), -ENOEXEC); /* ET_REL */
}

/* ---- libfind */

static void test_lib_set(void **state)
{
	const char *target = tpath("libreal.so.1"), *link = tpath("libreal.so");
	struct lib_set set;

	(void)state;
	write_file(target, "x");
	assert_int_equal(symlink("libreal.so.1", link), 0);
	lib_set__init(&set);
	assert_int_equal(lib_set__add(&set, link), 1);
	assert_int_equal(lib_set__add(&set, target), 0);
	assert_int_equal(lib_set__add(&set, link), 0);
	assert_int_equal(lib_set__add(&set, tpath("missing.so")), -ENOENT);
	assert_int_equal(set.n, 1);
	assert_non_null(strstr(set.paths[0], "/libreal.so.1"));
	assert_int_equal(set.paths[0][0], '/');
	lib_set__free(&set);
	assert_int_equal(set.n, 0);
	lib_set__free(&set); /* twice is fine */
}

static void test_soname(void **state)
{
	char out[PATH_MAX], libc[PATH_MAX], want[PATH_MAX], *old;
	struct stat st;

	(void)state;
	assert_int_equal(libfind__soname("libc.so.6", NULL, NULL, libc, sizeof(libc)), 0);
	assert_int_equal(stat(libc, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(libfind__soname("libftnosuch.so.9", NULL, NULL, out, sizeof(out)), -ENOENT);
	assert_int_equal(libfind__soname("libc.so.6", NULL, NULL, out, 4), -ENAMETOOLONG);

	/* $ORIGIN and ${ORIGIN} in RUNPATH, relative to the object's directory */
	sh("mkdir -p '%s/sub' '%s/bad'", tmpdir, tmpdir);
	sh("ln -s '%s' '%s/sub/libftfake.so.7'", libc, tmpdir);
	snprintf(want, sizeof(want), "%s/sub/libftfake.so.7", tmpdir);
	assert_int_equal(libfind__soname("libftfake.so.7", "$ORIGIN/sub", tmpdir, out, sizeof(out)), 0);
	assert_string_equal(out, want);
	assert_int_equal(libfind__soname("libftfake.so.7", "/nowhere:${ORIGIN}/sub", tmpdir, out,
					 sizeof(out)), 0);
	assert_string_equal(out, want);
	assert_int_equal(libfind__soname("libftfake.so.7", "$ORIGIN/sub", NULL, out, sizeof(out)),
			 -ENOENT);
	assert_int_equal(libfind__soname("libftfake.so.7", NULL, NULL, out, sizeof(out)), -ENOENT);

	/* a candidate that is not ELF is passed over, as ld.so does */
	write_file(tpath("bad/libc.so.6"), "not ELF\n");
	assert_int_equal(libfind__soname("libc.so.6", "$ORIGIN/bad", tmpdir, out, sizeof(out)), 0);
	assert_string_equal(out, libc);

	/* LD_LIBRARY_PATH comes before RUNPATH */
	old = getenv("LD_LIBRARY_PATH");
	if (old)
		old = strdup(old);
	write_file(tpath("bad/libftfake.so.7"), "not ELF\n");
	sh("mkdir -p '%s/run' && ln -s '%s' '%s/run/libftfake.so.7'", tmpdir, libc, tmpdir);
	assert_int_equal(setenv("LD_LIBRARY_PATH", tpath("sub"), 1), 0);
	assert_int_equal(libfind__soname("libftfake.so.7", "$ORIGIN/run", tmpdir, out, sizeof(out)),
			 0);
	assert_string_equal(out, want);
	assert_int_equal(setenv("LD_LIBRARY_PATH", tpath("bad"), 1), 0);
	assert_int_equal(libfind__soname("libftfake.so.7", "$ORIGIN/run", tmpdir, out, sizeof(out)),
			 0);
	assert_non_null(strstr(out, "/run/libftfake.so.7"));
	if (old)
		assert_int_equal(setenv("LD_LIBRARY_PATH", old, 1), 0);
	else
		assert_int_equal(unsetenv("LD_LIBRARY_PATH"), 0);
	free(old);
}

static void test_closure(void **state)
{
	char libc[PATH_MAX], err[256];
	const char *script = tpath("script.sh");
	struct lib_set set;
	size_t n;

	(void)state;
	need_file("/bin/ls");
	assert_int_equal(libfind__soname("libc.so.6", NULL, NULL, libc, sizeof(libc)), 0);
	lib_set__init(&set);
	assert_int_equal(libfind__closure("/bin/ls", &set, err, sizeof(err)), 0);
	assert_true(set_has_file(&set, "/bin/ls"));
	assert_true(set_has_file(&set, libc));
	assert_true(set_has_substr(&set, "/libc.so.6"));
	n = set.n;
	assert_int_equal(libfind__closure("ls", &set, err, sizeof(err)), 0); /* via $PATH */
	assert_int_equal(set.n, n);
	lib_set__free(&set);

	/* a script: its interpreter's closure */
	write_file(script, "#!/bin/sh\necho hi\n");
	lib_set__init(&set);
	assert_int_equal(libfind__closure(script, &set, err, sizeof(err)), 0);
	assert_true(set_has_file(&set, "/bin/sh"));
	assert_true(set_has_file(&set, libc));
	lib_set__free(&set);

	if (!access(MPICH, R_OK) && !access("/usr/bin/mpichversion", X_OK)) {
		lib_set__init(&set);
		assert_int_equal(libfind__closure("/usr/bin/mpichversion", &set, err, sizeof(err)),
				 0);
		assert_true(set_has_file(&set, MPICH));
		lib_set__free(&set);
	}

	/* DT_RUNPATH and DT_RPATH with $ORIGIN, as ld.so would find them */
	if (!system("command -v gcc >/dev/null 2>&1")) {
		write_file(tpath("dep.c"), "int ft_dep(void) { return 7; }\n");
		write_file(tpath("main.c"), "int ft_dep(void);\nint main(void) { return ft_dep(); }\n");
		sh("mkdir -p '%s/lib' && cd '%s' && gcc -shared -fPIC -Wl,-soname,libftdep.so.1 "
		   "-o lib/libftdep.so.1 dep.c && "
		   "gcc -o run1 main.c lib/libftdep.so.1 -Wl,--enable-new-dtags -Wl,-rpath,'$ORIGIN/lib' && "
		   "gcc -o run2 main.c lib/libftdep.so.1 -Wl,--disable-new-dtags -Wl,-rpath,'${ORIGIN}/lib'",
		   tmpdir, tmpdir);
		for (int k = 1; k <= 2; k++) {
			char exe[32];

			snprintf(exe, sizeof(exe), "run%d", k);
			lib_set__init(&set);
			assert_int_equal(libfind__closure(tpath(exe), &set, err, sizeof(err)), 0);
			assert_true(set_has_file(&set, tpath("lib/libftdep.so.1")));
			assert_true(set_has_file(&set, libc));
			lib_set__free(&set);
		}
	}

	lib_set__init(&set);
	assert_int_equal(libfind__closure("ft-no-such-command", &set, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "ft-no-such-command"));
	assert_int_equal(libfind__closure("/nonexistent/exe", &set, err, sizeof(err)), -ENOENT);
	write_file(tpath("text"), "plain text\n");
	assert_int_equal(libfind__closure(tpath("text"), &set, err, sizeof(err)), -ENOEXEC);
	assert_non_null(strstr(err, "not an ELF executable"));
	assert_int_equal(set.n, 0);
	lib_set__free(&set);
}

static void test_maps(void **state)
{
	struct lib_set set;
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	(void)state;
	assert_true(n > 0);
	self[n] = '\0';
	lib_set__init(&set);
	assert_int_equal(libfind__maps(getpid(), &set), 0);
	assert_true(set_has_substr(&set, "libcmocka"));
	assert_true(set_has_file(&set, self));
	for (size_t i = 0; i < set.n; i++)
		assert_int_equal(set.paths[i][0], '/');
	assert_false(set_has_substr(&set, "[vdso]"));
	lib_set__free(&set);
	assert_true(libfind__maps(999999999, &set) < 0);
}

/* The maps signature and the sizes of the executable mappings: stable while
 * nothing is mapped, new once a library is */
static void test_maps_sig(void **state)
{
	static const char *const libs[] = { "libutil.so.1", "libdl.so.2", "libanl.so.1" };
	uint64_t a = 0, b = 0, c = 0, sa = 0, sb = 0, sc = 0;
	void *h = NULL;

	(void)state;
	assert_int_equal(libfind__maps_sig(getpid(), &a), 0);
	assert_int_equal(libfind__exec_size(getpid(), &sa), 0);
	assert_int_equal(libfind__maps_sig(getpid(), &b), 0);
	assert_int_equal(libfind__exec_size(getpid(), &sb), 0);
	assert_true(a == b);
	assert_true(sa == sb && sa != 0);
	/* a glibc stub library this test does not link */
	for (size_t i = 0; i < sizeof(libs) / sizeof(libs[0]) && !h; i++)
		if (!dlopen(libs[i], RTLD_NOW | RTLD_NOLOAD))
			h = dlopen(libs[i], RTLD_NOW);
	if (!h)
		skip();
	assert_int_equal(libfind__maps_sig(getpid(), &c), 0);
	assert_int_equal(libfind__exec_size(getpid(), &sc), 0);
	assert_true(c != a);
	assert_true(sc != sa); /* the library's code is an executable mapping more */
	dlclose(h);
	assert_true(libfind__maps_sig(999999999, &a) < 0);
	assert_int_equal(libfind__exec_size(999999999, &sa), -ENOENT);
	/* a kernel thread (kthreadd) has no mappings: no sizes, not 0 */
	if (access("/proc/2/status", R_OK) == 0)
		assert_int_equal(libfind__exec_size(2, &sa), -ENODATA);
}

static void test_cache(void **state)
{
	struct lib_set set;

	(void)state;
	lib_set__init(&set);
	assert_int_equal(libfind__cache("libc.so", &set), 0);
	assert_true(set_has_substr(&set, "/libc.so.6"));
	lib_set__free(&set);

	need_file(MPICH);
	lib_set__init(&set);
	assert_int_equal(libfind__cache("libmpich", &set), 0);
	assert_true(set_has_file(&set, MPICH));
	for (size_t i = 0; i < set.n; i++)
		assert_non_null(strstr(set.paths[i], "/libmpich"));
	lib_set__free(&set);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mpich_allreduce),
		cmocka_unit_test(test_exec_offset),
		cmocka_unit_test(test_versions),
		cmocka_unit_test(test_demangle),
		cmocka_unit_test(test_open_errors),
		cmocka_unit_test(test_lib_set),
		cmocka_unit_test(test_soname),
		cmocka_unit_test(test_closure),
		cmocka_unit_test(test_maps),
		cmocka_unit_test(test_maps_sig),
		cmocka_unit_test(test_cache),
	};

	return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
