// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The phase probes' libraries (phaseprobe_state.h): resolving --phase
 * libraries, examining every library file once (the catalog's and
 * --phase's functions in it), attaching uprobes to them (uprobe_multi
 * links, else perf uprobes) with a FT_REC_PHASE_SLOT per point, the
 * closures of commands and exec'd programs, the system-wide scan.
 */
#include <errno.h>
#include <malloc.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "phase.skel.h"
#include "bpf/phase.h"
#include "probes/catalog.h"
#include "probes/elfsyms.h"
#include "probes/libfind.h"
#include "probes/bpflog.h"
#include "probes/phaseprobe_state.h"
#include "lib/util.h"

/* ---- libraries ---- */

static struct ph_lib *lib_known(struct phaseprobe *p, unsigned long long dev, unsigned long long ino)
{
	for (size_t i = 0; i < p->nlibs; i++)
		if (p->libs[i].dev == dev && p->libs[i].ino == ino)
			return &p->libs[i];
	return NULL;
}

/* The path as the slot record shows it: cut from the left if too long. */
static void copy_left(char *dst, size_t len, const char *src)
{
	size_t n = strlen(src);

	str_copy(dst, n < len ? src : src + (n - len + 1), len);
}

/* ---- attaching: uprobe_multi links (one per library and direction), else perf uprobes ---- */

struct ph_link_create_uprobe_multi {
	__u32 prog_fd;
	__u32 target_fd;
	__u32 attach_type;
	__u32 flags;
	__u64 path;
	__u64 offsets;
	__u64 ref_ctr_offsets;
	__u64 cookies;
	__u32 cnt;
	__u32 um_flags;
	__u32 pid;
	__u32 pad;
};

int ph_multi_attach(const struct bpf_program *prog, const char *path, const uint64_t *offs,
		    const uint64_t *cookies, uint32_t n, bool ret)
{
	struct ph_link_create_uprobe_multi a;
	long fd;

	memset(&a, 0, sizeof(a));
	a.prog_fd = (__u32)bpf_program__fd(prog);
	a.attach_type = PH_BPF_TRACE_UPROBE_MULTI;
	a.path = (uintptr_t)path;
	a.offsets = (uintptr_t)offs;
	a.cookies = (uintptr_t)cookies;
	a.cnt = n;
	a.um_flags = ret ? PH_BPF_F_UPROBE_MULTI_RETURN : 0;
	fd = syscall(__NR_bpf, BPF_LINK_CREATE, &a, sizeof(a));
	return fd < 0 ? -errno : (int)fd;
}

static int keep_fd(struct phaseprobe *p, int fd)
{
	if (grow((void **)&p->mfds, &p->capmfds, p->nmfds, sizeof(int))) {
		close(fd);
		return -ENOMEM;
	}
	p->mfds[p->nmfds++] = fd;
	return 0;
}

/*
 * Entry and return probes of points [0, n) of PTS with cookies SLOT0 + i,
 * as two uprobe_multi links.  0 or -errno (nothing attached).
 */
static int attach_multi(struct phaseprobe *p, const char *path, const struct cat_point *pts,
			size_t n, __u32 slot0)
{
	uint64_t *offs = calloc(2 * n, sizeof(*offs)), *cookies = calloc(2 * n, sizeof(*cookies));
	uint32_t ne = 0, nr = 0;
	int efd = -1, rfd = -1, ret = -ENOMEM;

	if (!offs || !cookies)
		goto out;
	for (size_t i = 0; i < n; i++) {
		offs[ne] = pts[i].offset;
		cookies[ne++] = slot0 + i;
		if (pts[i].cfg.kind != PH_K_MARK && pts[i].cfg.kind != PH_K_PLUGIN) {
			offs[n + nr] = pts[i].offset;
			cookies[n + nr++] = slot0 + i;
		}
	}
	/* the return probes first: a call entered between the two leaves no stale entry */
	if (nr) {
		rfd = ph_multi_attach(p->skel->progs.phase_exit, path, offs + n, cookies + n, nr, true);
		if (rfd < 0) {
			ret = rfd;
			goto out;
		}
	}
	efd = ph_multi_attach(p->skel->progs.phase_entry, path, offs, cookies, ne, false);
	if (efd < 0) {
		ret = efd;
		if (rfd >= 0)
			close(rfd);
		goto out;
	}
	ret = keep_fd(p, efd);
	if (!ret && rfd >= 0)
		ret = keep_fd(p, rfd);
out:
	free(offs);
	free(cookies);
	return ret;
}

