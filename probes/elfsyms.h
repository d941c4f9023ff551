/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Function symbols of an ELF file (shared library or executable), read with
 * libelf, as uprobe attach points: the file offset of each function.
 *
 * Both .dynsym and .symtab are read (a stripped library has only .dynsym);
 * versioned names ("MPI_Init@@MPI_1.0") are matched without the version;
 * C++ names are demangled with the C++ runtime's __cxa_demangle so a
 * catalog can match "gloo::allreduce(gloo::AllreduceOptions&)".  Weak and
 * global aliases of one address (MPI_Allreduce / PMPI_Allreduce) are kept
 * as separate symbols with the same offset; callers attach once per offset.
 */
#ifndef FABTRACE_ELFSYMS_H
#define FABTRACE_ELFSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct elf_sym {
	const char *name;       /* as in the file, version suffix removed */
	const char *demangled;  /* C++ demangled name, or == name for C symbols */
	uint64_t offset;        /* file offset of the first instruction (uprobe offset) */
	uint64_t size;
	bool global;            /* STB_GLOBAL (else STB_WEAK; locals are skipped) */
};

struct elf_syms;

/*
 * Read the defined function symbols (STT_FUNC / STT_GNU_IFUNC, non-zero
 * value) of PATH.  0 or -errno with a one-line reason in ERR:
 * -ENOENT no such file, -ENOEXEC not an ELF file or no symbol table.
 */
int elf_syms__open(const char *path, struct elf_syms **out, char *err, size_t errlen);
void elf_syms__close(struct elf_syms *s);

/*
 * Whether a symbol may be wanted, from its name as in the file (LEN bytes,
 * version suffix removed, not NUL terminated there).  Said no, it is never
 * copied nor demangled: a large C++ library (libtorch_cpu: 35,000 exported
 * functions) then costs its string pages for a moment, not megabytes of
 * demangled names.
 */
typedef bool (*elf_sym_filter)(const char *name, size_t len, void *ctx);
/* elf_syms__open() keeping only the symbols KEEP says yes to. */
int elf_syms__open_filtered(const char *path, elf_sym_filter keep, void *ctx, struct elf_syms **out,
			    char *err, size_t errlen);

/* Number of symbols and the i-th one, sorted by name (stable for tests). */
size_t elf_syms__count(const struct elf_syms *s);
const struct elf_sym *elf_syms__get(const struct elf_syms *s, size_t i);

/* Exact match on the (unversioned) name, NULL if absent. */
const struct elf_sym *elf_syms__find(const struct elf_syms *s, const char *name);

/*
 * First symbol whose demangled name starts with PREFIX (e.g.
 * "gloo::allreduce(" ), in name order; *iter carries the position so
 * repeated calls return every match.  Start with *iter = 0.  NULL when done.
 */
const struct elf_sym *elf_syms__next_prefix(const struct elf_syms *s, const char *prefix,
					    size_t *iter);

/* The ELF's DT_SONAME (NULL if none) and DT_NEEDED / DT_RUNPATH / DT_RPATH entries. */
const char *elf_syms__soname(const struct elf_syms *s);
size_t elf_syms__nneeded(const struct elf_syms *s);
const char *elf_syms__needed(const struct elf_syms *s, size_t i);
const char *elf_syms__runpath(const struct elf_syms *s); /* RUNPATH, else RPATH, else NULL */

/*
 * Only the dynamic-section facts above (soname, needed, runpath), no symbols
 * (count 0): cheap enough to walk a DT_NEEDED closure.  Errors as elf_syms__open
 * except that a file without a symbol table is fine.
 */
int elf_syms__open_dynamic(const char *path, struct elf_syms **out, char *err, size_t errlen);
/* DT_RPATH alone (NULL if none), and whether there is a DT_RUNPATH (ld.so then ignores
 * DT_RPATH and searches RUNPATH after LD_LIBRARY_PATH instead of before it). */
const char *elf_syms__rpath(const struct elf_syms *s);
bool elf_syms__has_runpath(const struct elf_syms *s);

/* C++ demangling (NULL if NAME is not a mangled name); free() the result. */
char *elf_demangle(const char *name);

#endif
