// SPDX-License-Identifier: GPL-2.0-or-later
/* Function symbols and dynamic-section facts of an ELF file, with libelf (see elfsyms.h). */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "probes/elfsyms.h"

/* From the C++ runtime (libstdc++ / libc++abi); the result is malloc()ed. */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

#define ARENA_BLOCK ((size_t)64 * 1024)
#define VERSYM_HIDDEN 0x8000 /* .gnu.version: not the default version of the name */

/* All strings of one elf_syms live in a list of blocks, freed together. */
struct arena_blk {
	struct arena_blk *next;
	size_t used, cap;
	char data[];
};

struct sym_ent {
	struct elf_sym pub; /* first: elf_syms__get() hands out &ent->pub */
	bool hidden;        /* a non-default version ("name@VER", versym hidden bit) */
};

struct elf_syms {
	struct sym_ent *syms;
	size_t n, cap;
	const char **needed;
	size_t nneeded, needed_cap;
	const char *soname, *runpath, *rpath;
	struct arena_blk *arena;
};

/* An executable PT_LOAD segment: where symbol addresses map to file offsets. */
struct xseg {
	uint64_t vaddr, filesz, offset;
};

struct reader {
	struct elf_syms *s;
	Elf *elf;
	struct xseg *segs;
	size_t nsegs;
	elf_sym_filter keep;    /* NULL: every function symbol */
	void *keep_ctx;
};

static const char *arena_strndup(struct elf_syms *s, const char *str, size_t len)
{
	struct arena_blk *b = s->arena;
	char *p;

	if (!b || b->cap - b->used < len + 1) {
		size_t cap = len + 1 > ARENA_BLOCK ? len + 1 : ARENA_BLOCK;

		b = malloc(sizeof(*b) + cap);
		if (!b)
			return NULL;
		b->next = s->arena;
		b->used = 0;
		b->cap = cap;
		s->arena = b;
	}
	p = b->data + b->used;
	memcpy(p, str, len);
	p[len] = '\0';
	b->used += len + 1;
	return p;
}

static const char *arena_strdup(struct elf_syms *s, const char *str)
{
	return arena_strndup(s, str, strlen(str));
}

char *elf_demangle(const char *name)
{
	int status = -1;
	char *d;

	if (!name || strncmp(name, "_Z", 2) != 0)
		return NULL;
	d = __cxa_demangle(name, NULL, NULL, &status);
	if (status != 0) {
		free(d);
		return NULL;
	}
	return d;
}

static int seg_offset(const struct reader *r, uint64_t addr, uint64_t *off)
{
	for (size_t i = 0; i < r->nsegs; i++) {
		const struct xseg *g = &r->segs[i];

		if (addr >= g->vaddr && addr - g->vaddr < g->filesz) {
			*off = addr - g->vaddr + g->offset;
			return 0;
		}
	}
	return -ENOENT;
}

/* Fallback when no executable PT_LOAD holds ADDR: the symbol's own section. */
static int section_offset(const struct reader *r, const GElf_Sym *sym, uint64_t *off)
{
	Elf_Scn *scn;
	GElf_Shdr sh;

	if (sym->st_shndx == SHN_UNDEF || sym->st_shndx >= SHN_LORESERVE)
		return -ENOENT;
	scn = elf_getscn(r->elf, sym->st_shndx);
	if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
		return -ENOENT;
	if (sym->st_value < sh.sh_addr || sym->st_value - sh.sh_addr >= sh.sh_size)
		return -ENOENT;
	*off = sym->st_value - sh.sh_addr + sh.sh_offset;
	return 0;
}