/* One point through two perf-event uprobes (kernels without uprobe_multi). */
static int attach_perf(struct phaseprobe *p, const char *path, const struct cat_point *pt, __u32 slot)
{
	LIBBPF_OPTS(bpf_uprobe_opts, uo);
	struct bpf_link *ent, *ret = NULL;

	uo.bpf_cookie = slot;
	if (pt->cfg.kind != PH_K_MARK && pt->cfg.kind != PH_K_PLUGIN) {
		uo.retprobe = true;
		ret = bpf_program__attach_uprobe_opts(p->skel->progs.phase_exit, -1, path,
						      (size_t)pt->offset, &uo);
		if (!ret)
			return -errno;
	}
	uo.retprobe = false;
	ent = bpf_program__attach_uprobe_opts(p->skel->progs.phase_entry, -1, path,
					      (size_t)pt->offset, &uo);
	if (!ent) {
		int err = -errno;

		bpf_link__destroy(ret);
		return err;
	}
	p->links[(size_t)2 * slot] = ent;
	p->links[(size_t)2 * slot + 1] = ret;
	return 0;
}

static int emit_slot(struct phaseprobe *p, struct ph_lib *lib, const struct cat_point *pt, __u32 slot)
{
	struct ft_phase_slot r = { .hdr = { FT_REC_PHASE_SLOT, sizeof(r), 0 } };

	if (!lib->npoints++)
		lib->kind = pt->lib;
	r.slot = slot;
	r.lib_kind = pt->lib;
	r.op = pt->op;
	r.flags = pt->slot_flags;
	r.offset = pt->offset;
	copy_left(r.lib, sizeof(r.lib), lib->path);
	str_copy(r.symbol, pt->symbol, sizeof(r.symbol));
	str_copy(r.name, pt->name, sizeof(r.name));
	return ph_emit(p, &r.hdr);
}

static void attach_failed(struct phaseprobe *p, const struct ph_lib *lib, const struct cat_point *pt,
			  int err)
{
	p->attach_failed++;
	if (p->verbose)
		ft_warn("record: cannot attach to %s in %s: %s%s%s", pt->symbol, lib->path,
			strerror(-err), bpflog__sep(), bpflog__last());
}

/*
 * Attach every point of a library: slots first (their layouts in the
 * `slots` map), then the probes, then a FT_REC_PHASE_SLOT per attached
 * point.  A point that cannot be attached is skipped (its slot unused).
 */
static int attach_plan(struct phaseprobe *p, struct ph_lib *lib, const struct cat_plan *plan)
{
	int fd = bpf_map__fd(p->skel->maps.slots);
	size_t n = plan->n;
	__u32 slot0 = p->nslots;
	bool *ok;
	int ret = 0;

	if (!n)
		return 0;
	if (slot0 + n > PH_MAX_SLOTS) {
		if (!p->full_warned)
			ft_warn("record: more than %d traced functions; %s is not traced "
				"(nor libraries found after it)", PH_MAX_SLOTS, lib->path);
		p->full_warned = true;
		return 0;
	}
	ok = calloc(n, sizeof(*ok));
	if (!ok)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		__u32 slot = slot0 + (__u32)i;

		p->cfgs[slot] = plan->pts[i].cfg;
		if (bpf_map_update_elem(fd, &slot, &plan->pts[i].cfg, BPF_ANY)) {
			free(ok);
			return -errno;
		}
	}
	p->nslots += (unsigned)n;
	if (p->multi && attach_multi(p, lib->path, plan->pts, n, slot0) == 0) {
		for (size_t i = 0; i < n; i++)
			ok[i] = true;
	} else {
		/* one by one, so one bad offset does not cost the others */
		for (size_t i = 0; i < n; i++) {
			int err = p->multi ? attach_multi(p, lib->path, &plan->pts[i], 1, slot0 + (__u32)i)
					   : attach_perf(p, lib->path, &plan->pts[i], slot0 + (__u32)i);

			ok[i] = err == 0;
			if (err == -ENOMEM) {
				ret = err;
				break;
			}
			if (err)
				attach_failed(p, lib, &plan->pts[i], err);
		}
	}
	for (size_t i = 0; i < n && !ret; i++)
		if (ok[i])
			ret = emit_slot(p, lib, &plan->pts[i], slot0 + (__u32)i);
	free(ok);
	return ret;
}

