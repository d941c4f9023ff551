/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The metrics endpoint of `fabtrace top --listen`: the live aggregator
 * (userspace/live/live.h) rendered as Prometheus text 0.0.4, or as OpenMetrics 1.0
 * when the scraper's Accept header asks for it (metrics.c), and a tiny HTTP/1.1
 * server inside the session's event loop (metrics_http.c: non-blocking;
 * GET /metrics only; bounded request size, clients and time; one response
 * per connection).  Every metric is documented in docs/top.md.
 */
#ifndef FABTRACE_METRICS_H
#define FABTRACE_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>

#include "userspace/live/live.h"

#define METRICS_CONTENT_TYPE "application/openmetrics-text; version=1.0.0; charset=utf-8"
#define METRICS_CONTENT_TYPE_TEXT "text/plain; version=0.0.4; charset=utf-8"
#define METRICS_MAX_REQUEST 4096   /* bytes of request line + headers */
#define METRICS_MAX_CLIENTS 8
#define METRICS_CLIENT_TIMEOUT_NS 5000000000ull
/* Series caps (label sets stay bounded; what is cut is counted in fabtrace_series_dropped_total) */
#define METRICS_MAX_IFACES 256
#define METRICS_MAX_COUNTERS 256   /* per family: RDMA port counters, NIC counters */

enum metrics_format {
	METRICS_OPENMETRICS = 0,   /* OpenMetrics 1.0: info type, # UNIT, # EOF */
	METRICS_TEXT,              /* Prometheus text 0.0.4: every scraper reads it */
};

struct metrics_info {
	const char *hostname;
	double refresh_s;
	enum metrics_format format;
};

/*
 * Render the whole exposition in info->format (NULL: OpenMetrics, ending in
 * "# EOF\n") to OUT.  0 or -EIO.
 */
int metrics__render(const struct live *l, const struct metrics_info *info, FILE *out);
/* Label value escaping (\\, \", \n) into DST; false when it did not fit. */
bool metrics__escape(char *dst, size_t len, const char *src);

/* ---- HTTP (metrics_http.c) ---- */

/*
 * One HTTP request in BUF (LEN bytes so far): 0 while incomplete, else the
 * status to answer: 200 (GET /metrics, query ignored), 404 (another path),
 * 405 (another method), 400 (malformed), 431 (no end of headers within
 * METRICS_MAX_REQUEST bytes).
 */
int metrics__parse_request(const char *buf, size_t len);
/*
 * The format a complete request asks for: OpenMetrics when its Accept header
 * lists application/openmetrics-text (without q=0), else Prometheus text.
 */
enum metrics_format metrics__negotiate(const char *buf, size_t len);

/*
 * "ADDR:PORT", "[V6ADDR]:PORT", ":PORT" or "PORT" (loopback 127.0.0.1), or
 * "localhost:PORT".  A non-loopback address is refused unless ALLOW_REMOTE.
 * 0 or -EINVAL with a one-line reason in ERR.
 */
int metrics__parse_addr(const char *spec, bool allow_remote, struct sockaddr_storage *ss,
			socklen_t *sslen, char *err, size_t errlen);

struct session;
struct metrics_server;

/*
 * The listening socket for SPEC, bound before anything else is set up (a
 * port in use must fail before the probes load and a capture is written):
 * the fd, or -errno with ERR set (metrics__parse_addr's for a bad SPEC).
 */
int metrics__listen(const char *spec, bool allow_remote, char *err, size_t errlen);
/* Serve L on LFD (metrics__listen's, now the server's) inside session S's loop.  0 or -errno with ERR set. */
int metrics_server__open(struct metrics_server **out, struct session *s, int lfd, const struct live *l,
			 const struct metrics_info *info, char *err, size_t errlen);
/* Close clients that took longer than METRICS_CLIENT_TIMEOUT_NS. */
void metrics_server__tick(struct metrics_server *m, uint64_t now_ns);
/* "127.0.0.1:9464" as bound (the port the kernel chose for port 0). */
const char *metrics_server__address(const struct metrics_server *m);
uint64_t metrics_server__scrapes(const struct metrics_server *m);
void metrics_server__close(struct metrics_server *m);

#endif
