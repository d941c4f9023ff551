/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The flight recorder's control socket, and the client `fabtrace trigger`
 * uses (docs/flight-recorder.md, "Triggers by hand").
 *
 * An abstract Unix socket (SOCK_SEQPACKET) named "@fabtrace/NAME" (NAME:
 * --control, default "flight"), bound in the network namespace the
 * recorder records (--netns, else its own): abstract names belong to a
 * network namespace, so `fabtrace trigger` run there (or with --netns)
 * finds that namespace's recorder, nothing is left on disk by a crash, and
 * a second recorder cannot take the name.  Only root may use it: the
 * server reads the peer's credentials (SO_PEERCRED).
 *
 * The messages are lines of KEY=VALUE:
 *   request   "trigger", reason=TEXT, at=REALTIME_NS, wait=1
 *   reply     "ok" with host, action, snapshot, rule, at/from/to (REALTIME
 *             ns), file; or error=TEXT
 *   then, with wait=1, when the snapshot is written: saved=PATH, bytes=N;
 *             or error=TEXT
 */
#ifndef FABTRACE_FLIGHT_CONTROL_H
#define FABTRACE_FLIGHT_CONTROL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define FLIGHT_CTL_DEFAULT "flight"
#define FLIGHT_CTL_MSG 2048

/* ---- server ---- */

/*
 * Listen on @fabtrace/NAME in network namespace NETNS (a name from
 * `ip netns`, NULL: our own).  The listening descriptor (non-blocking), or
 * -errno with a one-line reason in ERR.
 */
/* Whether NAME can name a control socket (@fabtrace/NAME): 1 to 64 characters, no '/'. */
bool flight_ctl__name_ok(const char *name);
#define FLIGHT_CTL_NAME_HINT "up to 64 characters without '/'"
int flight_ctl__listen(const char *name, const char *netns, char *err, size_t errlen);
/*
 * Accept one connection on LFD (non-blocking).  The connection (its peer
 * in *PID, *UID), -EAGAIN when none waits, -EPERM (refused and closed: not
 * root), or another -errno.
 */
int flight_ctl__accept(int lfd, pid_t *pid, uid_t *uid);

struct flight_request {
	char reason[128];
	int64_t at_realtime_ns;    /* 0: when it arrives */
	bool wait;
};
/* Read a request from connection FD: 0, -EAGAIN (not yet), -EPIPE (gone), -EINVAL (not one). */
int flight_ctl__read(int fd, struct flight_request *req);
/* Send one message (FMT: lines of KEY=VALUE).  0 or -errno. */
int flight_ctl__send(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Answer FD with ANSWER and close it, its command read first: a refusal
 * (a close over unread data would reset the connection, answer and all). */
void flight_ctl__refuse(int fd, const char *answer);

/* ---- client ---- */

/* Connect to @fabtrace/NAME in NETNS (NULL: ours).  The descriptor, or -errno with ERR. */
int flight_ctl__connect(const char *name, const char *netns, char *err, size_t errlen);
/* Receive one message into BUF (NUL-terminated) within TIMEOUT_MS (-1 forever).
 * Its length, -ETIMEDOUT, -EPIPE (closed) or -errno. */
ssize_t flight_ctl__recv(int fd, char *buf, size_t len, int timeout_ms);
/* The value of KEY in message MSG into OUT ("" and false when absent). */
bool flight_ctl__get(const char *msg, const char *key, char *out, size_t len);
/* TEXT with every control character made '?' (one line, whatever was sent). */
void flight_ctl__clean(char *text);

#endif
