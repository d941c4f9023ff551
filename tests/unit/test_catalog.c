// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for probes/catalog.c: the phase function catalog and --phase specs. */
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

#include "probes/catalog.h"
#include "probes/elfsyms.h"

#define MPICH_LIB "/usr/lib/x86_64-linux-gnu/libmpich.so.12"

static const struct cat_func *must_find(const char *sym)
{
	const struct cat_func *f = catalog__find(sym);

	if (!f)
		fail_msg("catalog has no %s", sym);
	return f;
}

static void test_entries_sane(void **state)
{
	(void)state;
	assert_true(catalog__count() > 50);
	for (size_t i = 0; i < catalog__count(); i++) {
		const struct cat_func *f = catalog__get(i);

		assert_non_null(f->symbol);
		assert_non_null(f->name);
		assert_true(strlen(f->name) > 0 && strlen(f->name) < 32);
		assert_true(f->op > FT_OP_NONE && f->op < FT_OP_MAX);
		/* keys are unique */
		for (size_t j = i + 1; j < catalog__count(); j++)
			if (strcmp(f->symbol, catalog__get(j)->symbol) == 0)
				fail_msg("%s twice in the catalog", f->symbol);
		/* non-blocking starts have a request, completions their requests */
		if (f->slot_flags & FT_SLOT_NONBLOCKING)
			assert_true(f->req.pos1 != 0);
		if (f->kind == PH_K_COMPLETION)
			assert_true(f->reqs.pos1 != 0 && (f->slot_flags & FT_SLOT_COMPLETION));
		/* NCCL returns at enqueue: every NCCL slot says so, except the profiler
		 * plugin's, which carry the times NCCL ran the collective */
		if (f->lib == FT_LIB_NCCL)
			assert_true(!(f->slot_flags & FT_SLOT_ENQUEUE_ONLY) == !!(f->slot_flags & FT_SLOT_PLUGIN));
		if (f->kind == PH_K_PLUGIN)
			assert_true(f->lib == FT_LIB_NCCL && (f->slot_flags & FT_SLOT_PLUGIN));
		if (f->prefix)
			assert_int_equal(f->lib, FT_LIB_GLOO);
		if (f->kind == PH_K_MARK)
			assert_int_equal(f->lib, FT_LIB_MARKER);
	}
	assert_null(catalog__get(catalog__count()));
	assert_null(catalog__find("MPI_Nonexistent"));
}