static int add_sym(struct reader *r, const char *raw, bool dynsym, bool hidden, const GElf_Sym *sym)
{
	struct elf_syms *s = r->s;
	struct sym_ent *e;
	const char *at = dynsym ? NULL : strchr(raw, '@');
	size_t len = at ? (size_t)(at - raw) : strlen(raw);
	uint64_t off;
	char *dem;

	if (!len)
		return 0;
	if (r->keep && !r->keep(raw, len, r->keep_ctx))
		return 0; /* before the copy and the demangling: the caller cannot use it */
	if (at)
		hidden = at[1] != '@'; /* "name@@VER" is the default version, "name@VER" is not */
	if (seg_offset(r, sym->st_value, &off) && section_offset(r, sym, &off))
		return 0; /* not in the file: nothing to attach to */
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 256;
		struct sym_ent *p = realloc(s->syms, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		s->syms = p;
		s->cap = cap;
	}
	e = &s->syms[s->n];
	memset(e, 0, sizeof(*e));
	e->pub.name = arena_strndup(s, raw, len);
	if (!e->pub.name)
		return -ENOMEM;
	e->pub.demangled = e->pub.name;
	dem = elf_demangle(e->pub.name);
	if (dem) {
		e->pub.demangled = arena_strdup(s, dem);
		free(dem);
		if (!e->pub.demangled)
			return -ENOMEM;
	}
	e->pub.offset = off;
	e->pub.size = sym->st_size;
	e->pub.global = GELF_ST_BIND(sym->st_info) != STB_WEAK;
	e->hidden = hidden;
	s->n++;
	return 0;
}

/* The .gnu.version table that belongs to symbol table SYMSCN, if any. */
static Elf_Data *versym_for(Elf *elf, Elf_Scn *symscn)
{
	size_t want = elf_ndxscn(symscn);
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_GNU_versym && sh.sh_link == want)
			return elf_getdata(scn, NULL);
	}
	return NULL;
}

