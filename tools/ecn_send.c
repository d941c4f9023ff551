// SPDX-License-Identifier: GPL-2.0
/*
 * ecn_send — UDP datagrams with a chosen IP TOS byte (default ECN CE).
 *
 *   ecn_send --to ADDR:PORT --count N [--size S] [--tos 0x03] [--interval-us U]
 *   ecn_send --sink --port P --count N [--timeout S] [--bind ADDR] [--ready-file F] [--json]
 *
 * The sender sets IP_TOS on a UDP socket (for UDP the ECN bits of IP_TOS go
 * onto the wire), reads it back with getsockopt to make sure, and sends
 * exactly N datagrams of S bytes (default 64) carrying a sequence number.
 * The sink enables IP_RECVTOS, reads the TOS byte of every datagram from the
 * control message and counts CE (0b11), ECT(0), ECT(1) and Not-ECT; it stops
 * after N datagrams or --timeout seconds (default 10).
 *
 * Exit status: sender 0 = all N sent, 1 = socket/send error;
 *              sink 0 = N datagrams received, 1 = fewer before the timeout
 *              (or a socket error); 2 = bad arguments.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "toolargs.h"

#define MAX_DGRAM 65507

static unsigned char g_buf[MAX_DGRAM];

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ecn_send --to ADDR:PORT --count N [--size S] [--tos T] [--interval-us U]\n"
		"       ecn_send --sink --port P --count N [--timeout S] [--bind ADDR]\n"
		"                [--ready-file F] [--json]\n"
		"  --tos T   TOS byte, decimal or 0x.. (default 0x03 = ECN CE; 0x02 = ECT(0))\n"
		"  --size S  UDP payload bytes, 8..%d (default 64)\n"
		"examples:\n"
		"  ecn_send --sink --port 6000 --count 100 --timeout 5\n"
		"  ecn_send --to 198.18.0.2:6000 --count 100 --tos 0x03\n",
		MAX_DGRAM);
}

static int die_usage(const char *what, const char *why)
{
	fprintf(stderr, "ecn_send: %s: %s; run 'ecn_send --help'\n", what, why);
	return 2;
}

static int run_send(const struct sockaddr_in *to, const char *to_str, long long count, long long size,
		    int tos, long long interval_us, int json)
{
	int fd, got = -1;
	socklen_t gl = sizeof(got);
	long long i;
	double t0;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		fprintf(stderr, "ecn_send: socket: %s\n", strerror(errno));
		return 1;
	}
	if (setsockopt(fd, IPPROTO_IP, IP_TOS, &tos, sizeof(tos)) ||
	    getsockopt(fd, IPPROTO_IP, IP_TOS, &got, &gl)) {
		fprintf(stderr, "ecn_send: IP_TOS 0x%02x: %s; needs an IPv4 UDP socket\n", tos, strerror(errno));
		close(fd);
		return 1;
	}
	if ((got & 0xff) != tos) {
		fprintf(stderr, "ecn_send: IP_TOS: kernel kept 0x%02x instead of 0x%02x; cannot mark ECN\n", got,
			tos);
		close(fd);
		return 1;
	}
	if (connect(fd, (const struct sockaddr *)to, sizeof(*to))) {
		fprintf(stderr, "ecn_send: connect %s: %s; check the address and route\n", to_str,
			strerror(errno));
		close(fd);
		return 1;
	}
	memset(g_buf, 0xec, (size_t)size);
	t0 = now_s();
	for (i = 0; i < count; i++) {
		uint64_t seq = (uint64_t)i;
		ssize_t w;

		memcpy(g_buf, &seq, sizeof(seq));
		w = send(fd, g_buf, (size_t)size, 0);
		if (w < 0 && (errno == ENOBUFS || errno == EAGAIN || errno == EINTR || errno == ECONNREFUSED)) {
			/* local queue full, or an ICMP error from an earlier datagram: retry once later */
			usleep(1000);
			w = send(fd, g_buf, (size_t)size, 0);
		}
		if (w != (ssize_t)size) {
			fprintf(stderr, "ecn_send: send datagram %lld of %lld to %s: %s; is the sink up?\n", i + 1,
				count, to_str, w < 0 ? strerror(errno) : "short write");
			close(fd);
			return 1;
		}
		if (interval_us > 0 && i + 1 < count)
			usleep((useconds_t)interval_us);
	}
	if (json)
		printf("{\"role\":\"send\",\"to\":\"%s\",\"sent\":%lld,\"size\":%lld,\"tos\":%d,\"seconds\":%.6f}\n",
		       to_str, count, size, tos, now_s() - t0);
	else
		printf("ecn_send: to=%s sent=%lld size=%lld tos=0x%02x seconds=%.3f\n", to_str, count, size, tos,
		       now_s() - t0);
	close(fd);
	return 0;
}