/* Does --phase spec I name the library DEV:INO? */
static bool spec_names(const struct phaseprobe *p, int i, unsigned long long dev, unsigned long long ino)
{
	return p->specs[i].dev == dev && p->specs[i].ino == ino;
}

/* Look at one library (once per file): attach what the catalog and --phase name in it. */
int ph_examine(struct phaseprobe *p, const char *path, unsigned long long dev,
	       unsigned long long ino)
{
	struct cat_plan plan = {0};
	struct elf_syms *s = NULL;
	struct ph_lib *lib;
	char err[160];
	int ret = 0;

	if (lib_known(p, dev, ino))
		return 0;
	if (grow((void **)&p->libs, &p->caplibs, p->nlibs, sizeof(*p->libs)))
		return -ENOMEM;
	lib = &p->libs[p->nlibs];
	memset(lib, 0, sizeof(*lib));
	lib->path = strdup(path);
	if (!lib->path)
		return -ENOMEM;
	lib->dev = dev;
	lib->ino = ino;
	p->nlibs++;
	bool spec = false;

	for (int i = 0; i < p->nspecs; i++)
		spec |= spec_names(p, i, dev, ino);
	/* a --phase symbol may be any function; the catalog's are known by name */
	if (spec ? elf_syms__open(path, &s, err, sizeof(err))
		 : elf_syms__open_filtered(path, catalog__may_match, NULL, &s, err, sizeof(err)))
		return 0; /* not an ELF with symbols: nothing to trace */
	ret = catalog__plan(s, &plan);
	for (int i = 0; !ret && spec && i < p->nspecs; i++)
		if (spec_names(p, i, dev, ino))
			ret = catalog__plan_spec(s, &p->specs[i].spec, &plan) < 0 ? -ENOMEM : 0;
	if (!ret)
		ret = attach_plan(p, lib, &plan);
	cat_plan__free(&plan);
	elf_syms__close(s);
	/* a library's symbol table is the largest thing the recorder allocates
	 * once it runs: give its pages back, not keep them for the recording */
	malloc_trim(0);
	return ret;
}

int ph_examine_set(struct phaseprobe *p, const struct lib_set *set)
{
	for (size_t i = 0; i < set->n; i++) {
		int ret = ph_examine(p, set->paths[i], set->dev[i], set->ino[i]);

		if (ret == -ENOMEM || ret == -EIO)
			return ret;
	}
	return 0;
}

/* Libraries mapped by PID now. */
int ph_examine_maps(struct phaseprobe *p, pid_t pid)
{
	struct lib_set set;
	int ret;

	lib_set__init(&set);
	ret = libfind__maps(pid, &set);
	if (ret != -ENOMEM)
		ret = ph_examine_set(p, &set);
	lib_set__free(&set);
	return ret;
}

static bool exe_known(struct phaseprobe *p, unsigned long long dev, unsigned long long ino)
{
	for (size_t i = 0; i < p->nexes; i++)
		if (p->exes[i][0] == dev && p->exes[i][1] == ino)
			return true;
	if (!grow((void **)&p->exes, &p->capexes, p->nexes, sizeof(*p->exes))) {
		p->exes[p->nexes][0] = dev;
		p->exes[p->nexes][1] = ino;
		p->nexes++;
	}
	return false;
}

/*
 * The closure of the command, and of every executable file its arguments
 * name by path ("mpiexec -n 4 ./train", "sh -c '/opt/x/bin/worker --id 1'"):
 * launchers exec those later, and their libraries are then attached before
 * the first call rather than just after the exec.
 */