static void test_required_functions(void **state)
{
	static const char *const mpi[] = {
		"Allreduce", "Reduce_scatter", "Reduce_scatter_block", "Allgather", "Allgatherv",
		"Bcast", "Reduce", "Alltoall", "Alltoallv", "Barrier", "Gather", "Scatter", "Send",
		"Recv", "Sendrecv", "Iallreduce", "Ireduce_scatter", "Ireduce_scatter_block",
		"Iallgather", "Ibcast", "Ireduce", "Ialltoall", "Ibarrier", "Wait", "Waitall",
		"Waitany", "Waitsome", "Test", "Testall", "Testany", "Testsome", "Comm_rank",
		"Comm_size",
	};
	static const char *const nccl[] = {
		"ncclAllReduce", "ncclReduceScatter", "ncclAllGather", "ncclBroadcast", "ncclReduce",
		"ncclSend", "ncclRecv", "ncclGroupStart", "ncclGroupEnd", "ncclCommInitRank",
		"ncclCommInitRankConfig", "ncclCommInitRankScalable", "ncclCommSplit", "ncclCommShrink",
		"ncclCommInitAll", "ncclCommDestroy", "ncclCommAbort", "ncclCommFinalize", "ncclAlltoAll",
		"ncclGather", "ncclScatter",
		/* the profiler plugin's functions */
		"fabtrace_nccl_comm", "fabtrace_nccl_allreduce", "fabtrace_nccl_send", "fabtrace_nccl_proxy_op",
	};
	static const char *const other[] = {
		"gloo::allreduce(", "gloo::allgather(", "gloo::allgatherv(", "gloo::broadcast(",
		"gloo::reduce(", "gloo::reduce_scatter", "gloo::alltoall(", "gloo::barrier(",
		"gloo::AllreduceRing<", "fabtrace_step_begin", "fabtrace_step_end",
		"fabtrace_phase_begin", "fabtrace_phase_end",
	};
	char name[64];

	(void)state;
	for (size_t i = 0; i < sizeof(mpi) / sizeof(mpi[0]); i++) {
		snprintf(name, sizeof(name), "MPI_%s", mpi[i]);
		assert_int_equal(must_find(name)->lib, FT_LIB_MPI);
	}
	for (size_t i = 0; i < sizeof(nccl) / sizeof(nccl[0]); i++)
		assert_int_equal(must_find(nccl[i])->lib, FT_LIB_NCCL);
	for (size_t i = 0; i < sizeof(other) / sizeof(other[0]); i++)
		must_find(other[i]);
	assert_int_equal(must_find("MPI_Allreduce")->op, FT_OP_ALLREDUCE);
	assert_true(must_find("MPI_Allreduce")->slot_flags & FT_SLOT_COLLECTIVE);
	assert_false(must_find("MPI_Send")->slot_flags & FT_SLOT_COLLECTIVE);
	assert_true(must_find("MPI_Iallreduce")->slot_flags & FT_SLOT_NONBLOCKING);
	assert_int_equal(must_find("fabtrace_step_begin")->op, FT_OP_STEP);
	assert_int_equal(must_find("fabtrace_phase_end")->op, FT_OP_MARK);
}

static void test_matches(void **state)
{
	const struct cat_func *ar = must_find("MPI_Allreduce");
	const struct cat_func *g = must_find("gloo::allreduce(");
	const struct cat_func *ring = must_find("gloo::AllreduceRing<");
	const struct cat_func *bar = must_find("gloo::BarrierAllToAll::run(");

	(void)state;
	assert_true(catalog__matches(ar, "MPI_Allreduce", "MPI_Allreduce"));
	assert_true(catalog__matches(ar, "PMPI_Allreduce", "PMPI_Allreduce"));
	assert_false(catalog__matches(ar, "MPI_Allreduce_init", "MPI_Allreduce_init"));
	assert_false(catalog__matches(ar, "PMPI_Iallreduce", "PMPI_Iallreduce"));
	assert_false(catalog__matches(must_find("ncclAllReduce"), "PncclAllReduce", "PncclAllReduce"));
	assert_true(catalog__matches(g, "_ZN4gloo9allreduceERKNS_16AllreduceOptionsE",
				     "gloo::allreduce(gloo::AllreduceOptions const&)"));
	assert_false(catalog__matches(g, "_ZN4gloo4xxx", "gloo::allreduce_local(int)"));
	assert_false(catalog__matches(g, "x", NULL));
	assert_true(catalog__matches(ring, "m", "gloo::AllreduceRing<float>::run()"));
	assert_false(catalog__matches(ring, "m", "gloo::AllreduceRing<float>::~AllreduceRing()"));
	assert_false(catalog__matches(ring, "m", "gloo::AllreduceRingChunked<float>::run()"));
	assert_true(catalog__matches(bar, "m", "gloo::BarrierAllToAll::run()"));
}

