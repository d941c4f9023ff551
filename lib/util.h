/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Small helpers shared by every subcommand: errors, formatting, files, clocks. */
#ifndef FABTRACE_UTIL_H
#define FABTRACE_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define FT_VERSION "0.1.0"

/*
 * Errors are one line: "fabtrace: <what>: <why>; <what to do>".
 * In --json mode (util_set_json(true)) they are printed to stdout as
 * {"error": "..."} so the output stays valid JSON.
 */
void util_set_json(bool on);
/* JSON mode when any of NAMES (NULL-terminated, e.g. "--json", "-j") is among
 * ARGV's options (up to a "--"): an error before the flag is reached by
 * getopt, such as a bad option in front of it, is then JSON too. */
void util_json_from_args(int argc, char *const *argv, const char *const *names);
bool util_json(void);
void ft_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ft_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Option values (durations, sizes, numbers, interfaces) and their usage errors: lib/opt.h. */

/* Format a duration/size for humans: "1.50 ms", "12.0 MB/s" etc. */
const char *fmt_ns(uint64_t ns, char *buf, size_t len);
const char *fmt_bytes(double bytes, char *buf, size_t len);
/* BYTES in binary units ("64.0 KiB"): a size the user gave as "64k" (parse_size()). */
const char *fmt_ibytes(double bytes, char *buf, size_t len);
const char *fmt_rate_bps(double bits_per_s, char *buf, size_t len);
/* "+1.234567": NS as seconds relative to something, exact (integer arithmetic). */
const char *fmt_rel(int64_t ns, char *buf, size_t len);
/* "5.000100": NS as seconds, exact to the µs (fmt_rel() without its sign). */
const char *fmt_secs(uint64_t ns, char *buf, size_t len);
/* ns since the epoch as "2026-11-24T22:26:41.598355Z" (UTC) */
const char *fmt_wall(int64_t ns, char *buf, size_t len);
/* Append to BUF (LEN bytes) at *K, truncating at the end: a line built in parts. */
void str_appendf(char *buf, size_t len, size_t *k, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Whether A and B name one file (links, "./x" and "x" alike); false when either is missing. */
bool ft_same_file(const char *a, const char *b);

/*
 * Who our files belong to when root runs us through sudo: SUDO_UID and
 * SUDO_GID, each only when it is a plain decimal id ((uid_t)-1 / (gid_t)-1,
 * "leave as it is", for one that is unset or is not: a malformed SUDO_GID
 * read as 0 gave the files to group root).  False when not root or no valid
 * SUDO_UID: nothing to change.
 */
bool ft_sudo_owner(uid_t *uid, gid_t *gid);

/*
 * Output written whole or not at all (report's --svg, --perfetto, ...):
 * outfile_open() creates a temporary file next to PATH (mode 0600, O_EXCL;
 * as root with SUDO_UID set it is given to that user, like captures), and
 * outfile_commit() flushes, syncs and renames it over PATH, so a failed run
 * never leaves a half-written file.  PATH may not be a symlink or anything
 * but a regular file.  PATH "-" is stdout.  Both return 0 or -errno with a
 * one-line reason in ERR; outfile_abort() closes and removes the temporary.
 */
struct outfile {
	FILE *f;
	char *path;
	char *tmp;          /* NULL for stdout */
};
int outfile_open(struct outfile *o, const char *path, char *err, size_t errlen);
int outfile_commit(struct outfile *o, char *err, size_t errlen);
void outfile_abort(struct outfile *o);
/* Why writing O failed, once its stream has an error and the failed write's
 * errno is gone: ENOSPC when it is a file on a full file system, else EIO. */
int outfile_errno(const struct outfile *o);
/* The same for any stream F (stdout): ENOSPC, EPIPE (a pipe whose reader left) or EIO. */
int stream_errno(FILE *f);
/* What to do when creating PATH failed with E: "; create the directory first (mkdir -p)" (where
 * PATH's directory is missing), ... or "". */
const char *create_hint(int e, const char *path);
/* PATH, a temporary output, is removed if SIGINT/SIGTERM/SIGHUP ends the
 * process (where their disposition is the default); PATH must stay valid
 * until tmpfile_untrack().  outfile_open() tracks its temporaries. */
void tmpfile_track(const char *path);
void tmpfile_untrack(const char *path);

/*
 * Make the array *P of *CAP items of ISZ bytes hold at least NEED, doubling
 * (from 16); new items are zeroed.  0 or -ENOMEM (then *P is unchanged).
 */
int grow_array(void **p, size_t *cap, size_t need, size_t isz);

/*
 * The next item of the comma-separated list at *P, spaces around it trimmed:
 * *ITEM and *LEN (0 for an empty item, which callers skip); false when the
 * list is done.  Advances *P.  Usage:
 *   for (const char *p = list, *it; list_next(&p, &it, &len);) ...
 */
bool list_next(const char **p, const char **item, size_t *len);

uint64_t mono_ns(void);
/* Copy with truncation and NUL termination (like strscpy). */
void str_copy(char *dst, const char *src, size_t dstlen);
/* The directory PATH is in, into BUF: "dir" of "dir/f", "/" of "/f", "." of "f". */
char *path_dir(const char *path, char *buf, size_t len);

/*
 * /proc/PID/status (PID 0: this process) into BUF, NUL-terminated, in one
 * read(): bytes read, or -errno.  The fields read here (Tgid, NSpid, VmExe,
 * VmLib) come within the first 4 KiB unless Groups is very long.
 */
ssize_t proc_status_read(pid_t pid, char *buf, size_t len);
/* Where the value of KEY (e.g. "Tgid:") begins in status TEXT; NULL if absent. */
const char *proc_status_field(const char *text, const char *key);
/*
 * /proc/PID/stat ("pid (comm) S ppid ...") into BUF, NUL-terminated, in one
 * read(): bytes read, or -errno.
 */
ssize_t proc_stat_read(pid_t pid, char *buf, size_t len);
/* Where the fields after "(comm) " begin in stat TEXT (the state letter, field 3); NULL if
 * malformed.  comm may hold spaces and parentheses: it ends at the last ')'. */
const char *proc_stat_fields(const char *text);

/*
 * A stream onto F that writes every control character but newline and tab
 * (C0, DEL, C1 in UTF-8) as '?': text made of a capture's strings (host and process names, which
 * anyone can set) cannot move the cursor or retitle the terminal it is
 * read in.  fclose() it before F; NULL when it cannot be made.
 */
FILE *text_safe_stream(FILE *f);
/* A stream onto F, byte for byte, whose failed write keeps its errno for
 * stream_errno(stdout) (stdio keeps only a flag: a JSON report on /dev/full
 * said EIO, not ENOSPC).  fclose() it before F; NULL when it cannot be made. */
FILE *errno_kept_stream(FILE *f);

#endif