void ph_cmd_closures(char *const *cmd, struct lib_set *known)
{
	char why[160];

	libfind__closure(cmd[0], known, why, sizeof(why)); /* a script has none */
	for (int i = 1; cmd[i]; i++) {
		const char *s = cmd[i];

		while (*s) {
			char word[PATH_MAX];
			size_t n = 0;
			struct stat st;

			while (*s && strchr(" \t\n'\"=;&|()<>", *s))
				s++;
			while (*s && !strchr(" \t\n'\"=;&|()<>", *s)) {
				if (n + 1 < sizeof(word))
					word[n++] = *s;
				s++;
			}
			word[n] = '\0';
			if (strchr(word, '/') && !stat(word, &st) && S_ISREG(st.st_mode) && !access(word, X_OK))
				libfind__closure(word, known, why, sizeof(why));
		}
	}
}

/* A process exec'd: the closure of its new executable, then what it maps. */
int ph_on_exec(struct phaseprobe *p, pid_t pid)
{
	char link[64];
	struct stat st;
	int ret = 0;

	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	if (stat(link, &st))
		return 0; /* gone already */
	if (!exe_known(p, st.st_dev, st.st_ino)) {
		char err[160];
		struct lib_set set;

		lib_set__init(&set);
		/* through /proc/PID/exe: the file itself even in another mount namespace */
		if (libfind__closure(link, &set, err, sizeof(err)) != -ENOMEM)
			ret = ph_examine_set(p, &set);
		lib_set__free(&set);
	}
	if (!ret)
		ret = ph_examine_maps(p, pid);
	/* a followed program's rank from its launcher, in case its init call is not probed */
	if (!ret && !p->systemwide)
		ret = ph_emit_env_rank(p, pid);
	return ret;
}

/* ---- --phase libraries ---- */

/* Does a canonical path name the library LIB (a soname or file name)? */
static bool names_lib(const char *path, const char *lib)
{
	const char *base = strrchr(path, '/');
	size_t n = strlen(lib);

	base = base ? base + 1 : path;
	return strcmp(base, lib) == 0 || (strncmp(base, lib, n) == 0 && base[n] == '.');
}

/* Resolve every --phase library to a file, and check its symbol. */
int ph_resolve_specs(struct phaseprobe *p, const struct lib_set *known, char *err, size_t errlen)
{
	for (int i = 0; i < p->nspecs; i++) {
		struct ph_spec *sp = &p->specs[i];
		const char *lib = sp->spec.lib;
		struct cat_plan plan = {0};
		struct elf_syms *s = NULL;
		char why[160], *rp = NULL;
		struct stat st;
		int n;

		if (strchr(lib, '/')) {
			rp = realpath(lib, NULL);
		} else {
			for (size_t k = 0; !rp && k < known->n; k++)
				if (names_lib(known->paths[k], lib))
					rp = strdup(known->paths[k]);
			if (!rp && libfind__soname(lib, NULL, NULL, sp->path, sizeof(sp->path)) == 0)
				rp = realpath(sp->path, NULL);
		}
		if (!rp || stat(rp, &st)) {
			snprintf(err, errlen, "--phase %s:%s: library '%s' not found%s; give its path "
				 "or a soname the loader knows (ldconfig -p)", lib, sp->spec.symbol, lib,
				 strchr(lib, '/') ? "" : " (searched the command's libraries and the loader cache)");
			free(rp);
			return -EINVAL;
		}
		str_copy(sp->path, rp, sizeof(sp->path));
		free(rp);
		sp->dev = st.st_dev;
		sp->ino = st.st_ino;
		if (elf_syms__open(sp->path, &s, why, sizeof(why))) {
			snprintf(err, errlen, "--phase %s:%s: %s; give an ELF shared library or "
				 "executable", lib, sp->spec.symbol, why);
			return -EINVAL;
		}
		n = catalog__plan_spec(s, &sp->spec, &plan);
		cat_plan__free(&plan);
		elf_syms__close(s);
		if (n == 0) {
			snprintf(err, errlen, "--phase %s:%s: no function '%s' in %s; list them with "
				 "'nm -D --defined-only %s'", lib, sp->spec.symbol, sp->spec.symbol,
				 sp->path, sp->path);
			return -EINVAL;
		}
		if (n < 0) {
			snprintf(err, errlen, "out of memory");
			return n;
		}
	}
	return 0;
}

/* ---- system-wide: what every process maps ---- */