static void test_cfg_mpich(void **state)
{
	struct ph_slot_cfg c;

	(void)state;
	catalog__cfg(must_find("MPI_Allreduce"), CAT_MPI_MPICH, &c);
	assert_int_equal(c.kind, PH_K_CALL);
	assert_int_equal(c.op, FT_OP_ALLREDUCE);
	assert_int_equal(c.count.arg, 2);
	assert_true(c.count.flags & PH_F_SIGNED);
	assert_false(c.count.flags & PH_F_64);
	assert_int_equal(c.dtype.arg, 3);
	assert_int_equal(c.dtype_kind, PH_DT_MPICH);
	assert_int_equal(c.comm.arg, 5);
	assert_int_equal(c.comm.flags, 0); /* an int handle: the upper register half is junk */
	assert_int_equal(c.peer.arg, PH_NOARG);
	assert_int_equal(c.req.arg, PH_NOARG);
	assert_int_equal(c.req_null, 0x2c000000u);
	assert_false(c.cfg & PH_CFG_REQ64);
	/* arguments past the sixth come from the stack */
	catalog__cfg(must_find("MPI_Alltoallv"), CAT_MPI_MPICH, &c);
	assert_int_equal(c.comm.arg, 8);
	assert_int_equal(c.vcounts.arg, 1);
	assert_int_equal(c.count.arg, PH_NOARG);
	catalog__cfg(must_find("MPI_Sendrecv"), CAT_MPI_MPICH, &c);
	assert_int_equal(c.comm.arg, 10);
	catalog__cfg(must_find("MPI_Gather"), CAT_MPI_MPICH, &c);
	assert_int_equal(c.peer.arg, 6);
	assert_int_equal(c.comm.arg, 7);
	catalog__cfg(must_find("MPI_Ireduce"), CAT_MPI_MPICH, &c);
	assert_int_equal(c.req.arg, 7);
	assert_int_equal(c.req.flags, PH_F_64);
	catalog__cfg(must_find("MPI_Allgatherv"), CAT_MPI_MPICH, &c);
	assert_true(c.cfg & PH_CFG_VFALLBACK);
	assert_int_equal(c.vcounts.arg, 4);
	assert_int_equal(c.count.arg, 1);
	/* completion */
	catalog__cfg(must_find("MPI_Waitsome"), CAT_MPI_MPICH, &c);
	assert_int_equal(c.kind, PH_K_COMPLETION);
	assert_int_equal(c.comp, PH_COMP_SOME);
	assert_int_equal(c.nreqs.arg, 0);
	assert_int_equal(c.reqs.arg, 1);
	assert_int_equal(c.index.arg, 2);
	assert_int_equal(c.indices.arg, 3);
	catalog__cfg(must_find("MPI_Test"), CAT_MPI_MPICH, &c);
	assert_true(c.cfg & PH_CFG_TEST);
	assert_true(c.cfg & PH_CFG_NO_PHASE); /* Test is polled: no phase per call */
	assert_int_equal(c.flag.arg, 1);
	catalog__cfg(must_find("MPI_Wait"), CAT_MPI_MPICH, &c);
	assert_false(c.cfg & (PH_CFG_TEST | PH_CFG_NO_PHASE));
	catalog__cfg(must_find("MPI_Comm_size"), CAT_MPI_MPICH, &c);
	assert_int_equal(c.kind, PH_K_COMM_SIZE);
	assert_int_equal(c.out.arg, 1);
}

static void test_cfg_ompi(void **state)
{
	struct ph_slot_cfg c;

	(void)state;
	catalog__cfg(must_find("MPI_Bcast"), CAT_MPI_OMPI, &c);
	assert_int_equal(c.comm.arg, 4);
	assert_int_equal(c.comm.flags, PH_F_64);
	assert_int_equal(c.dtype.arg, 2);
	assert_int_equal(c.dtype.flags, PH_F_64 | PH_F_DEREF);
	assert_int_equal(c.dtype.off, 24);
	assert_int_equal(c.dtype_kind, PH_DT_SIZE);
	assert_int_equal(c.peer.arg, 3);
	assert_true(c.cfg & PH_CFG_REQ64);
	assert_int_equal(c.req_null, 0);
}

