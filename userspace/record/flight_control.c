// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The control socket of the flight recorder and its client
 * (flight_control.h): an abstract SOCK_SEQPACKET socket in a network
 * namespace, messages of KEY=VALUE lines, root only.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "lib/util.h"
#include "userspace/record/flight_control.h"

static int make_addr(const char *name, struct sockaddr_un *a, socklen_t *alen)
{
	int n;

	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	/* abstract: sun_path[0] = 0, the name follows, not NUL-terminated */
	n = snprintf(a->sun_path + 1, sizeof(a->sun_path) - 1, "fabtrace/%s", name);
	if (n < 0 || (size_t)n >= sizeof(a->sun_path) - 1)
		return -EINVAL;
	*alen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
	return 0;
}

/* A SOCK_SEQPACKET socket made inside network namespace NETNS (NULL: ours). */
static int socket_in(const char *netns, char *err, size_t errlen)
{
	char path[300];
	int self, ns, fd, e;

	if (!netns)
		return socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	snprintf(path, sizeof(path), "/run/netns/%s", netns);
	ns = open(path, O_RDONLY | O_CLOEXEC);
	if (ns < 0) {
		e = errno;
		if (e == ENOENT)
			snprintf(err, errlen, "network namespace '%s' not found; list them with 'ip netns list'", netns);
		else
			snprintf(err, errlen, "network namespace '%s': %s", netns, strerror(e));
		return -e;
	}
	self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (self < 0 || setns(ns, CLONE_NEWNET)) {
		e = errno;
		snprintf(err, errlen, "cannot enter network namespace '%s': %s", netns, strerror(e));
		if (self >= 0)
			close(self);
		close(ns);
		return -e;
	}
	/* a socket stays in the namespace it was made in */
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	e = errno;
	if (setns(self, CLONE_NEWNET)) {
		/* stuck in the wrong namespace: nothing after this may run */
		ft_err("cannot return to our own network namespace: %s", strerror(errno));
		_exit(1);
	}
	close(self);
	close(ns);
	if (fd < 0) {
		snprintf(err, errlen, "socket: %s", strerror(e));
		return -e;
	}
	return fd;
}

bool flight_ctl__name_ok(const char *name)
{
	return name[0] && strlen(name) <= 64 && !strchr(name, '/');
}

/* The address of @fabtrace/NAME and a socket for it in NETNS: the socket, or -errno with ERR. */
static int socket_for(const char *name, const char *netns, struct sockaddr_un *a, socklen_t *alen,
		      char *err, size_t errlen)
{
	if (!flight_ctl__name_ok(name) || make_addr(name, a, alen)) {
		snprintf(err, errlen, "bad control socket name '%s' (" FLIGHT_CTL_NAME_HINT ")", name);
		return -EINVAL;
	}
	return socket_in(netns, err, errlen);
}

int flight_ctl__listen(const char *name, const char *netns, char *err, size_t errlen)
{
	struct sockaddr_un a;
	socklen_t alen;
	int fd = socket_for(name, netns, &a, &alen, err, errlen);

	if (fd < 0)
		return fd;
	if (bind(fd, (struct sockaddr *)&a, alen) || listen(fd, SOMAXCONN) ||
	    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)) {
		int e = errno;

		if (e == EADDRINUSE)
			snprintf(err, errlen, "another flight recorder listens on control socket @fabtrace/%s%s%s; "
				 "give this one --control NAME", name, netns ? " in network namespace " : "",
				 netns ? netns : "");
		else
			snprintf(err, errlen, "control socket @fabtrace/%s: %s", name, strerror(e));
		close(fd);
		return -e;
	}
	return fd;
}

void flight_ctl__refuse(int fd, const char *answer)
{
	char drop[FLIGHT_CTL_MSG];

	/* its command read first: a close over unread data resets the
	 * connection, and the answer would go with it */
	(void)recv(fd, drop, sizeof(drop), MSG_DONTWAIT);
	(void)flight_ctl__send(fd, "%s", answer);
	close(fd);
}

int flight_ctl__accept(int lfd, pid_t *pid, uid_t *uid)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);
	int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

	if (fd < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) || cr.uid != 0) {
		flight_ctl__refuse(fd, "error=only root may trigger a snapshot (run it with sudo)\n");
		return -EPERM;
	}
	*pid = cr.pid;
	*uid = cr.uid;
	return fd;
}

void flight_ctl__clean(char *text)
{
	for (unsigned char *p = (unsigned char *)text; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			*p = '?';
}

bool flight_ctl__get(const char *msg, const char *key, char *out, size_t len)
{
	size_t klen = strlen(key);

	if (len)
		out[0] = 0;
	for (const char *l = msg; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *nl = strchr(l, '\n');
		size_t n = nl ? (size_t)(nl - l) : strlen(l);

		if (n > klen && !strncmp(l, key, klen) && l[klen] == '=') {
			snprintf(out, len, "%.*s", (int)(n - klen - 1), l + klen + 1);
			return true;
		}
		if (n == klen && !strncmp(l, key, klen)) /* a bare word ("ok", "trigger") */
			return true;
	}
	return false;
}

int flight_ctl__read(int fd, struct flight_request *req)
{
	char buf[FLIGHT_CTL_MSG + 1], v[64];
	ssize_t n = recv(fd, buf, FLIGHT_CTL_MSG, MSG_DONTWAIT);

	if (n < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -EPIPE;
	if (n == 0)
		return -EPIPE;
	buf[n] = 0;
	memset(req, 0, sizeof(*req));
	if (!flight_ctl__get(buf, "trigger", v, sizeof(v)))
		return -EINVAL;
	flight_ctl__get(buf, "reason", req->reason, sizeof(req->reason));
	flight_ctl__clean(req->reason);
	if (flight_ctl__get(buf, "at", v, sizeof(v)))
		req->at_realtime_ns = strtoll(v, NULL, 10);
	req->wait = flight_ctl__get(buf, "wait", v, sizeof(v)) && !strcmp(v, "1");
	return 0;
}

int flight_ctl__send(int fd, const char *fmt, ...)
{
	char buf[FLIGHT_CTL_MSG];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return -EINVAL;
	if ((size_t)n >= sizeof(buf))
		n = sizeof(buf) - 1;
	return send(fd, buf, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT) == n ? 0 : -errno;
}

int flight_ctl__connect(const char *name, const char *netns, char *err, size_t errlen)
{
	struct sockaddr_un a;
	socklen_t alen;
	int fd = socket_for(name, netns, &a, &alen, err, errlen);

	if (fd < 0)
		return fd;
	if (connect(fd, (struct sockaddr *)&a, alen)) {
		int e = errno;

		if (e == ECONNREFUSED || e == ENOENT)
			snprintf(err, errlen, "no flight recorder listens on @fabtrace/%s in %s%s; start one with "
				 "'fabtrace record --switch-output ...'%s", name,
				 netns ? "network namespace " : "this network namespace", netns ? netns : "",
				 netns ? "" : " (or give --netns / --control)");
		else
			snprintf(err, errlen, "@fabtrace/%s: %s", name, strerror(e));
		close(fd);
		return -e;
	}
	return fd;
}

ssize_t flight_ctl__recv(int fd, char *buf, size_t len, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	ssize_t n;
	int rc;

	do
		rc = poll(&p, 1, timeout_ms);
	while (rc < 0 && errno == EINTR);
	if (rc < 0)
		return -errno;
	if (rc == 0)
		return -ETIMEDOUT;
	n = recv(fd, buf, len - 1, 0);
	if (n < 0)
		return -errno;
	if (n == 0)
		return -EPIPE;
	buf[n] = 0;
	return n;
}