/* A full scan (every process's maps) every this many scans, about once a
 * second each (PH_FULL_LOOK_MS). */
#define PH_SW_FULL_SCANS (PH_FULL_LOOK_MS / 1000)

struct sw_scan {
	struct lib_set set;        /* the libraries of the processes read */
	struct ph_sw_seen *now;    /* this scan's processes */
	size_t n, cap;
	const struct ph_sw_seen *prev; /* the last scan's, sorted by pid */
	size_t nprev;
	bool full;
};

static int sw_seen_cmp(const void *a, const void *b)
{
	pid_t x = ((const struct ph_sw_seen *)a)->pid, y = ((const struct ph_sw_seen *)b)->pid;

	return (x > y) - (x < y);
}

/* A process without a memory map (a kernel thread, or a zombie): its status
 * has no Vm lines, and it maps nothing. */
#define PH_SW_NO_MM UINT64_MAX

/*
 * Read PID's maps into the scan's set, unless the sizes of its executable
 * mappings are those of the last scan: then no library came or went, and
 * its maps (half a millisecond for a PyTorch process) are not read.  A
 * process the last scan found without a memory map (kernel threads: most
 * of /proc on an idle node) is not looked at again until the full scan.
 */
static int maps_into(struct phaseprobe *p, pid_t pid, pid_t ppid, void *arg)
{
	struct sw_scan *s = arg;
	struct ph_sw_seen key = { .pid = pid };
	const struct ph_sw_seen *was;
	int ret;

	(void)p;
	(void)ppid;
	was = s->full || !s->nprev ? NULL : bsearch(&key, s->prev, s->nprev, sizeof(*s->prev), sw_seen_cmp);
	ret = was && was->exec_size == PH_SW_NO_MM ? -ENODATA : libfind__exec_size(pid, &key.exec_size);
	if (ret == -ENODATA)
		key.exec_size = PH_SW_NO_MM;
	if (!ret || ret == -ENODATA) {
		if (grow((void **)&s->now, &s->cap, s->n, sizeof(*s->now)))
			return -ENOMEM;
		s->now[s->n++] = key;
		if (ret || (was && was->exec_size == key.exec_size))
			return 0;
	}
	return libfind__maps(pid, &s->set) == -ENOMEM ? -ENOMEM : 0;
}

/* Does PID map a library with traced functions? */
static bool maps_traced(struct phaseprobe *p, pid_t pid)
{
	struct lib_set set;
	bool yes = false;

	lib_set__init(&set);
	libfind__maps(pid, &set);
	for (size_t i = 0; i < set.n && !yes; i++) {
		const struct ph_lib *l = lib_known(p, set.dev[i], set.ino[i]);

		yes = l && l->npoints;
	}
	lib_set__free(&set);
	return yes;
}

int ph_existing_if_traced(struct phaseprobe *p, pid_t pid, pid_t ppid, void *arg)
{
	(void)ppid;
	(void)arg;
	if (pid == getpid() || !maps_traced(p, pid))
		return 0;
	return ph_emit_proc(p, pid, FT_PROC_EXISTING);
}

/*
 * System-wide: what every running process maps.  A process whose executable
 * mappings have the sizes of the last scan is skipped, except every
 * PH_SW_FULL_SCANS-th scan (a file swapped for one of the same size; a pid
 * reused).  The sizes are kept only when the scan attached all it found, so
 * that a failed one is read again whole.
 */
int ph_scan_all(struct phaseprobe *p)
{
	struct sw_scan s = { .prev = p->sw_seen, .nprev = p->nsw_seen,
			     .full = p->sw_scans++ % PH_SW_FULL_SCANS == 0 };
	int ret;

	lib_set__init(&s.set);
	ret = ph_for_each_pid(p, false, maps_into, &s);
	if (!ret)
		ret = ph_examine_set(p, &s.set);
	lib_set__free(&s.set);
	if (ret) {
		free(s.now);
		s.now = NULL;
		s.n = 0;
	} else if (s.n) {
		qsort(s.now, s.n, sizeof(*s.now), sw_seen_cmp);
	}
	free(p->sw_seen);
	p->sw_seen = s.now;
	p->nsw_seen = s.n;
	return ret;
}