static void test_cfg_nccl_gloo_marker(void **state)
{
	struct ph_slot_cfg c;

	(void)state;
	catalog__cfg(must_find("ncclAllReduce"), CAT_MPI_MPICH, &c);
	assert_int_equal(c.count.arg, 2);
	assert_int_equal(c.count.flags, PH_F_64);
	assert_int_equal(c.dtype_kind, PH_DT_NCCL);
	assert_int_equal(c.comm.arg, 5);
	assert_int_equal(c.comm.flags, PH_F_64);
	assert_true(c.slot_flags & FT_SLOT_ENQUEUE_ONLY);
	assert_int_equal(c.req_null, 0);
	catalog__cfg(must_find("ncclReduce"), CAT_MPI_MPICH, &c);
	assert_int_equal(c.peer.arg, 5);
	assert_int_equal(c.comm.arg, 6);
	catalog__cfg(must_find("ncclCommInitRank"), CAT_MPI_MPICH, &c);
	assert_int_equal(c.kind, PH_K_COMM_INIT);
	assert_int_equal(c.out.arg, 0);
	assert_int_equal(c.nranks.arg, 1);
#if defined(__x86_64__)
	assert_int_equal(c.rank.arg, 2); /* the 128-byte ncclUniqueId goes in memory */
#endif
	catalog__cfg(must_find("gloo::allreduce("), CAT_MPI_MPICH, &c);
	assert_int_equal(c.count.flags, PH_F_64 | PH_F_DEREF);
	assert_int_equal(c.count.off, 80);
	assert_int_equal(c.dtype.off, 88);
	assert_int_equal(c.dtype_kind, PH_DT_SIZE);
	assert_true(c.cfg & PH_CFG_CTX_INFO);
	assert_int_equal(c.ctx_off, 8);
	catalog__cfg(must_find("gloo::AllreduceRing<"), CAT_MPI_MPICH, &c);
	assert_int_equal(c.dtype_kind, PH_DT_RATIO);
	assert_int_equal(c.comm.off, 8);
	catalog__cfg(must_find("fabtrace_phase_begin"), CAT_MPI_MPICH, &c);
	assert_int_equal(c.kind, PH_K_MARK);
	assert_true(c.cfg & PH_CFG_MARK_STR);
	assert_false(c.cfg & PH_CFG_MARK_END);
	assert_int_equal(c.name.arg, 0);
	catalog__cfg(must_find("fabtrace_step_end"), CAT_MPI_MPICH, &c);
	assert_true(c.cfg & PH_CFG_MARK_END);
	assert_int_equal(c.count.arg, 0);
	catalog__generic_cfg(&c);
	assert_int_equal(c.kind, PH_K_CALL);
	assert_int_equal(c.op, FT_OP_CUSTOM);
	assert_int_equal(c.count.arg, PH_NOARG);
	assert_int_equal(c.comm.arg, PH_NOARG);
}

static void test_dtype_sizes(void **state)
{
	(void)state;
	/* MPICH builtin handles (mpi.h of MPICH 4) */
	assert_int_equal(catalog__dtype_size(PH_DT_MPICH, 0x4c000101), 1); /* MPI_CHAR */
	assert_int_equal(catalog__dtype_size(PH_DT_MPICH, 0x4c000405), 4); /* MPI_INT */
	assert_int_equal(catalog__dtype_size(PH_DT_MPICH, 0x4c000427), 4); /* MPI_INT32_T */
	assert_int_equal(catalog__dtype_size(PH_DT_MPICH, 0x4c00080b), 8); /* MPI_DOUBLE */
	assert_int_equal(catalog__dtype_size(PH_DT_MPICH, 0x4c00100c), 16); /* MPI_LONG_DOUBLE */
	assert_int_equal(catalog__dtype_size(PH_DT_MPICH, 0x0c000000), 0); /* MPI_DATATYPE_NULL */
	assert_int_equal(catalog__dtype_size(PH_DT_MPICH, 0x8c000003), 0); /* a derived type */
	assert_int_equal(catalog__dtype_size(PH_DT_MPICH, 0x44000000), 0); /* a comm, not a type */
	assert_int_equal(catalog__dtype_size(PH_DT_MPICH, 0xffffffff4c000405ull), 4);
	/* NCCL */
	static const uint32_t nccl[] = { 1, 1, 4, 4, 8, 8, 2, 4, 8, 2, 1, 1 };
	for (uint32_t e = 0; e < 12; e++)
		assert_int_equal(catalog__dtype_size(PH_DT_NCCL, e), nccl[e]);
	assert_int_equal(catalog__dtype_size(PH_DT_NCCL, 12), 0);
	assert_int_equal(catalog__dtype_size(PH_DT_NCCL, (uint32_t)-1), 0);
	/* sizes given as such */
	assert_int_equal(catalog__dtype_size(PH_DT_SIZE, 8), 8);
	assert_int_equal(catalog__dtype_size(PH_DT_SIZE, 1ull << 40), 0);
	assert_int_equal(catalog__dtype_size(PH_DT_NONE, 4), 0);
}

