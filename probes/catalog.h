/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The phase probes' function catalog: which functions of MPI, NCCL, Gloo
 * and the marker library are traced, what operation each one is, and where
 * each keeps its count, datatype, communicator, peer and request (turned
 * into a struct ph_slot_cfg for bpf/phase.bpf.c).  Also the parsing of
 * `--phase LIB:SYMBOL[=NAME]`.
 *
 * Matching is on the ELF's defined function symbols (probes/elfsyms.h):
 * C functions by exact name, C++ ones by demangled prefix (and suffix).
 * Aliases at one offset (MPI_Allreduce / PMPI_Allreduce) give one point.
 */
#ifndef FABTRACE_CATALOG_H
#define FABTRACE_CATALOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/phase.h"

struct elf_syms;

/* One argument as the catalog describes it: position + 1 (0 = none). */
struct cat_arg {
	uint8_t  pos1;   /* integer argument slot + 1; 0 = the function has none */
	uint8_t  flags;  /* enum ph_field_flags */
	uint16_t off;    /* PH_F_DEREF: offset in the pointed-to struct */
};

/* A function the phase probes know. */
struct cat_func {
	const char *symbol;  /* exact C name, or a demangled prefix when prefix */
	const char *suffix;  /* prefix match: the demangled name must end with this (or NULL) */
	bool prefix;
	uint8_t lib;         /* enum ft_lib_kind */
	uint8_t op;          /* enum ft_op */
	uint8_t kind;        /* enum ph_kind */
	uint8_t comp;        /* enum ph_comp (completion calls) */
	uint8_t dtype_kind;  /* enum ph_dtype; MPI entries get theirs from the flavor */
	uint16_t ctx_off;    /* PH_CFG_CTX_INFO */
	uint32_t slot_flags; /* enum ft_slot_flags */
	uint32_t cfg;        /* enum ph_cfg_flags (flavor bits are added) */
	const char *name;    /* display name, e.g. "allreduce" */
	struct cat_arg count, vcounts, dtype, comm, peer, req, out, rank, nranks,
		       reqs, nreqs, flag, index, indices, mark, libseq;
};

/* How an MPI library represents handles. */
enum cat_mpi_flavor {
	CAT_MPI_MPICH = 0, /* MPICH ABI (MPICH, Intel MPI, MVAPICH): int handles */
	CAT_MPI_OMPI  = 1, /* Open MPI: pointers to ompi_*_t objects */
};

/* The display names of a Gloo operation's timeout, and of PyTorch ProcessGroupGloo's failed work. */
#define CATALOG_GLOO_TIMEOUT "gloo_timeout"
#define CATALOG_GLOO_ERROR "gloo_error"

size_t catalog__count(void);
const struct cat_func *catalog__get(size_t i);
/* The entry whose symbol is exactly SYMBOL (the catalog's own key), or NULL. */
const struct cat_func *catalog__find(const char *symbol);
/*
 * Could the symbol NAME (LEN bytes, as in the file) match any entry, or be
 * needed to tell the MPI flavor?  A cheap test on the undemangled name, for
 * elf_syms__open_filtered(); no false negatives, some false positives.
 */
bool catalog__may_match(const char *name, size_t len, void *ctx);
/* Does a symbol (name as in the file, and demangled) match the entry? */
bool catalog__matches(const struct cat_func *f, const char *name, const char *demangled);
/* Datatype bytes of a handle/enum value as the BPF side computes them. */
uint32_t catalog__dtype_size(enum ph_dtype kind, uint64_t v);

/* The BPF slot layout of an entry for a library of the given MPI flavor. */
void catalog__cfg(const struct cat_func *f, enum cat_mpi_flavor flavor, struct ph_slot_cfg *out);
/* The layout of a generic --phase function (entry..return, nothing read). */
void catalog__generic_cfg(struct ph_slot_cfg *out);

/* One attach point found in a library. */
struct cat_point {
	uint64_t offset;
	uint8_t lib;          /* enum ft_lib_kind */
	uint8_t op;           /* enum ft_op */
	uint32_t slot_flags;
	char symbol[96];      /* demangled, truncated */
	char name[32];
	struct ph_slot_cfg cfg;
};

struct cat_plan {
	struct cat_point *pts;
	size_t n, cap;
	enum cat_mpi_flavor flavor;
};

void cat_plan__free(struct cat_plan *p);
/*
 * Every catalog function defined in the library S (one point per offset).
 * 0 or -ENOMEM.  p->n == 0: nothing to trace in it.
 */
int catalog__plan(const struct elf_syms *s, struct cat_plan *p);

/* `--phase LIB:SYMBOL[=NAME]` */
struct phase_spec {
	char lib[256];     /* path or soname */
	char symbol[256];  /* C name, mangled name, or demangled C++ prefix */
	char name[32];     /* display name ("" = the symbol) */
};

/* 0, or -EINVAL with a one-line reason in ERR (without the spec itself). */
int phase_spec__parse(const char *s, struct phase_spec *out, char *err, size_t errlen);
/*
 * Add the points SPEC names in S to P: the exact symbol (name or full
 * demangled name), else, for a C++-looking SYMBOL (with "::" or "("),
 * every function whose demangled name starts with it (at most 64).
 * Returns the number of points added (0 = symbol not found) or -ENOMEM.
 */
int catalog__plan_spec(const struct elf_syms *s, const struct phase_spec *spec, struct cat_plan *p);

/*
 * Display name of a --phase SYMBOL without NAME: up to '(', leading C++
 * scopes dropped until it fits LEN ("gloo::transport::tcp::Pair::send(" ->
 * "transport::tcp::Pair::send").
 */
void catalog__short_name(const char *symbol, char *out, size_t len);

/* Name of an op / lib kind for messages ("allreduce", "MPI"). */
const char *catalog__op_name(unsigned op);
const char *catalog__lib_name(unsigned lib);

#endif
