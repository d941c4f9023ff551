// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The HTTP side of `top --listen` (userspace/live/metrics.h): the request
 * parser, content negotiation, the --listen address, and a small
 * non-blocking server in the session's event loop that answers each
 * GET /metrics with metrics__render() (metrics.c).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "userspace/live/metrics.h"
#include "userspace/record/session.h"
#include "lib/util.h"

/* The q value in the media range parameters P..END ("; q=0.5"), 1 without one */
static double accept_q(const char *p, const char *end)
{
	char num[16];

	for (; p + 2 < end; p++)
		if ((p[0] == 'q' || p[0] == 'Q') && p[1] == '=') {
			size_t n = (size_t)(end - p - 2) < sizeof(num) - 1 ? (size_t)(end - p - 2) : sizeof(num) - 1;

			memcpy(num, p + 2, n);
			num[n] = '\0';
			return strtod(num, NULL);
		}
	return 1.0;
}

enum metrics_format metrics__negotiate(const char *buf, size_t len)
{
	static const char om[] = "application/openmetrics-text";
	const char *p = memchr(buf, '\n', len), *end = buf + len;

	/* the header lines after the request line: "Accept: a/b;q=0.5, c/d" */
	while (p && p + 1 < end) {
		const char *line = p + 1, *eol = memchr(line, '\n', (size_t)(end - line));
		const char *lend = eol ? eol : end;

		if (lend - line > 7 && !strncasecmp(line, "accept:", 7)) {
			for (const char *q = line + 7; q + sizeof(om) - 1 <= lend; q++) {
				const char *after = q + sizeof(om) - 1, *next;

				/* the whole media type: not inside another one's name */
				if (strncasecmp(q, om, sizeof(om) - 1) != 0 ||
				    (q > line + 7 && !strchr(", \t", q[-1])) || (after < lend && !strchr(",; \t\r", *after)))
					continue;
				next = memchr(after, ',', (size_t)(lend - after));
				return accept_q(after, next ? next : lend) > 0 ? METRICS_OPENMETRICS : METRICS_TEXT;
			}
		}
		p = eol;
	}
	return METRICS_TEXT;
}

int metrics__parse_request(const char *buf, size_t len)
{
	const char *end = NULL, *sp1, *sp2, *eol;
	size_t plen;

	for (size_t i = 0; i + 1 < len; i++) {
		if (buf[i] == '\n' && buf[i + 1] == '\n') {
			end = buf + i;
			break;
		}
		if (i + 3 < len && !memcmp(buf + i, "\r\n\r\n", 4)) {
			end = buf + i;
			break;
		}
	}
	if (!end)
		return len >= METRICS_MAX_REQUEST ? 431 : 0;
	eol = memchr(buf, '\n', len);
	if (!eol)
		return 400;
	sp1 = memchr(buf, ' ', (size_t)(eol - buf));
	if (!sp1)
		return 400;
	sp2 = memchr(sp1 + 1, ' ', (size_t)(eol - sp1 - 1));
	if (!sp2 || (size_t)(eol - sp2) < 9 || strncmp(sp2 + 1, "HTTP/1.", 7) != 0)
		return 400;
	if (sp1 - buf != 3 || strncmp(buf, "GET", 3) != 0)
		return 405;
	plen = (size_t)(sp2 - sp1 - 1);
	for (size_t i = 0; i < plen; i++)
		if (sp1[1 + i] == '?') {
			plen = i;
			break;
		}
	if (plen == 8 && strncmp(sp1 + 1, "/metrics", 8) == 0)
		return 200;
	return 404;
}

int metrics__parse_addr(const char *spec, bool allow_remote, struct sockaddr_storage *ss,
			socklen_t *sslen, char *err, size_t errlen)
{
	char host[64] = "127.0.0.1";
	const char *port_s;
	char *end;
	unsigned long port;
	struct sockaddr_in *v4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)ss;
	bool loop;

	memset(ss, 0, sizeof(*ss));
	if (!spec || !*spec) {
		snprintf(err, errlen, "empty --listen address");
		return -EINVAL;
	}
	if (spec[0] == '[') {
		const char *rb = strchr(spec, ']');

		if (!rb || rb[1] != ':' || (size_t)(rb - spec - 1) >= sizeof(host)) {
			snprintf(err, errlen, "bad --listen '%s'; use [V6ADDR]:PORT, e.g. [::1]:9464", spec);
			return -EINVAL;
		}
		memcpy(host, spec + 1, (size_t)(rb - spec - 1));
		host[rb - spec - 1] = '\0';
		port_s = rb + 2;
	} else if (strchr(spec, ':')) {
		const char *c = strrchr(spec, ':');

		if ((size_t)(c - spec) >= sizeof(host)) {
			snprintf(err, errlen, "bad --listen '%s'; use ADDR:PORT, e.g. 127.0.0.1:9464", spec);
			return -EINVAL;
		}
		if (c != spec) {
			memcpy(host, spec, (size_t)(c - spec));
			host[c - spec] = '\0';
		}
		port_s = c + 1;
	} else {
		port_s = spec;
	}
	errno = 0;
	port = strtoul(port_s, &end, 10);
	if (errno || end == port_s || *end || port > 65535) {
		snprintf(err, errlen, "bad --listen port in '%s'; use ADDR:PORT with a port 0..65535, "
			 "e.g. 127.0.0.1:9464", spec);
		return -EINVAL;
	}
	if (!strcmp(host, "localhost"))
		strcpy(host, "127.0.0.1");
	if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
		v4->sin_family = AF_INET;
		v4->sin_port = htons((uint16_t)port);
		*sslen = sizeof(*v4);
		loop = (ntohl(v4->sin_addr.s_addr) >> 24) == 127;
	} else if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
		v6->sin6_family = AF_INET6;
		v6->sin6_port = htons((uint16_t)port);
		*sslen = sizeof(*v6);
		loop = IN6_IS_ADDR_LOOPBACK(&v6->sin6_addr);
	} else {
		snprintf(err, errlen, "bad --listen address '%s'; use a numeric IPv4/IPv6 address or "
			 "localhost, e.g. 127.0.0.1:9464", host);
		return -EINVAL;
	}
	if (!loop && !allow_remote) {
		snprintf(err, errlen, "--listen %s would accept scrapes from other hosts; add "
			 "--allow-remote to mean it, or listen on 127.0.0.1", spec);
		return -EPERM;
	}
	return 0;
}

