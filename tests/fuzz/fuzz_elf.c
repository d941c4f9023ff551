// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target: the fuzz input is an ELF file (a library or executable a
 * traced process maps).  Runs what the phase probes do with it: the
 * function symbols (probes/elfsyms.c, libelf, C++ demangling), the
 * catalog's attach plan, --phase lookups, the dynamic section (soname,
 * DT_NEEDED, RUNPATH) and the loader-like search of a needed library with
 * the file's RUNPATH and $ORIGIN (probes/libfind.c).
 */
#include "tests/fuzz/fuzz.h"
#include "probes/catalog.h"
#include "probes/elfsyms.h"
#include "probes/libfind.h"

static struct fz_file in;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fz_file_init(&in, "fuzz_elf");
	return 0;
}

static void check_syms(const struct elf_syms *s)
{
	size_t n = elf_syms__count(s);
	const struct elf_sym *prev = NULL;

	for (size_t i = 0; i < n; i++) {
		const struct elf_sym *e = elf_syms__get(s, i), *f;

		FZ_CHECK(e && e->name && e->demangled && e->name[0], "symbol %zu: no name", i);
		FZ_CHECK(!prev || strcmp(prev->name, e->name) <= 0, "symbols not sorted by name");
		f = elf_syms__find(s, e->name);
		FZ_CHECK(f && !strcmp(f->name, e->name), "elf_syms__find('%s') missed it", e->name);
		prev = e;
	}
	FZ_CHECK(elf_syms__get(s, n) == NULL, "elf_syms__get past the end");
}

static void check_plan(const struct cat_plan *p)
{
	for (size_t i = 0; i < p->n; i++) {
		FZ_CHECK(memchr(p->pts[i].symbol, '\0', sizeof(p->pts[i].symbol)) &&
			 memchr(p->pts[i].name, '\0', sizeof(p->pts[i].name)), "plan point %zu: unterminated", i);
		for (size_t k = 0; k < i; k++)
			FZ_CHECK(p->pts[k].offset != p->pts[i].offset, "two attach points at offset %llu",
				 (unsigned long long)p->pts[i].offset);
	}
}

static void plan_spec(const struct elf_syms *s, const char *lib, const char *symbol)
{
	struct phase_spec spec;
	struct cat_plan p = { 0 };
	int ret;

	memset(&spec, 0, sizeof(spec));
	snprintf(spec.lib, sizeof(spec.lib), "%s", lib);
	snprintf(spec.symbol, sizeof(spec.symbol), "%s", symbol);
	ret = catalog__plan_spec(s, &spec, &p);
	/* it counts matches; aliases at one offset make one point */
	FZ_CHECK(ret >= 0 && p.n <= (size_t)ret && (ret == 0) == (p.n == 0),
		 "catalog__plan_spec('%s') returned %d with %zu points", symbol, ret, p.n);
	check_plan(&p);
	cat_plan__free(&p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct elf_syms *s = NULL;
	struct cat_plan plan = { 0 };
	char err[512];
	int ret;

	if (size > (1u << 20))
		return -1;
	fz_file_set(&in, data, size);

	memset(err, 'X', sizeof(err));
	ret = elf_syms__open(in.path, &s, err, sizeof(err));
	FZ_CHECK(ret == 0 || ret == -ENOEXEC || ret == -ENOMEM, "elf_syms__open returned %d", ret);
	FZ_CHECK(memchr(err, '\0', sizeof(err)), "error message not terminated");
	if (!ret) {
		check_syms(s);
		ret = catalog__plan(s, &plan);
		FZ_CHECK(ret == 0, "catalog__plan returned %d", ret);
		check_plan(&plan);
		cat_plan__free(&plan);
		plan_spec(s, "libfuzz.so", "fttest_work");
		plan_spec(s, "libfuzz.so", "gloo::allreduce(");
		if (elf_syms__count(s)) {
			const struct elf_sym *e = elf_syms__get(s, elf_syms__count(s) / 2);

			plan_spec(s, "libfuzz.so", e->demangled);
		}
		elf_syms__close(s);
		s = NULL;
	}

	ret = elf_syms__open_dynamic(in.path, &s, err, sizeof(err));
	FZ_CHECK(ret == 0 || ret == -ENOEXEC || ret == -ENOMEM, "elf_syms__open_dynamic returned %d", ret);
	if (ret)
		return 0;
	FZ_CHECK(elf_syms__count(s) == 0, "open_dynamic read symbols");
	for (size_t i = 0; i < elf_syms__nneeded(s); i++)
		FZ_CHECK(elf_syms__needed(s, i) != NULL, "DT_NEEDED %zu missing", i);
	FZ_CHECK(elf_syms__runpath(s) == NULL || elf_syms__has_runpath(s) || elf_syms__rpath(s),
		 "runpath without RUNPATH or RPATH");
	/* where would ld.so find the first DT_NEEDED with this file's RUNPATH? (stat/open only) */
	if (elf_syms__nneeded(s)) {
		char found[4096];

		ret = libfind__soname(elf_syms__needed(s, 0), elf_syms__runpath(s), "/nonexistent/fuzz-origin",
				      found, sizeof(found));
		FZ_CHECK(ret == 0 || ret == -ENOENT || ret == -EINVAL || ret == -ENAMETOOLONG,
			 "libfind__soname returned %d", ret);
		if (!ret)
			FZ_CHECK(memchr(found, '\0', sizeof(found)), "libfind__soname: path not terminated");
	}
	elf_syms__close(s);
	return 0;
}