static int run_sink(int port, const char *bind_addr, long long count, double timeout, const char *ready,
		    int json)
{
	struct sockaddr_in sa;
	int fd, one = 1, status = 0;
	long long rx = 0, ce = 0, ect0 = 0, ect1 = 0, notect = 0, notos = 0;
	double deadline;

	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)port);
	if (bind_addr && inet_pton(AF_INET, bind_addr, &sa.sin_addr) != 1)
		return die_usage("--bind", "not an IPv4 address");
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		fprintf(stderr, "ecn_send: sink: socket: %s\n", strerror(errno));
		return 1;
	}
	{
		int rcvbuf = 4 << 20;

		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	}
	if (setsockopt(fd, IPPROTO_IP, IP_RECVTOS, &one, sizeof(one))) {
		fprintf(stderr, "ecn_send: sink: IP_RECVTOS: %s\n", strerror(errno));
		close(fd);
		return 1;
	}
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		fprintf(stderr, "ecn_send: sink: bind port %d: %s; pick another --port\n", port, strerror(errno));
		close(fd);
		return 1;
	}
	if (ready) {
		FILE *f = fopen(ready, "w");

		if (!f) {
			fprintf(stderr, "ecn_send: sink: --ready-file %s: %s\n", ready, strerror(errno));
			close(fd);
			return 1;
		}
		fprintf(f, "%d\n", (int)getpid());
		fclose(f);
	}
	deadline = now_s() + timeout;
	while (rx < count) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		double left = deadline - now_s();
		char cbuf[CMSG_SPACE(sizeof(int)) * 2];
		struct iovec iov = { .iov_base = g_buf, .iov_len = sizeof(g_buf) };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
				     .msg_controllen = sizeof(cbuf) };
		struct cmsghdr *c;
		int tos = -1, pr;

		if (left <= 0)
			break;
		pr = poll(&pfd, 1, (int)(left * 1000) + 1);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr < 0) {
			fprintf(stderr, "ecn_send: sink: poll: %s\n", strerror(errno));
			status = 1;
			break;
		}
		if (pr == 0)
			continue;
		if (recvmsg(fd, &mh, MSG_DONTWAIT) < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			fprintf(stderr, "ecn_send: sink: recvmsg: %s\n", strerror(errno));
			status = 1;
			break;
		}
		rx++;
		for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
			if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_TOS && c->cmsg_len >= CMSG_LEN(1)) {
				unsigned char b;

				memcpy(&b, CMSG_DATA(c), 1);
				tos = b;
			}
		}
		if (tos < 0)
			notos++;
		else if ((tos & 3) == 3)
			ce++;
		else if ((tos & 3) == 2)
			ect0++;
		else if ((tos & 3) == 1)
			ect1++;
		else
			notect++;
	}
	close(fd);
	if (ready)
		unlink(ready);
	if (rx < count)
		status = 1;
	if (json)
		printf("{\"role\":\"sink\",\"port\":%d,\"expected\":%lld,\"received\":%lld,\"ce\":%lld,"
		       "\"ect0\":%lld,\"ect1\":%lld,\"not_ect\":%lld,\"no_tos\":%lld,\"ok\":%s}\n",
		       port, count, rx, ce, ect0, ect1, notect, notos, status ? "false" : "true");
	else
		printf("ecn_send sink: port=%d expected=%lld received=%lld ce=%lld ect0=%lld ect1=%lld not_ect=%lld%s\n",
		       port, count, rx, ce, ect0, ect1, notect, status ? " (INCOMPLETE)" : "");
	if (rx < count && status)
		fprintf(stderr, "ecn_send: sink: received %lld of %lld datagrams before the %.1f s timeout; "
				"check the sender and the link\n",
			rx, count, timeout);
	return status;
}

int main(int argc, char **argv)
{
	struct sockaddr_in to;
	const char *to_str = NULL, *bind_addr = NULL, *ready = NULL;
	long long count = -1, size = 64, tos = 0x03, interval = 0, port = 0, v;
	double timeout = 10;
	int sink = 0, json = 0, i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *val;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		}
		if (!strcmp(a, "--sink")) {
			sink = 1;
			continue;
		}
		if (!strcmp(a, "--json")) {
			json = 1;
			continue;
		}
		if (i + 1 >= argc)
			return die_usage(a, "unknown option or missing value");
		val = argv[++i];
		if (!strcmp(a, "--to")) {
			if (toolargs_addr(val, &to, TA_BASE0))
				return die_usage("--to", "expected IPv4ADDR:PORT, e.g. 198.18.0.2:6000");
			to_str = val;
		} else if (!strcmp(a, "--count")) {
			if (toolargs_num(val, 1, LLONG_MAX, &v, TA_BASE0))
				return die_usage("--count", "expected an integer >= 1");
			count = v;
		} else if (!strcmp(a, "--size")) {
			if (toolargs_num(val, 8, MAX_DGRAM, &v, TA_BASE0))
				return die_usage("--size", "expected 8..65507 bytes");
			size = v;
		} else if (!strcmp(a, "--tos")) {
			if (toolargs_num(val, 0, 255, &v, TA_BASE0))
				return die_usage("--tos", "expected 0..255 (e.g. 0x03 for CE)");
			tos = v;
		} else if (!strcmp(a, "--interval-us")) {
			if (toolargs_num(val, 0, 60000000, &v, TA_BASE0))
				return die_usage("--interval-us", "expected 0..60000000");
			interval = v;
		} else if (!strcmp(a, "--port")) {
			if (toolargs_num(val, 1, 65535, &v, TA_BASE0))
				return die_usage("--port", "expected 1..65535");
			port = v;
		} else if (!strcmp(a, "--timeout")) {
			char *end;

			errno = 0;
			timeout = strtod(val, &end);
			if (errno || *end || !(timeout > 0 && timeout <= 86400))
				return die_usage("--timeout", "expected seconds, 0 < S <= 86400");
		} else if (!strcmp(a, "--bind")) {
			bind_addr = val;
		} else if (!strcmp(a, "--ready-file")) {
			ready = val;
		} else {
			return die_usage(a, "unknown option");
		}
	}
	if (count < 0)
		return die_usage(sink ? "--sink" : "send", "--count N is required");
	if (sink) {
		if (!port)
			return die_usage("--sink", "--port P is required");
		return run_sink((int)port, bind_addr, count, timeout, ready, json);
	}
	if (!to_str)
		return die_usage("send", "--to ADDR:PORT is required (or --sink)");
	return run_send(&to, to_str, count, size, (int)tos, interval, json);
}
