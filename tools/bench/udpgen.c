// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * udpgen — UDP datagrams at a target rate, for the ring-buffer benchmark.
 *
 *   udpgen --dst ADDR [--port N] [--rate PPS] [--duration SEC] [--size BYTES]
 *
 * Sends on one connected socket, paced against CLOCK_MONOTONIC (the deficit
 * is made up in bursts, so the average holds even when the CPU is taken
 * away for a while); --rate 0 sends as fast as it can.  An iptables DROP
 * rule in front of it turns every datagram into one kfree_skb drop: a
 * rejected send (EPERM from an OUTPUT rule) still counts as sent, because
 * the rule saw it.  Prints one JSON line: what it tried, what the kernel
 * took, the errors and the achieved rate.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: udpgen --dst ADDR [--port N] [--rate PPS] [--duration SEC] [--size BYTES]\n"
		   "UDP datagrams at PPS (0 = as fast as possible) for SEC seconds; one JSON line.\n");
}

int main(int argc, char **argv)
{
	const char *dst = NULL;
	double rate = 0, duration = 1;
	long port = 9, size = 64;
	struct sockaddr_in sa;
	char buf[1500];
	uint64_t sent = 0, ok = 0, errs = 0, eperm = 0;
	int fd;

	for (int i = 1; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		}
		if (!v) {
			usage(stderr);
			return 2;
		}
		if (!strcmp(argv[i], "--dst"))
			dst = v;
		else if (!strcmp(argv[i], "--port"))
			port = strtol(v, NULL, 10);
		else if (!strcmp(argv[i], "--rate"))
			rate = strtod(v, NULL);
		else if (!strcmp(argv[i], "--duration"))
			duration = strtod(v, NULL);
		else if (!strcmp(argv[i], "--size"))
			size = strtol(v, NULL, 10);
		else {
			usage(stderr);
			return 2;
		}
		i++;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)port);
	if (!dst || inet_pton(AF_INET, dst, &sa.sin_addr) != 1 || port < 1 || port > 65535 ||
	    size < 1 || size > (long)sizeof(buf) || rate < 0 || duration <= 0) {
		usage(stderr);
		return 2;
	}
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		fprintf(stderr, "udpgen: socket to %s:%ld: %s\n", dst, port, strerror(errno));
		return 1;
	}
	memset(buf, 0xab, sizeof(buf));

	double t0 = now_s(), t = t0;

	while (t - t0 < duration) {
		/* how many are due by now; at most a 1 ms burst between clock reads */
		uint64_t due = rate > 0 ? (uint64_t)((t - t0) * rate) : sent + 256;
		uint64_t burst = rate > 0 && rate / 1000 > 64 ? (uint64_t)(rate / 1000) : 64;

		if (due > sent + burst)
			due = sent + burst;
		while (sent < due) {
			sent++;
			if (send(fd, buf, (size_t)size, 0) >= 0) {
				ok++;
			} else if (errno == EPERM) {
				eperm++; /* an OUTPUT DROP rule took it */
			} else {
				errs++;
			}
		}
		if (rate > 0 && sent >= (uint64_t)((now_s() - t0) * rate)) {
			struct timespec d = { 0, 50000 };

			nanosleep(&d, NULL);
		}
		t = now_s();
	}
	double el = now_s() - t0;

	printf("{\"target_pps\":%.0f,\"sent\":%llu,\"ok\":%llu,\"eperm\":%llu,\"errors\":%llu,"
	       "\"elapsed_s\":%.6f,\"pps\":%.0f}\n",
	       rate, (unsigned long long)sent, (unsigned long long)ok, (unsigned long long)eperm,
	       (unsigned long long)errs, el, (double)sent / el);
	close(fd);
	return 0;
}
