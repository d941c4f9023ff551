// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target: one symbol name, as a library's symbol table or a --phase
 * SYMBOL gives it.  Demangles it (the C++ runtime's __cxa_demangle, as
 * probes/elfsyms.c does for every symbol of every library it reads),
 * matches it against every catalog entry (and checks that the cheap test
 * before demangling, catalog__may_match, agrees), shortens it for display, and
 * looks it up as a --phase symbol in the symbols of the C++ runtime
 * itself (thousands of mangled names, read once at start).
 */
#include <limits.h>
#include <link.h>

#include "tests/fuzz/fuzz.h"
#include "probes/catalog.h"
#include "probes/elfsyms.h"

static struct elf_syms *cxx;

static int find_cxx(struct dl_phdr_info *info, size_t size, void *ctx)
{
	char *path = ctx;

	(void)size;
	if (info->dlpi_name && strstr(info->dlpi_name, "libstdc++")) {
		snprintf(path, PATH_MAX, "%s", info->dlpi_name);
		return 1;
	}
	return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char path[PATH_MAX] = "", err[256];

	(void)argc;
	(void)argv;
	/* the target links libstdc++ (for __cxa_demangle): its own symbol table is the haystack */
	dl_iterate_phdr(find_cxx, path);
	FZ_CHECK(path[0], "libstdc++ is not loaded");
	FZ_CHECK(elf_syms__open(path, &cxx, err, sizeof(err)) == 0, "%s", err);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *name, *dem, shortn[32];
	const struct cat_func *f;
	struct phase_spec spec;
	struct cat_plan p = { 0 };

	if (size > 4096)
		return -1;
	name = fz_strndup(data, size);
	dem = elf_demangle(name);
	FZ_CHECK(!dem || !strncmp(name, "_Z", 2), "'%s' demangled without _Z", name);

	for (size_t i = 0; i < catalog__count(); i++) {
		const struct cat_func *c = catalog__get(i);

		/* the cheap test before demangling never says no to a match */
		if (catalog__matches(c, name, dem ? dem : name))
			FZ_CHECK(catalog__may_match(name, strlen(name), NULL),
				 "'%s' matches %s but catalog__may_match said no", name, c->symbol);
		if (catalog__matches(c, name, dem ? dem : name) && !c->prefix)
			FZ_CHECK(!strcmp(name, c->symbol) || (!strncmp(name, "PMPI_", 5) && !strcmp(name + 1, c->symbol)),
				 "'%s' matched %s", name, c->symbol);
	}
	f = catalog__find(name);
	FZ_CHECK(!f || !strcmp(f->symbol, name), "catalog__find('%s') gave %s", name, f ? f->symbol : "");

	for (size_t len = 1; len <= sizeof(shortn); len += 7) {
		memset(shortn, 'X', sizeof(shortn));
		catalog__short_name(dem ? dem : name, shortn, len);
		FZ_CHECK(memchr(shortn, '\0', len), "catalog__short_name: not terminated in %zu", len);
	}

	/* as --phase libstdc++.so.6:SYMBOL */
	memset(&spec, 0, sizeof(spec));
	snprintf(spec.lib, sizeof(spec.lib), "libstdc++.so.6");
	snprintf(spec.symbol, sizeof(spec.symbol), "%s", dem ? dem : name);
	if (spec.symbol[0]) {
		int ret = catalog__plan_spec(cxx, &spec, &p);

		FZ_CHECK(ret >= 0 && p.n <= (size_t)ret, "catalog__plan_spec returned %d", ret);
		for (size_t i = 0; i < p.n; i++)
			FZ_CHECK(memchr(p.pts[i].name, '\0', sizeof(p.pts[i].name)), "point name unterminated");
		cat_plan__free(&p);
	}
	free(dem);
	free(name);
	return 0;
}
