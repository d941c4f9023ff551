// SPDX-License-Identifier: GPL-2.0
/*
 * incast — TCP incast / background traffic generator for the fabtrace lab.
 *
 *   incast sink --port P [--bind ADDR] [--duration S] [--expect-bytes N]
 *               [--expect-conns K] [--ready-file F] [--json]
 *   incast send --to ADDR:PORT --bytes N [--conns K] [--rounds R] [--gap-us U]
 *               [--connect-timeout S] [--json]
 *
 * The sink accepts any number of connections and counts what it receives.
 * It always exits on its own: after --duration seconds (default 30), or as
 * soon as --expect-bytes bytes have arrived, or --expect-conns connections
 * have been opened and closed.  It prints bytes, connections and the rate
 * between the first and the last byte.
 *
 * The sender opens K connections (retrying refused connects for
 * --connect-timeout seconds, so it may start before the sink) and in each
 * of R rounds writes N bytes on every connection in parallel; then it half-
 * closes and waits until the sink has read everything.  Several hosts
 * sending to one sink at once make an incast.
 *
 * Exit status: 0 ok, 1 network error or expectation not met, 2 bad arguments.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "toolargs.h"

#define MAX_CONNS 1024
#define BUFSZ ((size_t)64 * 1024)

static char g_buf[BUFSZ];

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: incast sink --port P [--bind ADDR] [--duration S] [--expect-bytes N]\n"
		"                   [--expect-conns K] [--ready-file F] [--json]\n"
		"       incast send --to ADDR:PORT --bytes N [--conns K] [--rounds R] [--gap-us U]\n"
		"                   [--connect-timeout S] [--json]\n"
		"sizes take k/m/g suffixes (KiB/MiB/GiB).  The sink exits after --duration\n"
		"(default 30 s), --expect-bytes or --expect-conns, whichever comes first.\n"
		"examples:\n"
		"  incast sink --port 5001 --expect-bytes 30m --duration 20\n"
		"  incast send --to 198.18.0.1:5001 --bytes 10m --conns 4\n");
}

static int die_usage(const char *what, const char *why)
{
	fprintf(stderr, "incast: %s: %s; run 'incast --help'\n", what, why);
	return 2;
}

static int set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

/* ---------------------------------------------------------------- sink */

struct sink_opts {
	int port;
	const char *bind;
	double duration;
	long long expect_bytes;
	long expect_conns;
	const char *ready_file;
	int json;
};

