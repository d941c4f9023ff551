// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Cross-rank communicator keys (see comm_key.h).
 *
 * HANDLE: MPICH's integer handles are the same in every process, and so is
 *   the comm hash in the NCCL profiler plugin's records (corr_plugin.h),
 *   whose seqNumber counts per communicator and function (order = op).
 * POINTER: Open MPI's and NCCL's communicator objects are per-process
 *   pointers; the key is the communicator's size and the order in which the
 *   process first used it, and the count is the process's own (seq_align.c
 *   shifts it where the probes attached mid-run).
 * NAMED: Open MPI names each communicator the same on all its ranks
 *   ("MPI_COMM_WORLD", "MPI COMMUNICATOR 3 DUP FROM 0": the context id the
 *   ranks agreed on, and where it came from), and the probe reads the name
 *   out of the object.  The key is (size, name), which holds however the
 *   processes ordered their first use.  The names of a process are trusted
 *   only when one of them has Open MPI's own form (proof that the object
 *   layout the probe assumed is this library's); else the calls stay POINTER.
 *   The count is the process's own, shifted by seq_align.c when attached.
 * LIBSEQ: Gloo's callers number their collectives themselves (the options'
 *   tag).  PyTorch's ProcessGroupGloo takes the tag from one counter per
 *   process group, whichever of the group's contexts and worker threads runs
 *   the collective, so (context size, tag) names the same collective on
 *   every rank, from the start or attached mid-run, and the context pointer
 *   (different in every process) is no part of the key.  Two groups of the
 *   same size reuse tags: a process's calls with equal (size, tag) are told
 *   apart by their order in time (order).  A caller that leaves every tag
 *   at its default (one value on all of a context's calls) has not numbered
 *   them; those calls are keyed as POINTER.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/fabtrace.h"
#include "lib/hash.h"
#include "userspace/model/comm_key.h"

static int cmp_u64(uint64_t a, uint64_t b) { return a < b ? -1 : a > b; }

/* Order of IN's indices: by (pid, comm, start). */
static int cmp_pid_comm(const void *a, const void *b, void *arg)
{
	const struct comm_key_in *in = arg, *x = &in[*(const uint32_t *)a], *y = &in[*(const uint32_t *)b];
	int c = cmp_u64(x->pid, y->pid);

	if (!c)
		c = cmp_u64(x->comm, y->comm);
	if (!c)
		c = cmp_u64(x->start_ns, y->start_ns);
	return c ? c : cmp_u64(*(const uint32_t *)a, *(const uint32_t *)b);
}

/* Order of OUT's LIBSEQ indices: by (pid, size, seq, start). */
struct libseq_ctx {
	const struct comm_key_in *in;
	const struct comm_key *out;
};

static int cmp_libseq(const void *a, const void *b, void *arg)
{
	const struct libseq_ctx *lc = arg;
	uint32_t ia = *(const uint32_t *)a, ib = *(const uint32_t *)b;
	int c = cmp_u64(lc->in[ia].pid, lc->in[ib].pid);

	if (!c)
		c = cmp_u64(lc->out[ia].size, lc->out[ib].size);
	if (!c)
		c = cmp_u64(lc->out[ia].seq, lc->out[ib].seq);
	if (!c)
		c = cmp_u64(lc->in[ia].start_ns, lc->in[ib].start_ns);
	return c ? c : cmp_u64(ia, ib);
}

uint32_t comm_key__kind(uint32_t slot_flags, uint64_t comm, bool lib_seq)
{
	if (!comm)
		return CORR_COMM_NONE;
	if (slot_flags & FT_SLOT_COMM_HANDLE)
		return CORR_COMM_HANDLE;
	if (slot_flags & FT_SLOT_COMM_POINTER)
		return lib_seq ? CORR_COMM_LIBSEQ : CORR_COMM_POINTER;
	/* a capture from before the slots said: the old rule */
	return comm <= UINT32_MAX ? CORR_COMM_HANDLE : CORR_COMM_POINTER;
}

/*
 * A (process, comm) run of calls [i, j) in IX: LIBSEQ calls whose tags are
 * all one value were not numbered by their caller; count them instead.
 */
static void unnumbered_to_pointer(const struct comm_key_in *in, const uint32_t *ix, size_t i, size_t j,
				  struct comm_key *out)
{
	size_t nlib = 0;
	bool same = true;
	uint64_t first = 0, n = 0;

	for (size_t k = i; k < j; k++) {
		if (out[ix[k]].kind != CORR_COMM_LIBSEQ)
			continue;
		if (!nlib++)
			first = in[ix[k]].seq;
		else if (in[ix[k]].seq != first)
			same = false;
	}
	if (nlib < 2 || !same)
		return;
	for (size_t k = i; k < j; k++) {
		if (out[ix[k]].kind == CORR_COMM_LIBSEQ)
			out[ix[k]].kind = CORR_COMM_POINTER;
		if (out[ix[k]].kind == CORR_COMM_POINTER)
			out[ix[k]].seq = ++n;
	}
}

/*
 * Pointer communicators of one process (IX[i, j), sorted by comm, start):
 * each gets the order of its first pointer call among them.  FIRST has room
 * for j - i entries.
 */
static void assign_first_use(const struct comm_key_in *in, const uint32_t *ix, size_t i, size_t j,
			     struct comm_key *out, uint64_t *first)
{
	size_t nf = 0;

	/* the first pointer call's start of each comm, in comm order */
	for (size_t a = i; a < j;) {
		size_t e = a;

		first[nf] = UINT64_MAX;
		while (e < j && in[ix[e]].comm == in[ix[a]].comm) {
			if (out[ix[e]].kind == CORR_COMM_POINTER && first[nf] == UINT64_MAX)
				first[nf] = in[ix[e]].start_ns;
			e++;
		}
		nf++;
		a = e;
	}
	for (size_t a = i, f = 0; a < j; f++) {
		size_t e = a;
		uint32_t order = 0;

		for (size_t g = 0; g < nf; g++) {
			uint64_t t = first[g];

			/* ties (one start) by comm value: the same in every run */
			order += t != UINT64_MAX && (t < first[f] || (t == first[f] && g < f));
		}
		while (e < j && in[ix[e]].comm == in[ix[a]].comm) {
			if (out[ix[e]].kind == CORR_COMM_POINTER)
				out[ix[e]].order = order;
			e++;
		}
		a = e;
	}
}

/* Open MPI's own names: its predefined communicators and the ones it names when created. */
static bool ompi_own_name(const char *s)
{
	return s && (!strncmp(s, "MPI_COMM_", 9) || !strncmp(s, "MPI COMMUNICATOR ", 17));
}

/*
 * Per process (IX[i, j) of one pid): pointer calls whose communicator
 * carries a name become NAMED, if any of the process's names has Open
 * MPI's own form.
 */
static void trust_names(const struct comm_key_in *in, const uint32_t *ix, size_t i, size_t j,
			struct comm_key *out)
{
	bool trusted = false;

	for (size_t k = i; k < j && !trusted; k++)
		trusted = out[ix[k]].kind == CORR_COMM_POINTER && ompi_own_name(in[ix[k]].name);
	for (size_t k = i; trusted && k < j; k++) {
		const struct comm_key_in *x = &in[ix[k]];

		if (out[ix[k]].kind == CORR_COMM_POINTER && x->name && x->name[0]) {
			out[ix[k]].kind = CORR_COMM_NAMED;
			out[ix[k]].handle = fnv1a_str(x->name); /* equal on every rank */
		}
	}
}

int comm_key__build(const struct comm_key_in *in, size_t n, struct comm_key *out)
{
	uint32_t *ix = malloc((n ? n : 1) * sizeof(*ix));
	uint64_t *first = malloc((n ? n : 1) * sizeof(*first));
	struct libseq_ctx lc = { in, out };
	size_t nl = 0;

	if (!ix || !first) {
		free(ix);
		free(first);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		ix[i] = (uint32_t)i;
		out[i] = (struct comm_key){ .kind = comm_key__kind(in[i].slot_flags, in[i].comm, in[i].lib_seq),
					    .seq = in[i].seq, .job = in[i].job };
		if (in[i].plugin) {
			/* NCCL's comm hash, equal on every rank; seqNumber counts per function */
			out[i].kind = CORR_COMM_HANDLE;
			out[i].handle = in[i].comm;
			out[i].order = in[i].op;
			continue;
		}
		if (out[i].kind == CORR_COMM_HANDLE)
			out[i].handle = in[i].comm;
		if (out[i].kind == CORR_COMM_POINTER || out[i].kind == CORR_COMM_LIBSEQ)
			out[i].size = in[i].size; /* NAMED ones are POINTER here */
	}
	/* per process: unnumbered Gloo calls, then pointers' order of first use */
	qsort_r(ix, n, sizeof(*ix), cmp_pid_comm, (void *)in);
	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j < n && in[ix[j]].pid == in[ix[i]].pid && in[ix[j]].comm == in[ix[i]].comm)
			j++;
		unnumbered_to_pointer(in, ix, i, j, out);
		i = j;
	}
	for (size_t i = 0; i < n;) {
		uint32_t pid = in[ix[i]].pid;
		size_t j = i;

		while (j < n && in[ix[j]].pid == pid)
			j++;
		trust_names(in, ix, i, j, out);
		assign_first_use(in, ix, i, j, out, first);
		i = j;
	}
	/* LIBSEQ: calls of one process with equal (size, tag) in time order */
	for (size_t i = 0; i < n; i++)
		if (out[i].kind == CORR_COMM_LIBSEQ)
			ix[nl++] = (uint32_t)i;
	qsort_r(ix, nl, sizeof(*ix), cmp_libseq, &lc);
	for (size_t i = 0; i < nl; i++) {
		const struct comm_key *p = i ? &out[ix[i - 1]] : NULL;

		if (p && in[ix[i - 1]].pid == in[ix[i]].pid && p->size == out[ix[i]].size &&
		    p->seq == out[ix[i]].seq)
			out[ix[i]].order = p->order + 1;
	}
	free(ix);
	free(first);
	return 0;
}
