/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Finding the libraries that traced processes actually load, so phase
 * probes attach to the same files (uprobes are per inode).
 *
 *  - the DT_NEEDED closure of an executable, searched like ld.so does
 *    (RPATH/RUNPATH with $ORIGIN, LD_LIBRARY_PATH, /etc/ld.so.cache,
 *    the default directories);
 *  - the file-backed executable mappings in /proc/PID/maps (what a running
 *    process, including its dlopen()ed libraries, has mapped);
 *  - the system's libraries by soname pattern (ld.so.cache), for
 *    system-wide tracing.
 *
 * Paths are canonical (realpath), and a set never holds one file twice
 * (same st_dev/st_ino).
 */
#ifndef FABTRACE_LIBFIND_H
#define FABTRACE_LIBFIND_H

#include <stddef.h>
#include <sys/types.h>

struct lib_set {
	char **paths;
	size_t n, cap;
	/* identity of each path, parallel to paths */
	unsigned long long *dev, *ino;
};

void lib_set__init(struct lib_set *s);
void lib_set__free(struct lib_set *s);
/* Add PATH (canonicalised).  1 added, 0 already present, -errno. */
int lib_set__add(struct lib_set *s, const char *path);

/* Resolve a bare soname ("libmpich.so.12") like the dynamic loader would. */
int libfind__soname(const char *soname, const char *runpath, const char *origin,
		    char *out, size_t outlen);
/*
 * Add the executable EXE (a path, or a name searched in $PATH) and every
 * library in its DT_NEEDED closure to SET.  0 or -errno with ERR set.
 */
int libfind__closure(const char *exe, struct lib_set *set, char *err, size_t errlen);
/* Add every executable file mapping of PID (from /proc/PID/maps).  0 or -errno. */
int libfind__maps(pid_t pid, struct lib_set *set);
/*
 * A signature of PID's executable file mappings (device, inode and path of
 * each, in order), cheap next to libfind__maps(): equal signatures, the same
 * files mapped.  0 or -errno.
 */
int libfind__maps_sig(pid_t pid, uint64_t *sig);
/*
 * The sizes of PID's executable mappings, VmExe and VmLib of
 * /proc/PID/status (kB), as one number: it changes when a library with code
 * is mapped or unmapped.  Reading it costs a few microseconds where the maps
 * of a large process (PyTorch: 1,700 lines) take half a millisecond, so it
 * says when libfind__maps_sig() is worth its cost.  0 or -errno (-ENODATA:
 * no such lines, e.g. a kernel thread).
 */
int libfind__exec_size(pid_t pid, uint64_t *size);
/*
 * Add every library in the loader cache (/etc/ld.so.cache, parsed directly,
 * else `ldconfig -p`) whose soname starts with PREFIX, e.g. "libmpi",
 * "libnccl", "libgloo".  0 or -errno.
 */
int libfind__cache(const char *prefix, struct lib_set *set);

#endif