static int run_sink(const struct sink_opts *o)
{
	struct pollfd pfd[MAX_CONNS + 1];
	long long total = 0;
	long opened = 0, closed = 0;
	int nfd = 1, one = 1, i, status = 0;
	double start = now_s(), first = 0, last = 0;
	struct sockaddr_in sa;
	const char *why = "duration elapsed";

	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)o->port);
	if (o->bind && inet_pton(AF_INET, o->bind, &sa.sin_addr) != 1)
		return die_usage("--bind", "not an IPv4 address");
	pfd[0].fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (pfd[0].fd < 0) {
		fprintf(stderr, "incast: sink: socket: %s; check the network namespace\n", strerror(errno));
		return 1;
	}
	setsockopt(pfd[0].fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(pfd[0].fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(pfd[0].fd, 512) ||
	    set_nonblock(pfd[0].fd)) {
		fprintf(stderr, "incast: sink: bind/listen on port %d: %s; pick another --port\n", o->port,
			strerror(errno));
		close(pfd[0].fd);
		return 1;
	}
	pfd[0].events = POLLIN;
	if (o->ready_file) {
		FILE *f = fopen(o->ready_file, "w");

		if (!f) {
			fprintf(stderr, "incast: sink: --ready-file %s: %s; pick a writable path\n", o->ready_file,
				strerror(errno));
			close(pfd[0].fd);
			return 1;
		}
		fprintf(f, "%d\n", (int)getpid());
		fclose(f);
	}

	for (;;) {
		int timeout_ms, n;

		if (o->expect_bytes > 0 && total >= o->expect_bytes) {
			why = "expected bytes received";
			break;
		}
		if (o->expect_conns > 0 && closed >= o->expect_conns) {
			why = "expected connections closed";
			break;
		}
		double t = now_s();

		if (t - start >= o->duration)
			break;
		timeout_ms = (int)((o->duration - (t - start)) * 1000.0) + 1;
		if (timeout_ms > 1000)
			timeout_ms = 1000;
		n = poll(pfd, (nfds_t)nfd, timeout_ms);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "incast: sink: poll: %s\n", strerror(errno));
			status = 1;
			break;
		}
		if (pfd[0].revents & POLLIN) {
			for (;;) {
				int c = accept4(pfd[0].fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

				if (c < 0)
					break;
				if (nfd > MAX_CONNS) {
					fprintf(stderr, "incast: sink: more than %d connections; dropping one\n",
						MAX_CONNS);
					close(c);
					continue;
				}
				pfd[nfd].fd = c;
				pfd[nfd].events = POLLIN;
				pfd[nfd].revents = 0;
				nfd++;
				opened++;
			}
		}
		for (i = 1; i < nfd; i++) {
			ssize_t r;

			if (!(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			r = read(pfd[i].fd, g_buf, sizeof(g_buf));
			if (r > 0) {
				double now = now_s();

				if (total == 0)
					first = now;
				last = now;
				total += r;
				continue;
			}
			if (r < 0 && (errno == EAGAIN || errno == EINTR))
				continue;
			if (r < 0)
				fprintf(stderr, "incast: sink: connection error: %s\n", strerror(errno));
			close(pfd[i].fd);
			pfd[i] = pfd[nfd - 1];
			nfd--;
			i--;
			closed++;
		}
	}
	for (i = 0; i < nfd; i++)
		close(pfd[i].fd);
	if (o->ready_file)
		unlink(o->ready_file);
	if (o->expect_bytes > 0 && total < o->expect_bytes)
		status = 1;
	if (o->expect_conns > 0 && closed < o->expect_conns)
		status = 1;
	{
		double span = last - first;
		double mbit = span > 0 ? (double)total * 8 / span / 1e6 : 0;

		if (o->json)
			printf("{\"role\":\"sink\",\"port\":%d,\"bytes\":%lld,\"conns\":%ld,\"closed\":%ld,"
			       "\"seconds\":%.6f,\"rate_mbit\":%.2f,\"end\":\"%s\",\"ok\":%s}\n",
			       o->port, total, opened, closed, span, mbit, why, status ? "false" : "true");
		else
			printf("incast sink: port=%d bytes=%lld conns=%ld closed=%ld seconds=%.3f rate_mbit=%.2f end=\"%s\"%s\n",
			       o->port, total, opened, closed, span, mbit, why,
			       status ? " (expectation not met)" : "");
	}
	if (status)
		fprintf(stderr, "incast: sink: got %lld bytes on %ld connections before %s; "
				"check that the senders ran and raise --duration\n",
			total, closed, why);
	return status;
}

/* ---------------------------------------------------------------- send */

struct send_opts {
	struct sockaddr_in to;
	const char *to_str;
	long long bytes;
	long conns;
	long rounds;
	long gap_us;
	double connect_timeout;
	int json;
};

static int connect_retry(const struct send_opts *o)
{
	double deadline = now_s() + o->connect_timeout;

	for (;;) {
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

		if (fd < 0) {
			fprintf(stderr, "incast: send: socket: %s\n", strerror(errno));
			return -1;
		}
		if (connect(fd, (const struct sockaddr *)&o->to, sizeof(o->to)) == 0)
			return fd;
		int err = errno;

		close(fd);
		if ((err == ECONNREFUSED || err == EINTR) && now_s() < deadline) {
			usleep(20000);
			continue;
		}
		fprintf(stderr, "incast: send: connect to %s: %s; start 'incast sink' there first%s\n",
			o->to_str, strerror(err), err == ECONNREFUSED ? " or raise --connect-timeout" : "");
		return -1;
	}
}

static int run_send(const struct send_opts *o)
{
	static struct pollfd pfd[MAX_CONNS];
	static long long left[MAX_CONNS];
	long i, r;
	long long total = 0;
	double start, secs;
	int status = 0;

	signal(SIGPIPE, SIG_IGN);
	for (i = 0; i < o->conns; i++) {
		pfd[i].fd = connect_retry(o);
		if (pfd[i].fd < 0) {
			while (i-- > 0)
				close(pfd[i].fd);
			return 1;
		}
		set_nonblock(pfd[i].fd);
	}
	start = now_s();
	for (r = 0; r < o->rounds && !status; r++) {
		long active = o->conns;

		if (r > 0 && o->gap_us > 0)
			usleep((useconds_t)o->gap_us);
		for (i = 0; i < o->conns; i++) {
			left[i] = o->bytes;
			pfd[i].events = POLLOUT;
		}
		while (active > 0) {
			int pr = poll(pfd, (nfds_t)o->conns, 30000);

			if (pr < 0 && errno == EINTR)
				continue;
			if (pr <= 0) {
				fprintf(stderr, "incast: send: no progress for 30 s to %s; check the link\n",
					o->to_str);
				status = 1;
				break;
			}
			for (i = 0; i < o->conns; i++) {
				ssize_t w;
				size_t want;

				if (!left[i] || !pfd[i].revents)
					continue;
				want = left[i] < (long long)BUFSZ ? (size_t)left[i] : BUFSZ;
				w = write(pfd[i].fd, g_buf, want);
				if (w < 0) {
					if (errno == EAGAIN || errno == EINTR)
						continue;
					fprintf(stderr, "incast: send: write to %s: %s; the sink closed early?\n",
						o->to_str, strerror(errno));
					status = 1;
					active = 0;
					break;
				}
				left[i] -= w;
				total += w;
				if (!left[i]) {
					pfd[i].events = 0;
					active--;
				}
			}
		}
	}
	/* Half-close and wait until the sink has read everything (EOF back). */
	for (i = 0; i < o->conns; i++) {
		shutdown(pfd[i].fd, SHUT_WR);
		pfd[i].events = POLLIN;
	}
	for (i = 0; i < o->conns && !status; i++) {
		int fl = fcntl(pfd[i].fd, F_GETFL);
		struct timeval tv = { .tv_sec = 30 };

		fcntl(pfd[i].fd, F_SETFL, fl & ~O_NONBLOCK);
		setsockopt(pfd[i].fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		for (;;) {
			ssize_t n = read(pfd[i].fd, g_buf, sizeof(g_buf));

			if (n == 0)
				break;
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0) {
				fprintf(stderr, "incast: send: waiting for the sink to finish reading: %s\n",
					strerror(errno));
				status = 1;
				break;
			}
		}
	}
	secs = now_s() - start;
	for (i = 0; i < o->conns; i++)
		close(pfd[i].fd);
	if (o->json)
		printf("{\"role\":\"send\",\"to\":\"%s\",\"bytes\":%lld,\"conns\":%ld,\"rounds\":%ld,"
		       "\"seconds\":%.6f,\"rate_mbit\":%.2f,\"ok\":%s}\n",
		       o->to_str, total, o->conns, o->rounds, secs, secs > 0 ? (double)total * 8 / secs / 1e6 : 0,
		       status ? "false" : "true");
	else
		printf("incast send: to=%s bytes=%lld conns=%ld rounds=%ld seconds=%.3f rate_mbit=%.2f%s\n",
		       o->to_str, total, o->conns, o->rounds, secs,
		       secs > 0 ? (double)total * 8 / secs / 1e6 : 0, status ? " (FAILED)" : "");
	return status;
}

/* ---------------------------------------------------------------- main */

static const char *need(int argc, char **argv, int *i)
{
	if (*i + 1 >= argc)
		return NULL;
	return argv[++*i];
}

int main(int argc, char **argv)
{
	long long v;
	int i;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "sink")) {
		struct sink_opts o = { .port = 0, .duration = 30 };

		for (i = 2; i < argc; i++) {
			const char *a = argv[i], *val;

			if (!strcmp(a, "--json")) {
				o.json = 1;
				continue;
			}
			if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
				usage(stdout);
				return 0;
			}
			val = need(argc, argv, &i);
			if (!val)
				return die_usage(a, "unknown option or missing value");
			if (!strcmp(a, "--port")) {
				if (toolargs_num(val, 1, 65535, &v, 0))
					return die_usage("--port", "expected 1..65535");
				o.port = (int)v;
			} else if (!strcmp(a, "--bind")) {
				o.bind = val;
			} else if (!strcmp(a, "--duration")) {
				char *end;

				errno = 0;
				o.duration = strtod(val, &end);
				if (errno || *end || !(o.duration > 0 && o.duration <= 86400))
					return die_usage("--duration", "expected seconds, 0 < S <= 86400");
			} else if (!strcmp(a, "--expect-bytes")) {
				if (toolargs_num(val, 1, LLONG_MAX, &v, TA_SUFFIX))
					return die_usage("--expect-bytes", "expected a size such as 30m");
				o.expect_bytes = v;
			} else if (!strcmp(a, "--expect-conns")) {
				if (toolargs_num(val, 1, MAX_CONNS, &v, 0))
					return die_usage("--expect-conns", "expected 1..1024");
				o.expect_conns = (long)v;
			} else if (!strcmp(a, "--ready-file")) {
				o.ready_file = val;
			} else {
				return die_usage(a, "unknown option");
			}
		}
		if (!o.port)
			return die_usage("sink", "--port is required");
		return run_sink(&o);
	}
	if (!strcmp(argv[1], "send")) {
		struct send_opts o = { .bytes = -1, .conns = 1, .rounds = 1, .connect_timeout = 5 };

		for (i = 2; i < argc; i++) {
			const char *a = argv[i], *val;

			if (!strcmp(a, "--json")) {
				o.json = 1;
				continue;
			}
			if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
				usage(stdout);
				return 0;
			}
			val = need(argc, argv, &i);
			if (!val)
				return die_usage(a, "unknown option or missing value");
			if (!strcmp(a, "--to")) {
				if (toolargs_addr(val, &o.to, 0))
					return die_usage("--to", "expected IPv4ADDR:PORT, e.g. 198.18.0.1:5001");
				o.to_str = val;
			} else if (!strcmp(a, "--bytes")) {
				if (toolargs_num(val, 1, 1LL << 40, &v, TA_SUFFIX))
					return die_usage("--bytes", "expected a size such as 10m");
				o.bytes = v;
			} else if (!strcmp(a, "--conns")) {
				if (toolargs_num(val, 1, MAX_CONNS, &v, 0))
					return die_usage("--conns", "expected 1..1024");
				o.conns = (long)v;
			} else if (!strcmp(a, "--rounds")) {
				if (toolargs_num(val, 1, 1000000, &v, 0))
					return die_usage("--rounds", "expected 1..1000000");
				o.rounds = (long)v;
			} else if (!strcmp(a, "--gap-us")) {
				if (toolargs_num(val, 0, 60000000, &v, 0))
					return die_usage("--gap-us", "expected 0..60000000");
				o.gap_us = (long)v;
			} else if (!strcmp(a, "--connect-timeout")) {
				char *end;

				errno = 0;
				o.connect_timeout = strtod(val, &end);
				if (errno || *end || !(o.connect_timeout >= 0 && o.connect_timeout <= 3600))
					return die_usage("--connect-timeout", "expected seconds, 0..3600");
			} else {
				return die_usage(a, "unknown option");
			}
		}
		if (!o.to_str)
			return die_usage("send", "--to ADDR:PORT is required");
		if (o.bytes < 0)
			return die_usage("send", "--bytes N is required");
		return run_send(&o);
	}
	return die_usage(argv[1], "unknown mode (expected sink or send)");
}