static void spec_ok(const char *s, const char *lib, const char *sym, const char *name)
{
	struct phase_spec p;
	char err[160] = "";

	if (phase_spec__parse(s, &p, err, sizeof(err)))
		fail_msg("'%s' rejected: %s", s, err);
	assert_string_equal(p.lib, lib);
	assert_string_equal(p.symbol, sym);
	assert_string_equal(p.name, name);
}

static void spec_bad(const char *s, const char *why)
{
	struct phase_spec p;
	char err[160] = "";

	if (phase_spec__parse(s, &p, err, sizeof(err)) != -EINVAL)
		fail_msg("'%s' accepted", s ? s : "(null)");
	if (!strstr(err, why))
		fail_msg("'%s': error '%s' does not say '%s'", s ? s : "(null)", err, why);
	assert_null(strchr(err, '\n'));
}

static void test_spec_parse(void **state)
{
	char longname[400];

	(void)state;
	spec_ok("libfoo.so:bar", "libfoo.so", "bar", "");
	spec_ok("libfoo.so:bar=baz", "libfoo.so", "bar", "baz");
	spec_ok("/opt/x/libsolver.so.3:solver_step=solve", "/opt/x/libsolver.so.3", "solver_step", "solve");
	spec_ok("libgloo.so.0:gloo::allreduce(", "libgloo.so.0", "gloo::allreduce(", "");
	spec_ok("libgloo.so.0:gloo::allreduce(gloo::AllreduceOptions const&)=ar", "libgloo.so.0",
		"gloo::allreduce(gloo::AllreduceOptions const&)", "ar");
	/* operator= is part of the symbol, not a NAME */
	spec_ok("libx.so:ns::T::operator=(ns::T const&)", "libx.so", "ns::T::operator=(ns::T const&)", "");
	spec_ok("libx.so:a=b=c", "libx.so", "a=b", "c");
	spec_ok("libx.so:f=step-1.2_x", "libx.so", "f", "step-1.2_x");
	spec_bad(NULL, "empty");
	spec_bad("", "empty");
	spec_bad("libfoo.so", "no ':'");
	spec_bad(":bar", "no library");
	spec_bad("libfoo.so:", "no symbol");
	spec_bad("libfoo.so:=x", "no symbol");
	spec_bad("libfoo.so:bar=", "empty NAME");
	spec_bad("libfoo.so:f=a b", "NAME 'a b' has ' '"); /* not "symbol contains white space" */
	spec_bad("libfoo.so:bar=a_name_that_is_longer_than_31_chars", "too long");
	spec_bad("libfoo.so:two words", "white space");
	memset(longname, 'a', sizeof(longname));
	longname[300] = ':';
	longname[301] = 'f';
	longname[302] = 0;
	spec_bad(longname, "too long");
}