static int read_symtab(struct reader *r, Elf_Scn *scn, const GElf_Shdr *sh)
{
	bool dynsym = sh->sh_type == SHT_DYNSYM;
	Elf_Data *data = elf_getdata(scn, NULL);
	Elf_Data *vs = dynsym ? versym_for(r->elf, scn) : NULL;
	size_t n;

	if (!data || !sh->sh_entsize)
		return 0;
	n = sh->sh_size / sh->sh_entsize;
	for (size_t i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Versym ver = 0;
		const char *name;
		int type, bind, err;

		if (!gelf_getsym(data, (int)i, &sym))
			break;
		type = GELF_ST_TYPE(sym.st_info);
		bind = GELF_ST_BIND(sym.st_info);
		if (type != STT_FUNC && type != STT_GNU_IFUNC)
			continue;
		if (bind != STB_GLOBAL && bind != STB_WEAK && bind != STB_GNU_UNIQUE)
			continue;
		if (sym.st_shndx == SHN_UNDEF || !sym.st_value)
			continue;
		name = elf_strptr(r->elf, sh->sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		if (vs && !gelf_getversym(vs, (int)i, &ver))
			ver = 0;
		err = add_sym(r, name, dynsym, (ver & VERSYM_HIDDEN) != 0, &sym);
		if (err)
			return err;
	}
	return 0;
}

static int add_needed(struct elf_syms *s, const char *name)
{
	if (s->nneeded == s->needed_cap) {
		size_t cap = s->needed_cap ? s->needed_cap * 2 : 8;
		const char **p = realloc(s->needed, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		s->needed = p;
		s->needed_cap = cap;
	}
	s->needed[s->nneeded] = arena_strdup(s, name);
	if (!s->needed[s->nneeded])
		return -ENOMEM;
	s->nneeded++;
	return 0;
}

static int read_dynamic(struct reader *r, Elf_Scn *scn, const GElf_Shdr *sh)
{
	struct elf_syms *s = r->s;
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n;

	if (!data || !sh->sh_entsize)
		return 0;
	n = sh->sh_size / sh->sh_entsize;
	for (size_t i = 0; i < n; i++) {
		GElf_Dyn dyn;
		const char *str, **dst = NULL;

		if (!gelf_getdyn(data, (int)i, &dyn) || dyn.d_tag == DT_NULL)
			break;
		if (dyn.d_tag != DT_NEEDED && dyn.d_tag != DT_SONAME && dyn.d_tag != DT_RUNPATH &&
		    dyn.d_tag != DT_RPATH)
			continue;
		str = elf_strptr(r->elf, sh->sh_link, dyn.d_un.d_val);
		if (!str)
			continue;
		if (dyn.d_tag == DT_NEEDED) {
			if (add_needed(s, str))
				return -ENOMEM;
			continue;
		}
		if (dyn.d_tag == DT_SONAME)
			dst = &s->soname;
		else if (dyn.d_tag == DT_RUNPATH)
			dst = &s->runpath;
		else
			dst = &s->rpath;
		if (!*dst) {
			*dst = arena_strdup(s, str);
			if (!*dst)
				return -ENOMEM;
		}
	}
	return 0;
}

static int read_segments(struct reader *r)
{
	size_t n;

	if (elf_getphdrnum(r->elf, &n))
		return 0; /* no program headers: section fallback only */
	r->segs = calloc(n ? n : 1, sizeof(*r->segs));
	if (!r->segs)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(r->elf, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		r->segs[r->nsegs++] = (struct xseg){ ph.p_vaddr, ph.p_filesz, ph.p_offset };
	}
	return 0;
}

static int cmp_ent(const void *a, const void *b)
{
	const struct sym_ent *x = a, *y = b;
	int c = strcmp(x->pub.name, y->pub.name);

	if (c)
		return c;
	return x->pub.offset < y->pub.offset ? -1 : x->pub.offset > y->pub.offset;
}

/* Sort by (name, offset) and merge the copies of one symbol seen in both tables. */
static void sort_dedupe(struct elf_syms *s)
{
	size_t out = 0;

	if (!s->n)
		return;
	qsort(s->syms, s->n, sizeof(*s->syms), cmp_ent);
	for (size_t i = 1; i < s->n; i++) {
		struct sym_ent *keep = &s->syms[out], *e = &s->syms[i];

		if (!strcmp(keep->pub.name, e->pub.name) && keep->pub.offset == e->pub.offset) {
			keep->pub.global |= e->pub.global;
			keep->hidden &= e->hidden;
			if (e->pub.size > keep->pub.size)
				keep->pub.size = e->pub.size;
			continue;
		}
		s->syms[++out] = *e;
	}
	s->n = out + 1;
}

static int fail(char *err, size_t errlen, int ret, const char *path, const char *why)
{
	if (err && errlen)
		snprintf(err, errlen, "%s: %s", path, why);
	return ret;
}

static int do_open(const char *path, bool with_syms, elf_sym_filter keep, void *keep_ctx,
		   struct elf_syms **out, char *err, size_t errlen)
{
	struct reader r = { .keep = keep, .keep_ctx = keep_ctx };
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	struct stat st;
	bool have_symtab = false;
	int fd, ret = 0;

	*out = NULL;
	if (err && errlen)
		err[0] = '\0';
	if (elf_version(EV_CURRENT) == EV_NONE)
		return fail(err, errlen, -EINVAL, path, "libelf is too old");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		return fail(err, errlen, ret, path, strerror(-ret));
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return fail(err, errlen, -ENOEXEC, path, "not a regular file");
	}
	r.elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!r.elf || elf_kind(r.elf) != ELF_K_ELF || !gelf_getehdr(r.elf, &eh)) {
		ret = fail(err, errlen, -ENOEXEC, path, "not an ELF file");
		goto out;
	}
	if (eh.e_type != ET_DYN && eh.e_type != ET_EXEC) {
		ret = fail(err, errlen, -ENOEXEC, path, "not an executable or shared library");
		goto out;
	}
	r.s = calloc(1, sizeof(*r.s));
	if (!r.s) {
		ret = fail(err, errlen, -ENOMEM, path, "out of memory");
		goto out;
	}
	ret = read_segments(&r);
	while (!ret && (scn = elf_nextscn(r.elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_DYNAMIC) {
			ret = read_dynamic(&r, scn, &sh);
		} else if (with_syms && (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM)) {
			have_symtab = true;
			ret = read_symtab(&r, scn, &sh);
		}
	}
	if (ret) {
		ret = fail(err, errlen, ret, path, strerror(-ret));
		goto out;
	}
	if (with_syms && !have_symtab) {
		ret = fail(err, errlen, -ENOEXEC, path, "no symbol table");
		goto out;
	}
	sort_dedupe(r.s);
out:
	free(r.segs);
	if (r.elf)
		elf_end(r.elf);
	close(fd);
	if (ret)
		elf_syms__close(r.s);
	else
		*out = r.s;
	return ret;
}

int elf_syms__open(const char *path, struct elf_syms **out, char *err, size_t errlen)
{
	return do_open(path, true, NULL, NULL, out, err, errlen);
}

int elf_syms__open_filtered(const char *path, elf_sym_filter keep, void *ctx, struct elf_syms **out,
			    char *err, size_t errlen)
{
	return do_open(path, true, keep, ctx, out, err, errlen);
}

int elf_syms__open_dynamic(const char *path, struct elf_syms **out, char *err, size_t errlen)
{
	return do_open(path, false, NULL, NULL, out, err, errlen);
}

void elf_syms__close(struct elf_syms *s)
{
	struct arena_blk *b, *next;

	if (!s)
		return;
	for (b = s->arena; b; b = next) {
		next = b->next;
		free(b);
	}
	free(s->syms);
	free(s->needed);
	free(s);
}

size_t elf_syms__count(const struct elf_syms *s)
{
	return s ? s->n : 0;
}

const struct elf_sym *elf_syms__get(const struct elf_syms *s, size_t i)
{
	return s && i < s->n ? &s->syms[i].pub : NULL;
}

const struct elf_sym *elf_syms__find(const struct elf_syms *s, const char *name)
{
	size_t lo = 0, hi;
	const struct sym_ent *best = NULL;

	if (!s || !name)
		return NULL;
	hi = s->n;
	while (lo < hi) { /* first entry with that name */
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(s->syms[mid].pub.name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* several versions of one name: prefer the default one (what a new link binds to) */
	for (size_t i = lo; i < s->n && !strcmp(s->syms[i].pub.name, name); i++) {
		if (!best || (best->hidden && !s->syms[i].hidden))
			best = &s->syms[i];
	}
	return best ? &best->pub : NULL;
}

const struct elf_sym *elf_syms__next_prefix(const struct elf_syms *s, const char *prefix,
					    size_t *iter)
{
	size_t len;

	if (!s || !prefix || !iter)
		return NULL;
	len = strlen(prefix);
	while (*iter < s->n) {
		const struct elf_sym *e = &s->syms[(*iter)++].pub;

		if (!strncmp(e->demangled, prefix, len))
			return e;
	}
	return NULL;
}

const char *elf_syms__soname(const struct elf_syms *s)
{
	return s ? s->soname : NULL;
}

size_t elf_syms__nneeded(const struct elf_syms *s)
{
	return s ? s->nneeded : 0;
}

const char *elf_syms__needed(const struct elf_syms *s, size_t i)
{
	return s && i < s->nneeded ? s->needed[i] : NULL;
}

const char *elf_syms__runpath(const struct elf_syms *s)
{
	if (!s)
		return NULL;
	return s->runpath ? s->runpath : s->rpath;
}

const char *elf_syms__rpath(const struct elf_syms *s)
{
	return s ? s->rpath : NULL;
}

bool elf_syms__has_runpath(const struct elf_syms *s)
{
	return s && s->runpath;
}
