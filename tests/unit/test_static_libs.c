// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests: the catalog finds NCCL and Gloo by their symbols in whatever
 * library holds them, not by the library's name.  Pip wheels link NCCL
 * into libtorch_cuda.so and Gloo into libtorch_cpu.so; these are built
 * here (gcc, g++) with NCCL's C entry points and Gloo's C++ ones (exported,
 * as the wheels' builds leave them), and a library named libgloo.so.0 without Gloo's symbols
 * gets no probe.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "probes/catalog.h"
#include "probes/elfsyms.h"

#define TMPDIR_NAME "staticlibs"
#include "tests/unit/tmpdir.h"

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
	assert_true(fputs(text, f) >= 0);
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

/* The plan of LIB: how many points of library kind KIND and op OP. */
static size_t points(const char *lib, unsigned kind, unsigned op, const char *symbol)
{
	struct elf_syms *s = NULL;
	struct cat_plan p = { 0 };
	char err[160];
	size_t n = 0;

	assert_int_equal(elf_syms__open(lib, &s, err, sizeof(err)), 0);
	assert_int_equal(catalog__plan(s, &p), 0);
	for (size_t i = 0; i < p.n; i++)
		n += p.pts[i].lib == kind && p.pts[i].op == op &&
		     (!symbol || strncmp(p.pts[i].symbol, symbol, strlen(symbol)) == 0);
	cat_plan__free(&p);
	elf_syms__close(s);
	return n;
}

static const char nccl_src[] =
	"#include <stddef.h>\n"
	"typedef struct ncclComm *ncclComm_t; typedef int ncclResult_t;\n"
	"typedef struct { char internal[128]; } ncclUniqueId;\n"
	"static volatile int sink;\n"
	"ncclResult_t ncclAllReduce(const void *s, void *r, size_t n, int t, int op, ncclComm_t c, void *st)\n"
	"{ sink = (int)n; return 0; }\n"
	"ncclResult_t ncclAlltoAll(const void *s, void *r, size_t n, int t, ncclComm_t c, void *st)\n"
	"{ sink = (int)n + 1; return 0; }\n"
	"ncclResult_t ncclCommInitRankConfig(ncclComm_t *c, int n, ncclUniqueId id, int r, void *cfg)\n"
	"{ sink = r; return 0; }\n"
	"/* the framework's own code beside it */\n"
	"void at_cuda_something(void) { sink = 7; }\n";

static const char gloo_src[] =
	"namespace gloo {\n"
	"struct AllreduceOptions { long pad[16]; };\n"
	"struct BroadcastOptions { long pad[8]; };\n"
	"__attribute__((noinline)) void allreduce(AllreduceOptions &o) { o.pad[0]++; }\n"
	"__attribute__((noinline)) void broadcast(BroadcastOptions &o) { o.pad[1]++; }\n"
	"}\n"
	"namespace at { __attribute__((noinline)) void add(long *x) { (*x)++; } }\n";

static void test_nccl_in_libtorch_cuda(void **state)
{
	const char *lib = tpath("libtorch_cuda.so");

	(void)state;
	need_tool("gcc");
	write_file(tpath("nccl.c"), nccl_src);
	sh("gcc -O2 -shared -fPIC -Wl,-soname,libtorch_cuda.so -o '%s' '%s'", lib, tpath("nccl.c"));
	assert_int_equal(points(lib, FT_LIB_NCCL, FT_OP_ALLREDUCE, "ncclAllReduce"), 1);
	assert_int_equal(points(lib, FT_LIB_NCCL, FT_OP_ALLTOALL, "ncclAlltoAll"), 1);
	assert_int_equal(points(lib, FT_LIB_NCCL, FT_OP_COMM_INIT, "ncclCommInitRankConfig"), 1);
	assert_int_equal(points(lib, FT_LIB_GLOO, FT_OP_ALLREDUCE, NULL), 0);
}

static void test_gloo_in_libtorch_cpu(void **state)
{
	char lib[PATH_MAX], decoy[PATH_MAX];

	(void)state;
	snprintf(lib, sizeof(lib), "%s", tpath("libtorch_cpu.so"));
	snprintf(decoy, sizeof(decoy), "%s", tpath("libgloo.so.0"));
	need_tool("g++");
	write_file(tpath("gloo.cc"), gloo_src);
	/* stripped, as wheels ship: Gloo's functions are found in the dynamic symbols */
	sh("g++ -O2 -s -shared -fPIC -Wl,-soname,libtorch_cpu.so -o '%s' '%s'", lib, tpath("gloo.cc"));
	assert_int_equal(points(lib, FT_LIB_GLOO, FT_OP_ALLREDUCE, "gloo::allreduce("), 1);
	assert_int_equal(points(lib, FT_LIB_GLOO, FT_OP_BCAST, "gloo::broadcast("), 1);
	/* a library named like Gloo but without its symbols: nothing to attach */
	write_file(tpath("decoy.c"), "int gloo_version(void) { return 1; }\n");
	sh("gcc -O2 -shared -fPIC -Wl,-soname,libgloo.so.0 -o '%s' '%s'", decoy, tpath("decoy.c"));
	assert_int_equal(points(decoy, FT_LIB_GLOO, FT_OP_ALLREDUCE, NULL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nccl_in_libtorch_cuda),
		cmocka_unit_test(test_gloo_in_libtorch_cpu),
	};

	return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