static void test_short_name(void **state)
{
	char out[32];

	(void)state;
	catalog__short_name("fttest_work", out, sizeof(out));
	assert_string_equal(out, "fttest_work");
	catalog__short_name("gloo::allreduce(gloo::AllreduceOptions const&)", out, sizeof(out));
	assert_string_equal(out, "gloo::allreduce");
	catalog__short_name("gloo::transport::tcp::Pair::send(", out, sizeof(out));
	assert_string_equal(out, "transport::tcp::Pair::send");
	catalog__short_name("a_plain_c_function_name_that_is_far_too_long", out, sizeof(out));
	assert_int_equal(strlen(out), 31);
	assert_string_equal(out, "ction_name_that_is_far_too_long");
}

/* Against the real MPICH of this system (skipped where it is not installed). */
/* The plan of a library read through catalog__may_match equals its plan from every symbol. */
static void plan_same_filtered(const char *path, size_t min_points, size_t *libs)
{
	struct cat_plan all = {0}, some = {0};
	struct elf_syms *s = NULL, *f = NULL;
	char err[160];

	if (access(path, R_OK) != 0)
		return;
	(*libs)++;
	assert_int_equal(elf_syms__open(path, &s, err, sizeof(err)), 0);
	assert_int_equal(elf_syms__open_filtered(path, catalog__may_match, NULL, &f, err, sizeof(err)), 0);
	assert_true(elf_syms__count(f) < elf_syms__count(s));
	assert_int_equal(catalog__plan(s, &all), 0);
	assert_int_equal(catalog__plan(f, &some), 0);
	if (all.n < min_points)
		fail_msg("%s: %zu catalog points, want >= %zu", path, all.n, min_points);
	assert_int_equal(some.n, all.n);
	assert_int_equal(some.flavor, all.flavor);
	for (size_t i = 0; i < all.n; i++) {
		assert_int_equal(some.pts[i].offset, all.pts[i].offset);
		assert_string_equal(some.pts[i].symbol, all.pts[i].symbol);
		assert_memory_equal(&some.pts[i].cfg, &all.pts[i].cfg, sizeof(all.pts[i].cfg));
	}
	cat_plan__free(&all);
	cat_plan__free(&some);
	elf_syms__close(s);
	elf_syms__close(f);
}

static void test_plan_filtered(void **state)
{
	size_t libs = 0;
	char mark[] = "_ZN4gloo9allreduceERKNS_16AllreduceOptionsE";

	(void)state;
	/* the marks: a whole source name with its length, or the bare prefix end */
	assert_true(catalog__may_match(mark, strlen(mark), NULL));
	assert_false(catalog__may_match("_ZN4gloo9broadcasX", 18, NULL));
	assert_true(catalog__may_match("_ZN4gloo14reduce_scatterIfEEvRNS_20ReduceScatterOptionsE", 55, NULL));
	assert_true(catalog__may_match("_ZN4gloo13AllreduceRingIfE3runEv", 32, NULL));
	assert_true(catalog__may_match("PMPI_Allreduce", 14, NULL));
	assert_true(catalog__may_match("MPI_Allreduce@@MPI_1.0", 13, NULL)); /* LEN stops at the version */
	assert_false(catalog__may_match("MPI_Allreduc", 12, NULL));
	assert_false(catalog__may_match("memcpy", 6, NULL));
	assert_true(catalog__may_match("ompi_comm_rank", 14, NULL));
	plan_same_filtered(MPICH_LIB, 33, &libs);
	plan_same_filtered("/usr/lib/x86_64-linux-gnu/libmpi.so.40", 33, &libs);
	plan_same_filtered("/lib/libgloo.so.0", 10, &libs);
	plan_same_filtered("/usr/lib/x86_64-linux-gnu/libtorch_cpu.so.1.13", 0, &libs);
	if (!libs)
		skip();
}