struct client {
	struct metrics_server *m;
	int fd, watch;
	char in[METRICS_MAX_REQUEST];
	size_t in_len;
	char *out;
	size_t out_len, out_off;
	bool draining;      /* answered: reading until the client closes (no RST on unread data) */
	uint64_t since;
};

struct metrics_server {
	struct session *s;
	const struct live *l;
	struct metrics_info info;
	int lfd, lwatch;
	struct client cl[METRICS_MAX_CLIENTS];
	char addr[80];
	uint64_t scrapes;
};

static void client_close(struct client *c)
{
	if (c->fd < 0)
		return;
	session__unwatch(c->m->s, c->watch);
	close(c->fd);
	free(c->out);
	c->out = NULL;
	c->fd = -1;
	c->in_len = c->out_len = c->out_off = 0;
	c->draining = false;
}

/* Send what is left; close when done or on error. */
static void client_flush(struct client *c)
{
	while (c->out_off < c->out_len) {
		ssize_t n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			session__watch_mod(c->m->s, c->watch, EPOLLOUT);
			return;
		}
		if (n <= 0) {
			client_close(c);
			return;
		}
		c->out_off += (size_t)n;
	}
	/*
	 * Sent.  Closing with unread request bytes (an oversized request) would
	 * reset the connection and lose the answer: half-close and read to EOF.
	 */
	shutdown(c->fd, SHUT_WR);
	c->draining = true;
	session__watch_mod(c->m->s, c->watch, EPOLLIN);
}

static void respond(struct client *c, int status)
{
	static const char *const reason[] = {
		[0] = "OK", [1] = "Bad Request", [2] = "Not Found", [3] = "Method Not Allowed",
		[4] = "Request Header Fields Too Large", [5] = "Internal Server Error",
	};
	int ri = status == 200 ? 0 : status == 400 ? 1 : status == 404 ? 2 : status == 405 ? 3 :
		 status == 431 ? 4 : 5;
	char *body = NULL, hdr[256];
	size_t blen = 0;
	int h;

	struct metrics_info info = c->m->info;

	info.format = metrics__negotiate(c->in, c->in_len);
	if (status == 200) {
		FILE *f = open_memstream(&body, &blen);
		if (!f || metrics__render(c->m->l, &info, f) || fclose(f)) {
			if (f && body) /* fclose failed after the stream existed */
				free(body);
			body = NULL;
			status = 500;
			ri = 5;
		} else {
			c->m->scrapes++;
		}
	}
	if (status != 200) {
		body = strdup(status == 404 ? "not found: the metrics are at /metrics\n" :
			      status == 405 ? "only GET is served\n" : "bad request\n");
		blen = body ? strlen(body) : 0;
	}
	h = snprintf(hdr, sizeof(hdr), "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
		     "%sConnection: close\r\n\r\n", status, reason[ri],
		     status != 200 ? "text/plain; charset=utf-8" :
		     info.format == METRICS_OPENMETRICS ? METRICS_CONTENT_TYPE : METRICS_CONTENT_TYPE_TEXT, blen,
		     status == 405 ? "Allow: GET\r\n" : "");
	c->out = malloc((size_t)h + blen);
	if (!c->out) {
		free(body);
		client_close(c);
		return;
	}
	memcpy(c->out, hdr, (size_t)h);
	if (blen)
		memcpy(c->out + h, body, blen);
	free(body);
	c->out_len = (size_t)h + blen;
	c->out_off = 0;
	client_flush(c);
}

