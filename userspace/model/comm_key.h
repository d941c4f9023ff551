/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The cross-rank key of a collective call: which communicator it ran on, in
 * a form that is equal in every process of the job, and its number on that
 * communicator.  Collectives are instances of (key, seq) across processes.
 *
 * The kind of a communicator value is decided by the library that produced
 * it (the slot's FT_SLOT_COMM_* bits), never by its magnitude: a non-PIE
 * process's heap pointer fits in 32 bits as well as an MPICH handle does.
 */
#ifndef FABTRACE_COMM_KEY_H
#define FABTRACE_COMM_KEY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum corr_comm_kind {
	CORR_COMM_NONE = 0,         /* no communicator argument (comm 0) */
	CORR_COMM_HANDLE,           /* a value equal on every rank (MPICH's handles, NCCL's comm hash) */
	CORR_COMM_POINTER,          /* a per-process pointer (Open MPI, NCCL): canonical key */
	CORR_COMM_LIBSEQ,           /* numbered by the library itself (Gloo's tag): (size, tag) */
	CORR_COMM_NAMED,            /* a pointer whose object carries a name equal on every rank (Open MPI) */
};

/* One collective call as the key needs it. */
struct comm_key_in {
	uint64_t comm;              /* the call's communicator value, 0 none */
	uint64_t seq;               /* per-(process, comm) count, or the library's number + 1 */
	uint64_t start_ns;
	uint32_t pid;
	uint32_t slot_flags;        /* enum ft_slot_flags of its slot (FT_SLOT_COMM_*) */
	uint32_t size;              /* the communicator's size where known, else 0 */
	bool lib_seq;               /* seq is the library's own (FT_PHASE_LIB_SEQ) */
	const char *name;           /* the communicator's name as the library keeps it, NULL or "" none */
	uint64_t job;               /* the process's job (FT_SLOT_JOB), 0 unknown */
	bool plugin;                /* an NCCL profiler plugin record: comm is NCCL's comm hash */
	uint32_t op;                /* enum ft_op: the plugin's seqNumber counts per function */
};

struct comm_key {
	uint32_t kind;              /* enum corr_comm_kind */
	uint32_t size;              /* POINTER, LIBSEQ: the communicator's size (0 unknown) */
	uint32_t order;             /* POINTER: order of first use in the process; LIBSEQ: see .c */
	uint64_t handle;            /* HANDLE: the handle; NAMED: a hash of the name */
	uint64_t seq;               /* the number to match across ranks (>= 1) */
	uint64_t job;               /* part of every key: two jobs never match (0 = unknown) */
};

/*
 * The kind of one call's communicator from its slot's FT_SLOT_COMM_* bits
 * alone (a LIBSEQ call may still be keyed POINTER by comm_key__build, when
 * its caller left every tag at one value).
 */
uint32_t comm_key__kind(uint32_t slot_flags, uint64_t comm, bool lib_seq);

/* Fill OUT[i] for IN[i], i < N.  0 or -ENOMEM. */
int comm_key__build(const struct comm_key_in *in, size_t n, struct comm_key *out);

#endif