static void test_plan_mpich(void **state)
{
	struct cat_plan plan = {0};
	struct phase_spec spec;
	struct elf_syms *s = NULL;
	const struct elf_sym *ar, *par;
	char err[160];
	bool seen_ar = false;

	(void)state;
	if (access(MPICH_LIB, R_OK) != 0)
		skip();
	assert_int_equal(elf_syms__open(MPICH_LIB, &s, err, sizeof(err)), 0);
	assert_int_equal(catalog__plan(s, &plan), 0);
	assert_int_equal(plan.flavor, CAT_MPI_MPICH);
	assert_true(plan.n >= 33);
	ar = elf_syms__find(s, "MPI_Allreduce");
	par = elf_syms__find(s, "PMPI_Allreduce");
	assert_non_null(ar);
	assert_non_null(par);
	assert_int_equal(ar->offset, par->offset); /* one point for both */
	for (size_t i = 0; i < plan.n; i++) {
		const struct cat_point *pt = &plan.pts[i];

		assert_int_equal(pt->lib, FT_LIB_MPI);
		assert_true(strncmp(pt->symbol, "MPI_", 4) == 0);
		for (size_t j = i + 1; j < plan.n; j++)
			assert_true(pt->offset != plan.pts[j].offset);
		if (strcmp(pt->symbol, "MPI_Allreduce") == 0) {
			seen_ar = true;
			assert_int_equal(pt->offset, ar->offset);
			assert_string_equal(pt->name, "allreduce");
			assert_int_equal(pt->cfg.dtype_kind, PH_DT_MPICH);
		}
	}
	assert_true(seen_ar);
	/* --phase on the same library: exact names, and unknown ones */
	assert_int_equal(phase_spec__parse("libmpich.so.12:MPI_Allreduce=ar", &spec, err, sizeof(err)), 0);
	assert_int_equal(catalog__plan_spec(s, &spec, &plan), 1); /* found; traced already */
	assert_int_equal(phase_spec__parse("libmpich.so.12:MPI_Comm_split=split", &spec, err, sizeof(err)), 0);
	assert_int_equal(catalog__plan_spec(s, &spec, &plan), 1);
	assert_string_equal(plan.pts[plan.n - 1].name, "split");
	assert_int_equal(plan.pts[plan.n - 1].lib, FT_LIB_GENERIC);
	assert_int_equal(plan.pts[plan.n - 1].op, FT_OP_CUSTOM);
	assert_int_equal(phase_spec__parse("libmpich.so.12:MPI_No_such_function", &spec, err, sizeof(err)), 0);
	assert_int_equal(catalog__plan_spec(s, &spec, &plan), 0);
	/* a C name is never matched as a prefix */
	assert_int_equal(phase_spec__parse("libmpich.so.12:MPI_Allred", &spec, err, sizeof(err)), 0);
	assert_int_equal(catalog__plan_spec(s, &spec, &plan), 0);
	cat_plan__free(&plan);
	elf_syms__close(s);
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(catalog__op_name(FT_OP_ALLREDUCE), "allreduce");
	assert_string_equal(catalog__op_name(FT_OP_CUSTOM), "custom");
	assert_string_equal(catalog__op_name(FT_OP_MAX), "?");
	assert_string_equal(catalog__lib_name(FT_LIB_NCCL), "NCCL");
	assert_string_equal(catalog__lib_name(99), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_entries_sane),
		cmocka_unit_test(test_required_functions),
		cmocka_unit_test(test_matches),
		cmocka_unit_test(test_cfg_mpich),
		cmocka_unit_test(test_cfg_ompi),
		cmocka_unit_test(test_cfg_nccl_gloo_marker),
		cmocka_unit_test(test_dtype_sizes),
		cmocka_unit_test(test_spec_parse),
		cmocka_unit_test(test_short_name),
		cmocka_unit_test(test_plan_mpich),
		cmocka_unit_test(test_plan_filtered),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