static void on_client(void *ctx, int fd, uint32_t events)
{
	struct client *c = ctx;
	int status;

	(void)fd;
	if (c->draining) {
		char scratch[4096];

		for (;;) {
			ssize_t n = recv(c->fd, scratch, sizeof(scratch), MSG_DONTWAIT);

			if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
				return;
			if (n <= 0) {
				client_close(c);
				return;
			}
		}
	}
	if (c->out) { /* answering */
		if (events & (EPOLLERR | EPOLLHUP))
			client_close(c);
		else
			client_flush(c);
		return;
	}
	for (;;) {
		ssize_t n = recv(c->fd, c->in + c->in_len, sizeof(c->in) - c->in_len, MSG_DONTWAIT);

		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n == 0 && c->in_len) { /* the client shut its side after asking (nc -N): answer */
			status = metrics__parse_request(c->in, c->in_len);
			if (status)
				respond(c, status);
			else
				client_close(c);
			return;
		}
		if (n <= 0) { /* closed before asking, or an error */
			client_close(c);
			return;
		}
		c->in_len += (size_t)n;
		if (c->in_len == sizeof(c->in))
			break;
	}
	status = metrics__parse_request(c->in, c->in_len);
	if (status)
		respond(c, status);
}

static void on_listen(void *ctx, int fd, uint32_t events)
{
	struct metrics_server *m = ctx;

	(void)events;
	for (;;) {
		int cfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct client *c = NULL;

		if (cfd < 0)
			return;
		for (int i = 0; i < METRICS_MAX_CLIENTS && !c; i++)
			if (m->cl[i].fd < 0)
				c = &m->cl[i];
		if (!c) { /* bounded: one more is turned away at once */
			static const char busy[] = "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n"
						   "Connection: close\r\n\r\n";

			if (send(cfd, busy, sizeof(busy) - 1, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
				(void)0; /* it goes away either way */
			close(cfd);
			continue;
		}
		c->fd = cfd;
		c->since = mono_ns();
		c->watch = session__watch(m->s, cfd, EPOLLIN, on_client, c);
		if (c->watch < 0) {
			close(cfd);
			c->fd = -1;
		}
	}
}

int metrics__listen(const char *spec, bool allow_remote, char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	socklen_t sslen = 0;
	int one = 1, ret, fd;

	ret = metrics__parse_addr(spec, allow_remote, &ss, &sslen, err, errlen);
	if (ret)
		return ret;
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, (struct sockaddr *)&ss, sslen) || listen(fd, 16)) {
		ret = -errno;
		snprintf(err, errlen, "cannot listen on %s: %s; pick another address or port", spec,
			 strerror(errno));
		if (fd >= 0)
			close(fd);
		return ret;
	}
	return fd;
}

int metrics_server__open(struct metrics_server **out, struct session *s, int lfd, const struct live *l,
			 const struct metrics_info *info, char *err, size_t errlen)
{
	struct metrics_server *m;
	struct sockaddr_storage ss;
	socklen_t sslen = sizeof(ss);
	int ret;
	char host[INET6_ADDRSTRLEN];

	*out = NULL;
	m = calloc(1, sizeof(*m));
	if (!m) {
		close(lfd);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	m->s = s;
	m->l = l;
	if (info)
		m->info = *info;
	m->lwatch = -1;
	for (int i = 0; i < METRICS_MAX_CLIENTS; i++) {
		m->cl[i].fd = -1;
		m->cl[i].m = m;
	}
	m->lfd = lfd;
	if (getsockname(m->lfd, (struct sockaddr *)&ss, &sslen)) {
		ret = -errno;
		snprintf(err, errlen, "the listening socket: %s", strerror(errno));
		goto fail;
	}
	if (ss.ss_family == AF_INET) {
		const struct sockaddr_in *a = (const struct sockaddr_in *)&ss;

		inet_ntop(AF_INET, &a->sin_addr, host, sizeof(host));
		snprintf(m->addr, sizeof(m->addr), "%s:%u", host, ntohs(a->sin_port));
	} else {
		const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)&ss;

		inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof(host));
		snprintf(m->addr, sizeof(m->addr), "[%s]:%u", host, ntohs(a->sin6_port));
	}
	m->lwatch = session__watch(s, m->lfd, EPOLLIN, on_listen, m);
	if (m->lwatch < 0) {
		ret = m->lwatch;
		snprintf(err, errlen, "cannot watch the listening socket: %s", strerror(-ret));
		goto fail;
	}
	*out = m;
	return 0;
fail:
	if (m->lfd >= 0)
		close(m->lfd);
	free(m);
	return ret ? ret : -EINVAL;
}

void metrics_server__tick(struct metrics_server *m, uint64_t now_ns)
{
	if (!m)
		return;
	for (int i = 0; i < METRICS_MAX_CLIENTS; i++)
		if (m->cl[i].fd >= 0 && now_ns - m->cl[i].since > METRICS_CLIENT_TIMEOUT_NS)
			client_close(&m->cl[i]);
}

const char *metrics_server__address(const struct metrics_server *m)
{
	return m ? m->addr : "";
}

uint64_t metrics_server__scrapes(const struct metrics_server *m)
{
	return m ? m->scrapes : 0;
}

void metrics_server__close(struct metrics_server *m)
{
	if (!m)
		return;
	for (int i = 0; i < METRICS_MAX_CLIENTS; i++)
		client_close(&m->cl[i]);
	session__unwatch(m->s, m->lwatch);
	close(m->lfd);
	free(m);
}
